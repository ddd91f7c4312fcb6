"""`CogmemStore`: a LangGraph `BaseStore` whose items are cogmem memories.

An item put is a memory like any other: it decays unless it is read, near-duplicates of its
scope merge into it, and a search
with a query is cogmem's retrieval (dense, lexical and graph signals, filters pushed down),
not a scan. Putting a key again corrects its memory (a new version when the text changes,
the old one kept for `history`); deleting it is `forget`, with a receipt. Its memory is
written `keyed`: consolidation never merges it away, since a key put must stay gettable and
updatable (LangMem updates by key) until it is deleted. Where each
namespace lives is `namespaces.NamespaceScopes`; docs/integrations.md has the whole story.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from cogmem_graph.api.governance import ForgetReceipt, MemoryRecord
from cogmem_graph.errors import InvalidArgument, NamespaceScanTooLarge
from cogmem_graph.filters import MAX_METADATA_CONDITIONS, MemoryState
from cogmem_graph.integrations.calls import Blocking, bridged, is_async
from cogmem_graph.integrations.langgraph import values
from cogmem_graph.integrations.langgraph.namespaces import (
    DEFAULT_USER_NAMESPACE,
    USER_LABEL,
    WILDCARD,
    NamespaceScopes,
    Place,
    ReadView,
    check_namespace,
    labels_of,
    namespace_path,
)
from cogmem_graph.model import MemoryTrace, MemoryType, Scope

if TYPE_CHECKING:
    from cogmem_graph.api import AgentMemory, MemoryStore

CURRENT = [MemoryState.ACTIVE, MemoryState.DORMANT]
"""An item is its memory's current version, faded or not; superseded versions are history."""
PAGE = 1000
MAX_HANDLES = 256
"""Agent handles kept for the users a store has served lately (each holds a working memory)."""
DEFAULT_NAMESPACE_SCAN = 10_000
DEFAULT_USERS_PER_SEARCH = 100
"""Users one search of a store opened with `every_user=True` reaches at most (a retrieval or
a listing per user)."""
ASYNC_METHODS = "the store's async method (aget, aput, asearch, ...)"
"""What a sync call on an async store inside a running event loop is told to await instead."""
WIDER_POOL = 4
"""A search whose filter is only partly pushed down asks retrieval for this many times the
items it returns, so the check on the values leaves enough."""


