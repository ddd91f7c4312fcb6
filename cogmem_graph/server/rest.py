"""The REST API: one route per entry of `cogmem_graph.operations`, with an OpenAPI schema (`/docs`).

Each route is one generic handler built from its entry: `{name}` segments of the path are
path parameters, the other fields of the entry's argument model are query parameters for
GET and DELETE and the JSON body otherwise (the body model is the argument model, so the
schema shows it; with path parameters, the model less those fields). Only owner operations
may have an identity field (the user an erase erases); otherwise the identity comes from the
key the guard checked. An entry answering JSON Lines is streamed (`StreamingResponse`). Handlers are
plain functions, so FastAPI runs them on its worker threads and a slow store call never
blocks the event loop.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from fastapi import Body, FastAPI, Path, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, create_model
from pydantic.fields import FieldInfo

from cogmem_graph.operations import OPERATIONS, Operation
from cogmem_graph.server.keys import Principal
from cogmem_graph.server.service import MemoryService, ServiceError

BODY = "body"
_CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern")


def _principal(request: Request) -> Principal:
    principal = request.scope.get("state", {}).get("principal")
    if principal is None:  # the guard always sets it; refuse rather than act as nobody
        raise ServiceError(401, "missing or unknown API key")
    return principal


def _parameter(name: str, field: FieldInfo, where: Any) -> inspect.Parameter:
    """A path or query parameter with the field's type, constraints, description and default."""
    options: dict[str, Any] = {"description": field.description} if field.description else {}
    for constraint in field.metadata:
        for key in _CONSTRAINTS:
            value = getattr(constraint, key, None)
            if value is not None:
                options[key] = value
    default = inspect.Parameter.empty if field.is_required() else field.get_default(call_default_factory=True)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[field.annotation, where(**options)])


def body_model(op: Operation) -> type[BaseModel] | None:
    """The JSON body of `op`'s route: its argument model (less the path parameters), or None
    when the arguments travel in the path and query, or there are none."""
    fields = {n: f for n, f in op.args.model_fields.items() if n not in op.path_params}
    if op.in_query or not fields:
        return None
    if len(fields) == len(op.args.model_fields):
        return op.args
    return create_model(f"{op.args.__name__}Body", __config__=op.args.model_config,
                        **{n: (f.annotation, f) for n, f in fields.items()})


def endpoint(service: MemoryService, op: Operation) -> Any:
    """The handler of `op`'s route: its signature (what FastAPI reads and documents) is
    built from the entry; the call collects path, query and body into the arguments."""
    body = body_model(op)

    def handle(request: Request, **params: Any) -> Any:
        unknown = sorted(set(request.query_params) - set(op.args.model_fields)) if op.in_query else []
        if unknown:  # as a body refuses unknown fields: a misspelt filter must not widen what is read
            raise ServiceError(400, f"{op.name}: unknown query parameter(s) {', '.join(unknown)}; this route takes "
                                    f"{', '.join(n for n in op.args.model_fields if n not in op.path_params) or 'none'}")
        payload = params.pop(BODY, None)
        args = dict(params)
        if payload is not None:
            args.update(payload.model_dump(mode="json", exclude_unset=True))
        answer = service.call(_principal(request), op.name, args)
        if op.streams:
            return StreamingResponse(answer, media_type=op.media_type)
        return answer

    parameters = [inspect.Parameter("request", inspect.Parameter.KEYWORD_ONLY, annotation=Request)]
    parameters += [_parameter(name, op.args.model_fields[name], Path) for name in op.path_params]
    if op.in_query:
        parameters += [_parameter(name, field, Query) for name, field in op.args.model_fields.items()
                       if name not in op.path_params]
    elif body is not None:
        parameters.append(inspect.Parameter(BODY, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[body, Body()]))
    returns = StreamingResponse if op.streams else op.result
    handle.__signature__ = inspect.Signature(parameters, return_annotation=returns)  # type: ignore[attr-defined]
    handle.__name__ = op.name
    handle.__doc__ = op.description
    return handle


def add_routes(app: FastAPI, service: MemoryService) -> None:
    """One route per entry of the table, on the app itself (so `app.routes` lists them)."""
    for op in OPERATIONS.values():
        streamed: dict[str, Any] = {}
        if op.streams:  # the schema says what the body is; no response model validates a stream
            streamed = {"response_class": StreamingResponse, "responses": {200: {
                "description": "JSON Lines, one record a line, the last a footer with the counts",
                "content": {op.media_type: {"schema": {"type": "string"}}}}}}
        app.add_api_route(op.path, endpoint(service, op), methods=[op.method], name=op.name, operation_id=op.name,
                          summary=op.summary, description=op.description,
                          response_model=None if op.streams else op.result,
                          tags=["owner" if op.role == "owner" else "memory"], **streamed)


def install(app: FastAPI, service: MemoryService, ready: Any) -> None:
    """The routes, health and readiness, and the error mapping."""

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse({"error": exc.message, "status": exc.status}, status_code=exc.status)

    @app.get("/health", summary="The process answers")
    def health() -> dict:
        return {"status": "ok"}

    @app.get("/ready", summary="The store is open and the server takes requests")
    def readiness() -> JSONResponse:
        ok = ready()
        return JSONResponse({"ready": ok}, status_code=200 if ok else 503)

    add_routes(app, service)
