"""The REST API: the service's operations as routes with an OpenAPI schema (`/docs`).

Bodies are validated by the models below (the encode fields are the facade's own
`EncodeRequest`); none of them has an identity field, since the identity comes from the
key the guard checked. Handlers are plain functions, so FastAPI runs them on its worker
threads and a slow store call never blocks the event loop.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from cogmem_graph.api import EncodeRequest
from cogmem_graph.server.keys import Principal
from cogmem_graph.server.service import MAX_BATCH, MemoryService, ServiceError


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RecallBody(_Body):
    query: str = Field(..., min_length=1, description="what to remember")
    top_k: int | None = Field(None, ge=1, le=1000)
    strategy: Literal["full", "dense", "lexical"] = "full"
    record_access: bool = Field(True, description="false: look without reinforcing what is found")
    as_of: int | None = Field(None, ge=0, description="epoch ms: what the memory knew then and held true then")
    timeline: bool = Field(False, description="every version, expired and superseded ones too, in event order")


class ContextBody(_Body):
    query: str = Field(..., min_length=1, description="what the prompt is about")
    token_budget: int | None = Field(None, ge=1, le=200_000)
    top_k: int = Field(20, ge=1, le=1000)
    events: list[str] = Field(default_factory=list, description="events this turn, for event reminders")


class MultiHopBody(_Body):
    query: str = Field(..., min_length=1)
    hops: int | None = Field(None, ge=1, le=4)
    top_k: int | None = Field(None, ge=1, le=1000)


class ObserveBody(_Body):
    role: Literal["user", "assistant", "system", "tool"]
    text: str = Field(..., min_length=1)
    created_at: int | None = Field(None, ge=0)


class RemindBody(_Body):
    content: str = Field(..., min_length=1)
    at: int | None = Field(None, ge=0, description="epoch ms")
    every: int | None = Field(None, gt=0, description="ms between occurrences (recurring)")
    on_keywords: list[str] | None = None
    on_context: str | None = None
    recurring: bool | None = None
    cooldown: int | None = Field(None, ge=0, description="ms")
    threshold: float | None = Field(None, ge=0.0, le=1.0)
    importance: float | None = Field(None, ge=0.0, le=1.0)
    scope: Literal["agent", "thread", "user", "persona", "organization"] | None = None


class IdsBody(_Body):
    ids: list[str] = Field(..., min_length=1, max_length=MAX_BATCH)


class BatchBody(_Body):
    items: list[EncodeRequest] = Field(..., min_length=1, max_length=MAX_BATCH)


def _principal(request: Request) -> Principal:
    principal = request.scope.get("state", {}).get("principal")
    if principal is None:  # the guard always sets it; refuse rather than act as nobody
        raise ServiceError(401, "missing or unknown API key")
    return principal


def _body(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude_unset=True)


def router(service: MemoryService) -> APIRouter:
    api = APIRouter(prefix="/v1")

    def run(request: Request, op: str, args: dict[str, Any] | None = None) -> Any:
        return service.call(_principal(request), op, args)

    @api.get("/whoami", summary="The identity and role of the presented key")
    def whoami(request: Request) -> dict:
        return run(request, "whoami")

    @api.post("/memories", summary="Remember one thing (encode)")
    def remember(request: Request, body: EncodeRequest) -> dict:
        return run(request, "remember", _body(body))

    @api.post("/memories/batch", summary="Remember many things in one batch")
    def remember_many(request: Request, body: BatchBody) -> list:
        return run(request, "remember_many", {"items": [_body(i) for i in body.items]})

    @api.get("/memories/{trace_id}", summary="One memory and its graph neighbourhood")
    def memory(request: Request, trace_id: Annotated[str, Path(min_length=1)],
               limit: Annotated[int, Query(ge=0, le=500)] = 25) -> dict:
        return run(request, "memory", {"trace_id": trace_id, "limit": limit})

    @api.post("/memories/pin", summary="Pin memories (truth anchors)")
    def pin(request: Request, body: IdsBody) -> dict:
        return run(request, "pin", {"ids": body.ids})

    @api.post("/memories/unpin", summary="Unpin memories")
    def unpin(request: Request, body: IdsBody) -> dict:
        return run(request, "unpin", {"ids": body.ids})

    @api.post("/recall", summary="Retrieve memories with their signals and sources")
    def recall(request: Request, body: RecallBody) -> dict:
        return run(request, "recall", _body(body))

    @api.post("/context", summary="The memory context for a prompt, within a token budget")
    def context(request: Request, body: ContextBody) -> dict:
        return run(request, "context", _body(body))

    @api.post("/multi-hop", summary="Multi-hop retrieval with evidence paths")
    def multi_hop(request: Request, body: MultiHopBody) -> dict:
        return run(request, "multi_hop", _body(body))

    @api.post("/observe", summary="Feed one conversation turn to the observer")
    def observe(request: Request, body: ObserveBody) -> dict:
        return run(request, "observe", _body(body))

    @api.post("/reminders", summary="Remember to bring something up later")
    def remind(request: Request, body: RemindBody) -> dict:
        return run(request, "remind", _body(body))

    @api.get("/reminders", summary="The reminders this key can see")
    def reminders(request: Request, include_inactive: bool = False,
                  limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> list:
        return run(request, "reminders", {"include_inactive": include_inactive, "limit": limit})

    @api.delete("/reminders/{reminder_id}", summary="Cancel a pending reminder")
    def cancel_reminder(request: Request, reminder_id: str) -> dict:
        return run(request, "cancel_reminder", {"reminder_id": reminder_id})

    @api.post("/admin/consolidate", summary="Owner: run consolidation now")
    def consolidate(request: Request) -> dict:
        return run(request, "consolidate")

    @api.get("/admin/stats", summary="Owner: counts of the store and the last consolidation")
    def stats(request: Request) -> dict:
        return run(request, "stats")

    @api.post("/admin/repair", summary="Owner: reconcile the vectors with the graph")
    def repair(request: Request) -> dict:
        return run(request, "repair")

    return api


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

    app.include_router(router(service))