class CogmemStore(BaseStore):  # type: ignore[misc]  # base read untyped (pyproject skips the library)
    """A LangGraph store on a cogmem `MemoryStore` (`cg.open()`) or an async one
    (`cg.open_async()`), acting as agent `agent_id`. On an async store the async methods
    (`aput`, `asearch`, ...) await its calls on the caller's loop; the sync ones run them on
    cogmem's own loop, and inside a running event loop are refused (RuntimeError).

    - `user_namespace`: the namespace pattern whose "{user_id}" label names a user; those
      namespaces are memories of that user's scope, any other is the agent's shared memory.
    - `user_id`: bind the store to one user: it reads that user's and the shared memories
      only, and refuses to write another user's namespace.
    - `every_user`: the store acts as the memory store's owner: a read whose prefix names no
      user (`search(())`, `list_namespaces()`) reaches every user's namespaces too (of
      `organization_id`, else the users outside every organization), as LangGraph's
      `InMemoryStore` lists and searches every namespace. Each user is one more read, so one
      search reaches at most `max_users_per_search` users (else ValueError: give a prefix
      naming the user); `list_namespaces` stays bounded by `namespace_scan_limit`. Not with
      `user_id`. Writes are as without it.
    - `index`: `{"fields": [...]}`, the value's JSON paths whose text a memory is found by
      (default: a "content" or "text" field, else the whole value). cogmem embeds with the
      memory store's own embedder, so `dims` and `embed` are not taken.
    - `memory_type`, `pinned`: how items are encoded; pinned items never fade.
    """

    supports_ttl = False

    def __init__(self, memory: MemoryStore, *, agent_id: str = "langgraph", user_id: str | None = None,
                 organization_id: str | None = None, user_namespace: Sequence[str] = DEFAULT_USER_NAMESPACE,
                 index: Mapping[str, Any] | None = None, memory_type: MemoryType | str = MemoryType.SEMANTIC,
                 pinned: bool = False, namespace_scan_limit: int = DEFAULT_NAMESPACE_SCAN,
                 every_user: bool = False, max_users_per_search: int = DEFAULT_USERS_PER_SEARCH) -> None:
        if not callable(getattr(memory, "agent", None)) or not hasattr(memory, "clock"):
            raise InvalidArgument(f"memory must be a cogmem MemoryStore (cg.open() or cg.open_async()), "
                                  f"not {type(memory).__name__}", argument="memory")
        self.memory = memory
        self._async = is_async(memory, "health")
        self.agent_id = agent_id
        self.organization_id = organization_id
        if not isinstance(every_user, bool):
            raise InvalidArgument(f"every_user must be True or False, got {every_user!r}", argument="every_user")
        if every_user and user_id is not None:
            raise InvalidArgument("every_user=True reads every user's namespaces and user_id binds the store to one "
                                  "user: pass every_user or user_id, not both", argument="every_user")
        self.every_user = every_user
        self.max_users_per_search = _positive("max_users_per_search", max_users_per_search)
        self.namespaces = NamespaceScopes(user_namespace, bound_user=user_id)
        self.fields = _index_fields(index)
        try:
            self.memory_type = MemoryType(memory_type)
        except ValueError:
            raise InvalidArgument(f"memory_type must be one of {[t.value for t in MemoryType]}, "
                                  f"got {memory_type!r}", argument="memory_type") from None
        if not isinstance(pinned, bool):
            raise InvalidArgument(f"pinned must be True or False, got {pinned!r}", argument="pinned")
        self.pinned = pinned
        self.namespace_scan_limit = _positive("namespace_scan_limit", namespace_scan_limit)
        self._handles: OrderedDict[str | None, AgentMemory] = OrderedDict()
        self._handles_lock = threading.Lock()
        self._handle(user_id)  # a bad agent, user or organization id is refused now

    def __repr__(self) -> str:
        return (f"CogmemStore(agent_id={self.agent_id!r}, user_namespace={self.namespaces.pattern!r}, "
                f"user_id={self.namespaces.bound_user!r}, every_user={self.every_user!r})")

    # ------------------------------------------------------------ BaseStore

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; each sees what the ones before it wrote."""
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` on a worker thread (a sync store's calls block), or on this loop with an async
        store's calls awaited."""
        if self._async:
            return await bridged(self.batch, list(ops))
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise InvalidArgument(f"ops must be GetOp, PutOp, SearchOp or ListNamespacesOp, not {type(op).__name__}",
                              argument="ops")

    # ------------------------------------------------------------ beyond BaseStore

    def forget(self, namespace: tuple[str, ...], key: str) -> ForgetReceipt:
        """Delete an item for good, every version of its memory with it (`delete` does this):
        what was deleted, by id, with counts."""
        namespace = check_namespace(namespace, "namespace")
        key = values.checked_key(key)
        place = self._writable(namespace)
        handle = self._handle(place.user_id)
        current = self._current(handle, place.scope, namespace, key)
        if not current:
            return ForgetReceipt()
        return handle.forget([t.id for t in current])

    async def aforget(self, namespace: tuple[str, ...], key: str) -> ForgetReceipt:
        if self._async:
            return await bridged(self.forget, namespace, key)
        return await asyncio.to_thread(self.forget, namespace, key)

    def history(self, namespace: tuple[str, ...], key: str) -> list[MemoryRecord]:
        """Every version of an item's memory, oldest first (empty when there is no such item)."""
        namespace = check_namespace(namespace, "namespace")
        key = values.checked_key(key)
        place = self.namespaces.place_of(namespace)
        if self.namespaces.is_hidden(place):
            return []
        handle = self._handle(place.user_id)
        current = self._current(handle, place.scope, namespace, key)
        return handle.history(current[0].id) if current else []

    # ------------------------------------------------------------ operations

    def _get(self, op: GetOp) -> Item | None:
        namespace = check_namespace(op.namespace, "namespace")
        key = values.checked_key(op.key)
        place = self.namespaces.place_of(namespace)
        if self.namespaces.is_hidden(place):
            return None
        current = self._current(self._handle(place.user_id), place.scope, namespace, key)
        return values.item_of(current[0]) if current else None

    def _put(self, op: PutOp) -> None:
        if op.value is None:
            self.forget(op.namespace, op.key)
            return None
        if op.ttl is not None:
            raise NotImplementedError("CogmemStore keeps no TTL: items fade by cogmem's decay instead; pass ttl=None")
        namespace = check_namespace(op.namespace, "namespace")
        if not namespace:
            raise InvalidNamespaceError("namespace must not be empty")
        key = values.checked_key(op.key)
        value = values.checked_value(op.value)
        fields = self.fields if op.index is None else _put_fields(op.index)
        place = self._writable(namespace)
        handle = self._handle(place.user_id)
        text = values.text_to_index(value, fields)
        now = self.memory.clock.now_ms()
        current = self._current(handle, place.scope, namespace, key)
        created = values.created_ms(current[0]) if current else now
        metadata = values.item_metadata(namespace, key, value, created_ms=created, updated_ms=now,
                                        indexed=op.index is not False and values.has_text_at(value, fields))
        if current:
            handle.update(current[0].id, content=text, metadata=metadata)
            if len(current) > 1:  # two writers raced to create the key: the newest stands
                handle.forget([t.id for t in current[1:]])
        else:
            handle.encode_many([{"content": text, "scope": place.scope, "type": self.memory_type,
                                 "metadata": metadata, "pinned": self.pinned, "keyed": True}],
                                reinforce_duplicates=False)
        return None

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = check_namespace(op.namespace_prefix, "namespace_prefix")
        limit, offset = _paging(op.limit, op.offset)
        conditions = values.check_filter(op.filter)
        if op.query is not None and not isinstance(op.query, str):
            raise InvalidArgument(f"query must be a string (or None to list without ranking), "
                                  f"not {type(op.query).__name__}", argument="query")
        query = op.query if op.query and op.query.strip() else None  # "" and blanks list, as None does
        if limit == 0:
            return []
        views = self._read_views(prefix, search=True)
        if not views:
            return []
        pushed, whole = values.pushed_filter(conditions)
        if len(pushed) > MAX_METADATA_CONDITIONS - 1:
            pushed, whole = dict(list(pushed.items())[:MAX_METADATA_CONDITIONS - 1]), False
        metadata = {values.PREFIXES_FIELD: namespace_path(prefix), **pushed}
        wanted = offset + limit
        found: list[tuple[MemoryTrace, float | None]]
        if query is None:
            found = [(t, None) for t in self._scan_views(views, metadata, conditions, wanted)]
        else:
            # One retrieval's similarity is relative to its best match; across users (one retrieval
            # each) items are ranked by their embedding's cosine to the query, the same for all.
            strategy: Literal["full", "dense"] = "full" if len(views) == 1 else "dense"
            found = []
            for view in views:
                found += self._ranked(self._handle(view.user_id), query, _where(view, metadata), conditions, wanted,
                                      whole, op.refresh_ttl, strategy)
            if len(views) > 1:  # stable: shared, then users by id, among equal matches
                found = sorted(found, key=lambda hit: -(hit[1] or 0.0))[:wanted]
            if len(found) < wanted:  # as LangGraph's stores do: unindexed items after the ranked, unscored
                unindexed = {**metadata, values.UNINDEXED_FIELD: {"eq": True}}
                found += [(t, None) for t in self._scan_views(views, unindexed, conditions, wanted - len(found))]
        return [values.search_item_of(t, score) for t, score in found[offset:wanted]]

    def _ranked(self, handle: AgentMemory, query: str, where: dict[str, Any], conditions: dict[str, Any],
                wanted: int, whole: bool, record_access: bool,
                strategy: Literal["full", "dense"] = "full") -> list[tuple[MemoryTrace, float | None]]:
        """The items cogmem's retrieval finds for `query`, by how well each matches it (its
        `similarity` signal: two items that match equally tie), cogmem's composite order
        (strength, recency, activation, ...) among equals. A retrieved memory is strengthened as
        any recall strengthens it unless the caller asked not to refresh (`refresh_ttl=False`).

        Items put with `index=False`, or with no text at their index fields, are left out: not
        indexed means not found by meaning. A
        query the pre-retrieval gate takes for small talk ("thanks!") is still a lookup here,
        so it is retrieved by its embedding alone instead of answered with nothing. With
        `strategy="dense"` every item is found by its embedding alone, its cosine to the query
        its score."""
        most = self.memory.config.retrieval.max_top_k
        if wanted > most:
            raise InvalidArgument(f"offset + limit must be at most {most} (retrieval.max_top_k) for a search with "
                                  f"a query, got {wanted}", argument="limit")
        top_k = min(most, wanted * WIDER_POOL)  # unindexed items are dropped after retrieval
        result = handle.retrieve(query, top_k=top_k, where=where, record_access=bool(record_access),
                                 strategy=strategy)
        if result.gated and strategy != "dense":
            result = handle.retrieve(query, top_k=top_k, where=where, record_access=bool(record_access),
                                     strategy="dense")
        seen: set[tuple[tuple[str, ...], str]] = set()
        out: list[tuple[MemoryTrace, float | None]] = []
        for hit in result.traces:
            if not values.is_unindexed(hit.trace) and self._keeps(hit.trace, conditions, seen):
                out.append((hit.trace, hit.signals.get("similarity", hit.score)))
        out.sort(key=lambda found: -(found[1] or 0.0))  # stable: cogmem's order among equal matches
        return out[:wanted]

    def _scan_views(self, views: list[ReadView], metadata: dict[str, Any], conditions: dict[str, Any],
                    wanted: int) -> list[MemoryTrace]:
        """`_scan` under each view, merged newest first as one listing orders them (event time,
        then id)."""
        scans = [self._scan(self._handle(view.user_id), _where(view, metadata), conditions, wanted) for view in views]
        if len(scans) == 1:
            return scans[0]
        merged = sorted((t for scan in scans for t in scan), key=lambda t: (t.created_at, t.id), reverse=True)
        return merged[:wanted]

    def _scan(self, handle: AgentMemory, where: dict[str, Any], conditions: dict[str, Any],
              wanted: int) -> list[MemoryTrace]:
        """Items newest first (by the event time of their current version) until `wanted` pass."""
        seen: set[tuple[tuple[str, ...], str]] = set()
        out: list[MemoryTrace] = []
        cursor: str | None = None
        while len(out) < wanted:
            page = handle.list(where, limit=PAGE, cursor=cursor)
            out += [r.trace for r in page.items if self._keeps(r.trace, conditions, seen)]
            cursor = page.cursor
            if cursor is None:
                break
        return out[:wanted]

    @staticmethod
    def _keeps(trace: MemoryTrace, conditions: dict[str, Any], seen: set[tuple[tuple[str, ...], str]]) -> bool:
        if not values.is_item(trace):
            return False
        item = values.item_key(trace)
        if item in seen or (conditions and not values.matches(values.stored_value(trace), conditions)):
            return False
        seen.add(item)
        return True

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        limit, offset = _paging(op.limit, op.offset)
        if op.max_depth is not None and (isinstance(op.max_depth, bool) or not isinstance(op.max_depth, int)
                                         or op.max_depth < 1):
            raise InvalidArgument(f"max_depth must be a positive integer or None, got {op.max_depth!r}",
                                  argument="max_depth")
        conditions = [(c.match_type, check_namespace(c.path, f"{c.match_type}", allow_wildcard=True))
                      for c in op.match_conditions or ()]
        for match_type, _ in conditions:
            if match_type not in ("prefix", "suffix"):
                raise InvalidArgument(f"match_type must be 'prefix' or 'suffix', not {match_type!r}",
                                      argument="match_type")
        prefix = next((path for kind, path in conditions if kind == "prefix"), ())
        fixed = prefix[:prefix.index(WILDCARD)] if WILDCARD in prefix else prefix
        found: set[tuple[str, ...]] = set()
        read = 0
        for view in self._read_views(prefix, search=False):
            where = _where(view, {values.PREFIXES_FIELD: namespace_path(fixed)})
            read = self._namespaces(self._handle(view.user_id), where, found, read)
        kept = {ns for ns in found if all(_namespace_matches(kind, path, ns) for kind, path in conditions)}
        if op.max_depth is not None:
            kept = {ns[:op.max_depth] for ns in kept}
        return sorted(kept)[offset:offset + limit]

    def _namespaces(self, handle: AgentMemory, where: dict[str, Any], found: set[tuple[str, ...]], read: int) -> int:
        """Add to `found` the namespaces of the memories `where` selects; how many memories the
        listing has read with these (`read` before them), at most `namespace_scan_limit`."""
        cursor: str | None = None
        while True:
            page = handle.list(where, limit=PAGE, cursor=cursor)
            read += len(page.items)
            if read > self.namespace_scan_limit:
                raise NamespaceScanTooLarge(
                    f"list_namespaces would read more than {self.namespace_scan_limit:,} memories (the store's "
                    "namespace_scan_limit); give a longer prefix, or open the store with a larger limit")
            found |= {labels_of(r.trace.metadata[values.METADATA_KEY]["namespace"])
                      for r in page.items if values.is_item(r.trace)}
            cursor = page.cursor
            if cursor is None:
                return read

    # ------------------------------------------------------------ identities

    def _read_views(self, prefix: tuple[str, ...], *, search: bool) -> list[ReadView]:
        """What a read under `prefix` runs as: one view; on a store opened with `every_user`, a
        prefix naming no user that could lead to users' namespaces also reads each user's scope
        (a search reaches at most `max_users_per_search` of them)."""
        view = self.namespaces.read_view(prefix)
        views = [view] if view.scopes else []
        if not (self.every_user and self.namespaces.reaches_users(prefix)):
            return views
        owner = Blocking(self.memory, instead=ASYNC_METHODS) if self._async else self.memory
        users = cast("list[str]", owner.users(organization_id=self.organization_id))
        if search and len(users) > self.max_users_per_search:
            raise InvalidArgument(
                f"this search would reach {len(users):,} users, more than the store's max_users_per_search "
                f"({self.max_users_per_search:,}): give a prefix naming the user, such as "
                f"{self._user_prefix_example()}, or open the store with a larger max_users_per_search",
                argument="namespace_prefix")
        return views + [ReadView(user, (Scope.USER,)) for user in users]

    def _user_prefix_example(self) -> str:
        return repr(tuple("<user_id>" if label == USER_LABEL else label for label in self.namespaces.pattern))

    def _writable(self, namespace: tuple[str, ...]) -> Place:
        place = self.namespaces.place_of(namespace)
        if self.namespaces.is_hidden(place):
            raise InvalidNamespaceError(f"namespace {namespace!r} belongs to user {place.user_id!r}, and this store "
                                        f"is bound to user {self.namespaces.bound_user!r}")
        return place

    def _handle(self, user_id: str | None) -> AgentMemory:
        """The agent handle that reads and writes `user_id`'s namespaces (None: the shared ones)."""
        with self._handles_lock:
            handle = self._handles.get(user_id)
            if handle is not None:
                self._handles.move_to_end(user_id)
                return handle
        try:
            handle = self.memory.agent(self.agent_id, user_id=user_id, organization_id=self.organization_id)
            if self._async:  # written once against the sync handle's methods
                handle = cast("AgentMemory", Blocking(handle, instead=ASYNC_METHODS))
        except ValueError as exc:
            raise InvalidNamespaceError(f"{exc} (user_id comes from the namespace label at the position of "
                                        f"'{{user_id}}' in {self.namespaces.pattern!r})") from None
        with self._handles_lock:
            self._handles[user_id] = handle
            while len(self._handles) > MAX_HANDLES:
                self._handles.popitem(last=False)
        return handle

    @staticmethod
    def _current(handle: AgentMemory, scope: Scope, namespace: tuple[str, ...], key: str) -> list[MemoryTrace]:
        """The current memories of one item, newest first (one, unless two writers raced)."""
        where = {"scope": [scope], "state": CURRENT,
                 "metadata": {values.NAMESPACE_FIELD: namespace_path(namespace), values.KEY_FIELD: key}}
        return [r.trace for r in handle.list(where, limit=10).items if values.is_item(r.trace)]


