"""The dashboard's routes under `/ui`: login and logout, the memories list, search, as of a
day and timeline, one memory with its actions and strength curve, its graph, the
consolidation, reminders and statistics pages, and the store's health for owner keys.

Every read and change goes through `MemoryService.call` with the principal of the session's
key, exactly as a REST request with that key would: same roles, same identity, same scopes.
A search looks without reinforcing (`record_access` false). Every POST must come from the
dashboard's own origin (Origin, else Referer) and, once logged in, carry the session's CSRF
token; the cookie is HttpOnly and SameSite=Strict besides.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.server.dashboard import forms, graph_page, pages, report_pages, retention
from cogmem_graph.server.dashboard.sessions import Session, SessionStore, csrf_matches
from cogmem_graph.server.guards import AddressLimiter, RateLimiter
from cogmem_graph.server.keys import KeyRing, Principal
from cogmem_graph.server.service import MemoryService, ServiceError

COOKIE = "cogmem_session"
PAGE_SIZE = 50
SEARCH_TOP_K = 20
GRAPH_NEIGHBOURS = 25
EVERY_EDGE = 500  # the `memory` operation's largest limit: the forget page counts every edge, not the drawn 25
NDJSON = "application/x-ndjson"
REPORT_RUNS = 20
REMINDERS = 100
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


STATIC_HEADERS = {"Cache-Control": "max-age=3600", "X-Content-Type-Options": "nosniff"}


def page(html: str, status: int = 200, *, csp: str | None = None) -> HTMLResponse:
    headers = HEADERS if csp is None else {**HEADERS, "Content-Security-Policy": csp}
    return HTMLResponse(html, status_code=status, headers=headers)


def redirect(to: str) -> RedirectResponse:
    return RedirectResponse(to, status_code=303, headers=HEADERS)


def download(lines: Any, filename: str) -> StreamingResponse:
    """A JSON Lines attachment, streamed as the service writes it, with the pages' headers."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in filename)[:120]
    return StreamingResponse(lines, media_type=NDJSON,
                             headers={**HEADERS, "Content-Disposition": f'attachment; filename="{safe}"'})


def same_origin(request: Request) -> bool:
    """True when the request names this server as its origin (Origin, else Referer)."""
    expected = f"{request.url.scheme}://{request.headers.get('host', '')}"
    origin = request.headers.get("origin")
    if origin is None:
        referer = request.headers.get("referer")
        if not referer:
            return False
        parts = urlsplit(referer)
        origin = f"{parts.scheme}://{parts.netloc}"
    return origin == expected


