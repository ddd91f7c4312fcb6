"""The REST API: one route per entry of `cogmem_graph.operations`, with an OpenAPI schema (`/docs`).

Each route is one generic handler built from its entry: `{name}` segments of the path are
path parameters, the other fields of the entry's argument model are query parameters for
GET and DELETE and the JSON body otherwise (the body model is the argument model, so the
schema shows it; with path parameters, the model less those fields). Only owner operations
may have an identity field (the user an erase erases); otherwise the identity comes from the
key the guard checked. An entry answering JSON Lines is streamed (`StreamingResponse`). Handlers are
plain functions, so FastAPI runs them on its worker threads and a slow store call never
blocks the event loop.

Every error is `{"error": "...", "status": N}`: a refusal of the service, a body or query that
does not fit the route's schema (422, each problem naming its field, never quoting the
value: FastAPI's own handler echoes it, and fails on a value JSON cannot write), a body
that is not JSON, and the HTTP errors of routing.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from fastapi import Body, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, create_model
from pydantic.fields import FieldInfo
from starlette.exceptions import HTTPException

from cogmem_graph.errors import field_problems
from cogmem_graph.operations import OPERATIONS, Operation
from cogmem_graph.server.keys import Principal
from cogmem_graph.server.service import (
    KEY_EXPIRED,
    MemoryService,
    ServiceError,
    refuse_unrepresentable,
)

BODY = "body"
_CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern")
_SOURCES = ("body", "query", "path", "header", "cookie")
AUTHENTICATE = {"WWW-Authenticate": 'Bearer realm="cogmem"'}


def _principal(request: Request) -> Principal:
    principal = request.scope.get("state", {}).get("principal")
    if principal is None:  # the guard always sets it; refuse rather than act as nobody
        raise ServiceError(401, "missing or unknown API key")
    if principal.expired:
        raise ServiceError(401, KEY_EXPIRED)
    return principal


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The one error format, `{"error": message, "status": status}` (the message made valid UTF-8);
    a 401 says how to authenticate."""
    text = str(message).encode("utf-8", "backslashreplace").decode("utf-8")
    extra = {**(AUTHENTICATE if status == 401 else {}), **(headers or {})}
    return JSONResponse({"error": text, "status": status}, status_code=status, headers=extra or None)


def validation_message(errors: Iterable[Mapping[str, Any]]) -> str:
    """A request validation error's problems, each naming its field (`top_k`, `items.0.confidence`;
    `body` for a body that is not JSON), never quoting the rejected value."""
    problems: list[dict[str, Any]] = []
    for error in errors:
        loc = tuple(error.get("loc") or ())
        if error.get("type") == "json_invalid":
            reason = (error.get("ctx") or {}).get("error")
            at = f" at character {loc[1]}" if len(loc) > 1 and isinstance(loc[1], int) else ""
            problems.append({"loc": ("body",), "msg": f"not valid JSON ({reason}{at})" if reason else "not valid JSON"})
            continue
        if len(loc) > 1 and loc[0] in _SOURCES:
            loc = loc[1:]
        message = str(error.get("msg", "invalid"))
        problems.append({"loc": loc, "msg": message.removeprefix("Value error, ")})
    return field_problems(problems)


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
    definitions: dict[str, Any] = {n: (f.annotation, f) for n, f in fields.items()}
    return create_model(f"{op.args.__name__}Body", __config__=op.args.model_config, **definitions)


def endpoint(service: MemoryService, op: Operation) -> Any:
    """The handler of `op`'s route: its signature (what FastAPI reads and documents) is
    built from the entry; the call collects path, query and body into the arguments."""
    body = body_model(op)

    def handle(request: Request, **params: Any) -> Any:
        unknown = sorted(set(request.query_params) - set(op.args.model_fields)) if op.in_query else []
        if unknown:  # as a body refuses unknown fields: a misspelt filter must not widen what is read
            takes = ", ".join(n for n in op.args.model_fields if n not in op.path_params) or "none"
            raise ServiceError(400, f"{op.name}: unknown query parameter(s) {', '.join(unknown)}; "
                                    f"this route takes {takes}")
        payload = params.pop(BODY, None)
        args = dict(params)
        if payload is not None:  # checked before the JSON dump, which would write NaN as null
            refuse_unrepresentable(op.name, payload.model_dump(exclude_unset=True))
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
    handle.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # FastAPI reads the parameters here
        parameters, return_annotation=returns)
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
        wait = exc.retry_after_s
        return error_response(exc.status, exc.message,
                              None if wait is None else {"Retry-After": str(max(1, math.ceil(wait)))})

    @app.exception_handler(RequestValidationError)
    async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        route = request.scope.get("route")
        name = getattr(route, "name", None)
        prefix = f"{name}: " if name in OPERATIONS else ""
        return error_response(422, prefix + validation_message(exc.errors()))

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else "request refused"
        if detail == "There was an error parsing the body":  # FastAPI's words for a body json cannot read
            detail = "body: not valid JSON (too deep, too long a number, or not UTF-8)"
        return error_response(exc.status_code, detail, exc.headers)

    @app.get("/health", summary="The process answers")
    def health() -> dict:
        return {"status": "ok"}

    @app.get("/ready", summary="The store is open and the server takes requests")
    def readiness() -> JSONResponse:
        ok = ready()
        return JSONResponse({"ready": ok}, status_code=200 if ok else 503)

    add_routes(app, service)