def _where(view: ReadView, metadata: dict[str, Any]) -> dict[str, Any]:
    return {"scope": list(view.scopes), "state": CURRENT, "metadata": metadata}


def _paging(limit: object, offset: object) -> tuple[int, int]:
    return _count("limit", limit), _count("offset", offset)


def _positive(name: str, number: object) -> int:
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise InvalidArgument(f"{name} must be a positive integer, got {number!r}", argument=name)
    return number


def _count(name: str, number: object) -> int:
    if isinstance(number, bool) or not isinstance(number, int) or number < 0:
        raise InvalidArgument(f"{name} must be a non-negative integer, got {number!r}", argument=name)
    return number


def _namespace_matches(kind: str, path: tuple[str, ...], namespace: tuple[str, ...]) -> bool:
    """LangGraph's prefix / suffix match, "*" matching any one label."""
    if len(namespace) < len(path):
        return False
    part = namespace[:len(path)] if kind == "prefix" else namespace[len(namespace) - len(path):]
    return all(p in (WILDCARD, label) for p, label in zip(path, part, strict=True))


def _index_fields(index: Mapping[str, Any] | None) -> list[str] | None:
    if index is None:
        return None
    if not isinstance(index, Mapping):
        raise InvalidArgument(f"index must be a dict such as {{'fields': ['content']}}, not {type(index).__name__}",
                              argument="index")
    extra = sorted(set(index) - {"fields"})
    if extra:
        raise InvalidArgument(f"index takes 'fields' only, not {extra}: cogmem embeds with the memory store's own "
                              "embedder (cg.open(embedder=...))", argument="index")
    return _put_fields(index.get("fields"), "index['fields']")


def _put_fields(fields: object, argument: str = "index") -> list[str] | None:
    """A put's `index`: None (the store's fields), False (the whole value), or JSON paths."""
    if fields is None:
        return None
    if fields is False:
        return ["$"]
    if isinstance(fields, str) or not isinstance(fields, list | tuple) or not fields \
            or not all(isinstance(f, str) and f for f in fields):
        raise InvalidArgument(f"{argument} must be a non-empty list of JSON paths such as ['content'], got {fields!r}",
                              argument=argument)
    return list(fields)