class Dashboard:
    """The routes' shared state: the service, the key file, sessions and limits."""

    def __init__(self, service: MemoryService, keys: KeyRing, *, max_body_bytes: int, limiter: RateLimiter,
                 bad_keys: AddressLimiter | None) -> None:
        self.service = service
        self.keys = keys
        self.sessions = SessionStore()
        self.max_body_bytes = max_body_bytes
        self.limiter = limiter  # the API's own buckets: a key's rate counts its pages and its requests together
        self.bad_keys = bad_keys
        self.css = resources.files(__package__).joinpath("static/dashboard.css").read_bytes()
        self.graph_js = resources.files(__package__).joinpath("static/graph.js").read_bytes()

    # ------------------------------------------------------------ plumbing

    def principal_of(self, session: Session) -> Principal | None:
        """The session's key as the key file says now: None once revoked or expired."""
        entry = next((e for e in self.keys.entries() if e.key_id == session.key_id), None)
        principal = entry.principal() if entry is not None else None
        return None if principal is None or principal.expired else principal

    async def form(self, request: Request) -> dict[str, list[str]]:
        size = 0
        chunks: list[bytes] = []
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body_bytes:
                raise ServiceError(413, f"the form is over the limit of {self.max_body_bytes} bytes")
            chunks.append(chunk)
        try:
            return parse_qs(b"".join(chunks).decode("utf-8"), keep_blank_values=True, max_num_fields=100)
        except (UnicodeDecodeError, ValueError):
            raise ServiceError(400, "the form is not valid URL-encoded UTF-8") from None

    async def call(self, principal: Principal, op: str, args: dict[str, Any] | None = None) -> Any:
        return await run_in_threadpool(self.service.call, principal, op, args)

    def handler(self, method: Callable[..., Any], *, change: bool = False) -> Callable[[Request], Any]:
        """A route: the session's principal (else the login page), the key's rate, the origin
        and CSRF token of a change, and refusals shown as pages."""

        async def handle(request: Request) -> Response:
            token = request.cookies.get(COOKIE)
            session = self.sessions.get(token)
            principal = self.principal_of(session) if session else None
            if session is None or principal is None:
                self.sessions.close(token)
                if change:
                    return page(pages.layout("Refused", pages.message("not logged in")), 403)
                return redirect("/ui/login")
            who = principal.describe()
            try:
                wait = self.limiter.check(principal)
                if wait > 0:
                    raise ServiceError(429, f"rate limit of this key exceeded; retry in {math.ceil(wait)} s")
                form: dict[str, list[str]] = {}
                if change:
                    if not same_origin(request):
                        raise ServiceError(403, "cross-site request refused")
                    form = await self.form(request)
                    if not csrf_matches(session, forms.first(form, "csrf")):
                        raise ServiceError(403, "the form's CSRF token does not match this session")
                return await method(request, principal, session, form)
            except ServiceError as exc:
                status = exc.status
                return page(pages.layout("Refused" if status in (401, 403) else "Not done", pages.message(exc.message),
                                         who=who, csrf=session.csrf), status)
            except ValueError as exc:
                return page(pages.layout("Not done", pages.message(str(exc)), who=who, csrf=session.csrf), 400)

        return handle

    # ------------------------------------------------------------ login

    async def login_page(self, request: Request) -> Response:
        if self.sessions.get(request.cookies.get(COOKIE)):
            return redirect("/ui/")
        return page(pages.login())

    async def login(self, request: Request) -> Response:
        if not same_origin(request):
            return page(pages.login("cross-site request refused"), 403)
        try:
            form = await self.form(request)
            key = forms.first(form, "key")
        except (ServiceError, ValueError) as exc:
            return page(pages.login(str(exc)), getattr(exc, "status", 400))
        principal = self.keys.authenticate(key)
        if principal is None or principal.expired:
            client = request.client.host if request.client else "unknown"
            if self.bad_keys is not None and self.bad_keys.check(client) > 0:
                return page(pages.login("too many unknown keys from this address; wait a little"), 429)
            return page(pages.login("unknown or expired key"), 401)
        self.sessions.close(request.cookies.get(COOKIE))
        token, _ = self.sessions.open(principal.key_id)
        response = redirect("/ui/")
        response.set_cookie(COOKIE, token, max_age=int(self.sessions.lifetime_s), path="/ui", httponly=True,
                            samesite="strict", secure=request.url.scheme == "https")
        return response

    async def logout(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        self.sessions.close(request.cookies.get(COOKIE))
        response = redirect("/ui/login")
        response.delete_cookie(COOKIE, path="/ui", httponly=True, samesite="strict")
        return response

    async def static(self, request: Request) -> Response:
        return Response(self.css, media_type="text/css", headers=STATIC_HEADERS)

    async def graph_script(self, request: Request) -> Response:
        return Response(self.graph_js, media_type="text/javascript", headers=STATIC_HEADERS)

    async def nvl_script(self, request: Request) -> Response:
        assets = await run_in_threadpool(graph_page.nvl_assets)
        return Response(assets.script, media_type="text/javascript", headers=STATIC_HEADERS)

    async def nvl_style(self, request: Request) -> Response:
        assets = await run_in_threadpool(graph_page.nvl_assets)
        return Response(assets.style, media_type="text/css", headers=STATIC_HEADERS)

    async def replacements(self, principal: Principal, ids: list[str], question: str = "") -> dict[str, Any]:
        return await run_in_threadpool(self.service.replacements, principal, ids, question)

    async def replaced_now(self, principal: Principal, query: dict[str, list[str]], ids: list[str],
                           question: str = "") -> dict[str, Any]:
        """What replaced each memory since, except in a view "as of" a day: there each shows as
        it was then."""
        return {} if forms.as_of_ms(query) is not None else await self.replacements(principal, ids, question)

    def now_ms(self) -> int:
        return self.service.store.clock.now_ms()

    # ------------------------------------------------------------ pages

    async def home(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        return redirect("/ui/memories" if principal.identity is not None else "/ui/health")

    async def memories(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        query = {k: request.query_params.getlist(k) for k in request.query_params}
        who = principal.describe()
        text = forms.first(query, "q")
        timeline = forms.timeline(query)
        if text:
            result = await self.search(principal, query)
            replaced = await self.replaced_now(principal, query, [t["trace"]["id"] for t in result["traces"]], text)
            body = pages.search_results(query, result, replaced=replaced, now_ms=self.now_ms())
            return page(pages.layout(f"Search: {text}", session.take_done() + body, who=who, csrf=session.csrf))
        cursor = forms.first(query, "cursor") or None
        listing = await self.call(principal, "list", {"where": forms.listing_where(query), "limit": PAGE_SIZE,
                                                      "cursor": cursor, "order": "oldest" if timeline else "newest"})
        nxt = pages.query_href(query, cursor=listing["cursor"]) if listing.get("cursor") else None
        replaced = await self.replaced_now(principal, query, [r["trace"]["id"] for r in listing["items"]])
        body = pages.memory_list(query, listing, nxt, timeline=timeline, replaced=replaced, now_ms=self.now_ms(),
                                 csrf=session.csrf)
        return page(pages.layout("Timeline" if timeline else "Memories", session.take_done() + body, who=who,
                                 csrf=session.csrf))

    async def search(self, principal: Principal, query: dict[str, list[str]]) -> Any:
        """The search page's recall (read-only, so looking does not reinforce); a memory page
        opened from a hit asks it again to say why the memory was recalled."""
        return await self.call(principal, "recall", {
            "query": forms.first(query, "q"), "top_k": SEARCH_TOP_K, "record_access": False,
            "where": forms.where_of(query), "as_of": forms.as_of_ms(query), "timeline": forms.timeline(query)})

    async def _memory_parts(self, principal: Principal, trace_id: str,
                            edges: int | None = None) -> tuple[Any, Any, Any]:
        record = await self.call(principal, "get", {"trace_id": trace_id})
        hood = await self.call(principal, "memory", {"trace_id": trace_id, "limit": edges})
        versions = await self.call(principal, "history", {"trace_id": trace_id})
        return record, hood, versions

    async def memory(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        record, hood, versions = await self._memory_parts(principal, request.path_params["trace_id"])
        query = {k: request.query_params.getlist(k) for k in request.query_params}
        why = ""
        if forms.first(query, "q"):
            hits = (await self.search(principal, query))["traces"]
            rank, hit = next(((i, t) for i, t in enumerate(hits, 1) if t["trace"]["id"] == record["trace"]["id"]),
                             (0, None))
            why = pages.why_section(forms.first(query, "q"), hit, rank, SEARCH_TOP_K)
        store = self.service.store
        projection = retention.project(record["trace"], store.config, store.clock.now_ms())
        replaced = await self.replacements(principal, [record["trace"]["id"]])
        body = pages.memory(record, hood, versions, csrf=session.csrf, may_change=not principal.read_only,
                            projection=projection, replaced_by=replaced.get(record["trace"]["id"]),
                            now_ms=self.now_ms(), why=why)
        return page(pages.layout("A memory", session.take_done() + body, who=principal.describe(),
                                 csrf=session.csrf))

    async def graph(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        trace_id = request.path_params["trace_id"]
        hood = await self.call(principal, "memory", {"trace_id": trace_id, "limit": GRAPH_NEIGHBOURS})
        assets = await run_in_threadpool(graph_page.nvl_assets)
        expand = request.query_params.getlist("expand")
        data, counts = await run_in_threadpool(graph_page.graph_data, hood["trace"], hood, expand)
        nonce = graph_page.new_nonce()
        drawing = graph_page.graph_body(data, nonce, assets.container_id, hood["trace"]["id"])
        body = pages.graph(hood, counts, GRAPH_NEIGHBOURS, drawing, expand)
        return page(pages.layout("Graph of a memory", body, who=principal.describe(), csrf=session.csrf),
                    csp=graph_page.graph_csp(nonce))

    async def forget_page(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        record, hood, versions = await self._memory_parts(principal, request.path_params["trace_id"], EVERY_EDGE)
        body = pages.forget_confirm(record, hood, len(versions), csrf=session.csrf)
        return page(pages.layout("Forget a memory", body, who=principal.describe(), csrf=session.csrf))

    async def change(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        trace_id, action = request.path_params["trace_id"], request.path_params["action"]
        if action in ("pin", "unpin"):
            await self.call(principal, action, {"ids": [trace_id]})
            session.done = pages.notice("Pinned: decay and consolidation leave it as it is." if action == "pin"
                                        else "Unpinned: it decays and consolidates like any other memory again.")
            return redirect(pages.memory_href(trace_id))
        if action == "edit":
            content = (form.get("content") or [""])[0]
            if not content.strip():
                raise InvalidArgument("content: write the new version's text", argument="content")
            record = await self.call(principal, "update", {"trace_id": trace_id, "content": content})
            session.done = pages.notice(f"Saved as version {record.get('version')}; the previous version is kept, "
                                        "superseded.")
            return redirect(pages.memory_href(record["trace"]["id"]))
        if action == "forget":
            done = await self.call(principal, "forget_one", {"trace_id": trace_id})
            session.done = pages.receipt("Forgotten. Deleted:", done.get("counts") or {})
            return redirect("/ui/memories")
        raise ServiceError(404, f"no action {action!r} (pin, unpin, edit, forget)")

    async def health(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        stats = await self.call(principal, "stats")  # an owner operation: other keys are refused here
        ready = await run_in_threadpool(self.service.store.health)
        return page(pages.layout("Store health", pages.health(stats, ready), who=principal.describe(),
                                 csrf=session.csrf))

    async def export(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        """The key's own memories as a JSON Lines download."""
        lines = await self.call(principal, "export")
        return download(lines, "cogmem-export.jsonl")

    async def users(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        if principal.role != "owner":
            raise ServiceError(403, "export and erase of a user are owner operations; this key is not an owner key")
        return page(pages.layout("Users: export and erase", session.take_done() + pages.users(session.csrf),
                                 who=principal.describe(), csrf=session.csrf))

    def _users_again(self, principal: Principal, session: Session, form: Any, problem: str, status: int) -> Response:
        body = pages.users(session.csrf, problem=problem, user_id=forms.first(form, "user_id"),
                           organization_id=forms.first(form, "organization_id"))
        return page(pages.layout("Users: export and erase", body, who=principal.describe(), csrf=session.csrf), status)

    @staticmethod
    def _user_args(form: Any) -> dict[str, Any]:
        return {"user_id": forms.first(form, "user_id"),
                "organization_id": forms.first(form, "organization_id") or None}

    async def export_user(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        """One user's memories as a JSON Lines download (owner keys); a refusal (no such user
        under no organization, say) shows the form again with the service's message."""
        args = self._user_args(form)
        try:
            lines = await self.call(principal, "export_user", args)
        except ServiceError as exc:
            if exc.status in (401, 403):
                raise
            return self._users_again(principal, session, form, exc.message, exc.status)
        return download(lines, f"cogmem-export-{args['user_id']}.jsonl")

    async def erase_user(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        """Erase one user once the owner typed the user id again; the receipt is shown after."""
        args = self._user_args(form)
        if not args["user_id"] or forms.first(form, "confirm") != args["user_id"]:
            return self._users_again(principal, session, form, "Not erased: type the user id again, exactly, in "
                                                               "the confirmation box.", 400)
        args["include_shared"] = bool(forms.first(form, "include_shared"))
        try:
            done = await self.call(principal, "erase", args)
        except ServiceError as exc:
            if exc.status in (401, 403):
                raise
            return self._users_again(principal, session, form, f"Not erased: {exc.message}", exc.status)
        session.done = pages.receipt(f"Erased user {done.get('user')}. Deleted:", done.get("counts") or {},
                                     [("scopes", pages.esc(", ".join(done.get("scope_keys") or [])))])
        return redirect("/ui/users")

    async def consolidation(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        report = await self.call(principal, "consolidation_report",
                                 {"runs": REPORT_RUNS, "members": report_pages.MEMBERS_SHOWN})
        return page(pages.layout("Consolidation", report_pages.consolidation(report), who=principal.describe(),
                                 csrf=session.csrf))

    async def reminders(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        items = await self.call(principal, "reminders", {"limit": REMINDERS})
        return page(pages.layout("Reminders", report_pages.reminders(items), who=principal.describe(),
                                 csrf=session.csrf))

    async def stats(self, request: Request, principal: Principal, session: Session, form: Any) -> Response:
        mine = await self.call(principal, "memory_stats") if principal.identity is not None else None
        store = await self.call(principal, "stats") if principal.role == "owner" else None
        return page(pages.layout("Statistics", report_pages.stats(mine, store), who=principal.describe(),
                                 csrf=session.csrf))

    def routes(self) -> list[Route]:
        return [
            Route("/ui/login", self.login_page, methods=["GET"]),
            Route("/ui/login", self.login, methods=["POST"]),
            Route("/ui/logout", self.handler(self.logout, change=True), methods=["POST"]),
            Route("/ui/static/dashboard.css", self.static, methods=["GET"]),
            Route("/ui/static/nvl.js", self.nvl_script, methods=["GET"]),
            Route("/ui/static/nvl.css", self.nvl_style, methods=["GET"]),
            Route("/ui/static/graph.js", self.graph_script, methods=["GET"]),
            Route("/ui", self.handler(self.home), methods=["GET"]),
            Route("/ui/", self.handler(self.home), methods=["GET"]),
            Route("/ui/memories", self.handler(self.memories), methods=["GET"]),
            Route("/ui/health", self.handler(self.health), methods=["GET"]),
            Route("/ui/export", self.handler(self.export, change=True), methods=["POST"]),
            Route("/ui/users", self.handler(self.users), methods=["GET"]),
            Route("/ui/users/export", self.handler(self.export_user, change=True), methods=["POST"]),
            Route("/ui/users/erase", self.handler(self.erase_user, change=True), methods=["POST"]),
            Route("/ui/consolidation", self.handler(self.consolidation), methods=["GET"]),
            Route("/ui/reminders", self.handler(self.reminders), methods=["GET"]),
            Route("/ui/stats", self.handler(self.stats), methods=["GET"]),
            Route("/ui/memories/{trace_id}", self.handler(self.memory), methods=["GET"]),
            Route("/ui/memories/{trace_id}/forget", self.handler(self.forget_page), methods=["GET"]),
            Route("/ui/memories/{trace_id}/graph", self.handler(self.graph), methods=["GET"]),
            Route("/ui/memories/{trace_id}/{action}", self.handler(self.change, change=True), methods=["POST"]),
        ]
