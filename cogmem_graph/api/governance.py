"""Control over what the memory holds: get, list, update, history, forget, erase, export.

Forgetting by decay makes a memory dormant; forgetting on request deletes it: the trace
and its edges, its versions and merged duplicates, its vectors, archived originals,
the observation notes it came from, schemas it belonged to and entities nobody else
mentions. Each forget, erase, update and export leaves a line in the audit file (a forget
that deleted nothing is summarised with its repeats: `cogmem_graph.audit`). What was
deleted leaves the files under the home at the next `store.compact()` (run by the next
consolidation, or at once with `compact=True`).

An agent acts within its visible scopes: a memory outside them is "not found", never
"forbidden". `erase` and the store's `export` are the owner's.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from cogmem_graph.audit import AuditLog
from cogmem_graph.context import checked_context
from cogmem_graph.errors import InvalidArgument, MemoryNotFound
from cogmem_graph.filters import (
    NO_FILTER_PARAMS,
    MemoryFilter,
    MemoryState,
    as_filter,
    state_of,
)
from cogmem_graph.identity import SEPARATOR, identity_of_scope_key
from cogmem_graph.metadata_props import metadata_graph_props
from cogmem_graph.model import MemoryTrace, MemoryType, Scope, check_text, entity_key, scope_key
from cogmem_graph.write.indexing import filter_payload

if TYPE_CHECKING:
    from cogmem_graph.api.ports import HandlePort, StorePort

DEFAULT_PAGE = 100
FORGET_BATCH = 500
UPDATED_REASON = "superseded_by_update"
SAME_MEMORY = ("updated", "merged")
"""SUPERSEDES reasons that join versions of one memory (an edit, a merged duplicate); a
correction ('superseded') is another memory."""


@dataclass(frozen=True)
class MemoryRecord:
    """One memory as `get` and `list` return it: the trace and where it is in its life."""

    trace: MemoryTrace
    state: MemoryState
    archived: bool = False
    """An archived verbatim original exists (the content was condensed into a gist)."""
    version: int = 1
    superseded_by: tuple[str, ...] = ()
    updated_by: str | None = None

    @property
    def id(self) -> str:
        return self.trace.id


@dataclass(frozen=True)
class MemoryPage:
    items: list[MemoryRecord]
    cursor: str | None
    """Pass to the next `list` call for the next page; None when this was the last."""


@dataclass
class ForgetReceipt:
    """What `forget` deleted, per kind (no content)."""

    forgotten: list[str] = field(default_factory=list)
    """Trace ids deleted, the versions and merged duplicates of the requested ones included."""
    not_found: list[str] = field(default_factory=list)
    skipped_pinned: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    compacted: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EraseReceipt:
    user: str
    scope_keys: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    compacted: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------- reading


def record_of(props: Mapping[str, Any], archived: bool = False, superseded_by: Sequence[str] = ()) -> MemoryRecord:
    trace = MemoryTrace.from_graph_props(dict(props))
    state = state_of(trace.is_active, trace.dormant, props.get("deactivatedReason"))
    return MemoryRecord(trace, state, archived=archived, version=int(props.get("version") or 1),
                        superseded_by=tuple(superseded_by), updated_by=props.get("updatedBy"))


def _checked_id(trace_id: object, argument: str = "trace_id") -> str:
    if not isinstance(trace_id, str) or not trace_id.strip():
        raise InvalidArgument(f"{argument} must be a non-empty string, got {trace_id!r}", argument=argument)
    return check_text(trace_id, argument, allow_empty=False, max_len=200)


def get(agent: HandlePort, trace_id: str) -> MemoryRecord:
    trace_id = _checked_id(trace_id)
    rows = checked_context(agent).graph.memories([trace_id], agent.visible_scope_keys)
    if not rows:
        raise MemoryNotFound(f"no memory with id {trace_id!r} is visible to agent {agent.identity.agent_id!r}")
    row = rows[0]
    return record_of(row["trace"], bool(row["archived"]), row["supersededBy"])


def graph_filter(where: MemoryFilter | None, visible: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    """The scope keys a filter leaves of `visible`, and its Cypher parameters."""
    if where is None:
        return list(visible), NO_FILTER_PARAMS
    keys = where.narrow_scope_keys(visible)
    entity_keys = [entity_key(n) for n in where.entity] if where.entity else None
    return keys, where.graph_params(entity_keys=entity_keys)


def _encode_cursor(created_at: int, trace_id: str, order: str) -> str:
    raw = json.dumps([created_at, trace_id, order], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str, order: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created_at, trace_id, cursor_order = json.loads(raw)
        if not isinstance(created_at, int) or not isinstance(trace_id, str):
            raise ValueError
    except (ValueError, TypeError, binascii.Error, json.JSONDecodeError):
        raise InvalidArgument("cursor is not one a list call returned; pass the `cursor` of the previous page",
                              argument="cursor") from None
    if cursor_order != order:
        raise InvalidArgument(f"cursor belongs to a list in {cursor_order!r} order, not {order!r}", argument="cursor")
    return created_at, trace_id


def list_page(agent: HandlePort, where: MemoryFilter | Mapping[str, Any] | None = None, *,
              order: str = "newest", limit: int | None = DEFAULT_PAGE, cursor: str | None = None) -> MemoryPage:
    """A page of `agent`'s memories; its arguments already checked by the `list` operation's model."""
    limit = DEFAULT_PAGE if limit is None else limit
    f = as_filter(where)
    graph = checked_context(agent).graph
    keys, params = graph_filter(f, agent.visible_scope_keys)
    if not keys:
        return MemoryPage([], None)
    after = _decode_cursor(cursor, order) if cursor else None
    rows = graph.filter_page(keys, params, after=after, newest_first=order == "newest", limit=limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    items = [record_of(props) for props, _ in rows]
    next_cursor = _encode_cursor(items[-1].trace.created_at, items[-1].id, order) if more and items else None
    return MemoryPage(items, next_cursor)


def iter_matching(store: StorePort, scope_keys: Sequence[str], where: MemoryFilter | None,
                  page: int = FORGET_BATCH) -> Iterator[list[MemoryRecord]]:
    """Pages of every memory of `scope_keys` passing `where` (oldest first), for forget and export."""
    keys, params = graph_filter(where, scope_keys)
    if not keys:
        return
    after: tuple[int, str] | None = None
    while True:
        rows = store.graph.filter_page(keys, params, after=after, newest_first=False, limit=page)
        if not rows:
            return
        records = [record_of(props) for props, _ in rows]
        yield records
        if len(rows) < page:
            return
        after = (records[-1].trace.created_at, records[-1].id)


def history(agent: HandlePort, trace_id: str) -> list[MemoryRecord]:
    """Every version of a memory, oldest first: what it said, when, and who wrote it."""
    trace_id = _checked_id(trace_id)
    versions = checked_context(agent).graph.versions(trace_id, agent.visible_scope_keys)
    if not versions:
        raise MemoryNotFound(f"no memory with id {trace_id!r} is visible to agent {agent.identity.agent_id!r}")
    records = [record_of(v) for v in versions]
    return sorted(records, key=lambda r: (r.version, r.trace.recorded_at, r.id))


# ---------------------------------------------------------------- changing


def actor_of(agent: HandlePort) -> dict[str, Any]:
    return {k: v for k, v in agent.identity.model_dump().items() if v is not None}


def _audit(store: StorePort, operation: str, actor: Mapping[str, Any], scope_keys: Sequence[str],
           counts: Mapping[str, Any]) -> None:
    AuditLog(store.home, store.config.audit).record(operation, at_ms=store.clock.now_ms(), actor=actor,
                                                    scope_keys=scope_keys, counts=counts)


def update(agent: HandlePort, trace_id: str, *, content: str | None = None, tags: Sequence[str] | None = None,
           metadata: Mapping[str, Any] | None = None, pinned: bool | None = None,
           type: MemoryType | str | None = None) -> MemoryRecord:  # noqa: A002 - the field's name
    """Correct a memory. New `content` makes a new version that supersedes this one (which stays
    for history, timeline and as_of); tags, metadata, pinned and type change in place."""
    current = get(agent, trace_id)
    if all(v is None for v in (content, tags, metadata, pinned, type)):
        raise InvalidArgument("update needs at least one of content, tags, metadata, pinned or type",
                              argument="content")
    if current.state is MemoryState.SUPERSEDED or current.superseded_by:
        raise InvalidArgument(f"memory {trace_id!r} was replaced by {list(current.superseded_by)}; update the "
                              "current version", argument="trace_id")
    # Validated as a memory would be (tags, metadata, type) before anything is written.
    old = current.trace
    changes: dict[str, Any] = {}
    if tags is not None:
        changes["tags"] = list(tags)
    if metadata is not None:
        changes["metadata"] = dict(metadata)
    if type is not None:
        changes["type"] = MemoryType(type)
    checked = MemoryTrace.model_validate({**old.model_dump(), **changes})
    store = agent.store
    by = agent.identity.agent_id
    edited = {"tags": tags, "metadata": metadata, "pinned": pinned, "type": type}
    counts: dict[str, Any] = {"versions": 0, "fields": sorted(k for k, v in edited.items() if v is not None)}
    if content is not None and content != old.content:
        new = _new_version(agent, old, content, checked)
        store.graph.supersede_by_update(old.id, new.id, agent.visible_scope_keys, by=by, reason=UPDATED_REASON,
                                        weight=store.config.graph.edges.supersedes_weight)
        counts["versions"] = 1
        result = get(agent, new.id)
    else:
        fields: dict[str, Any] = {"pinned": pinned}
        if tags is not None:
            fields["tags"] = checked.tags
        if metadata is not None:
            fields["metadata"] = json.dumps(checked.metadata, sort_keys=True)
            fields.update(metadata_graph_props(checked.metadata))
        store.graph.update_fields(old.id, agent.visible_scope_keys, fields, by=by)
        if type is not None and checked.type is not old.type:
            store.graph.retype(old.id, checked.type.value)
        result = get(agent, old.id)
        if old.indexed and (tags is not None or metadata is not None):
            store.vectors.set_payload(old.id, filter_payload(result.trace))
    _audit(store, "update", actor_of(agent), [old.scope_key], counts)
    return result


def _new_version(agent: HandlePort, old: MemoryTrace, content: str, checked: MemoryTrace) -> MemoryTrace:
    """The new version, encoded like any memory in the old one's scope, as new (a near-duplicate
    of the old text must not just reinforce the memory it replaces)."""
    from cogmem_graph.write.encode import encode_many

    now = agent.store.clock.now_ms()
    request = {
        "content": content, "type": checked.type, "scope": old.scope, "tags": checked.tags,
        "metadata": checked.metadata, "source_type": old.source_type, "confidence": old.confidence,
        "created_at": now, "valid_from": now, "pinned": checked.pinned, "keyed": old.keyed,
        "structured_data": old.structured_data,
    }
    (new,) = encode_many(agent.context(), [request], reinforce_duplicates=False)
    return new


def forget(agent: HandlePort, ids: str | Sequence[str] | None = None, *,
           where: MemoryFilter | Mapping[str, Any] | None = None, force: bool = False,
           compact: bool = False) -> ForgetReceipt:
    """Delete memories for good (see the module's docstring). `ids` or `where`, not both;
    pinned memories only with `force=True`."""
    store = agent.store
    if (ids is None) == (where is None):
        raise InvalidArgument("forget needs ids or where= (a filter), not both and not neither", argument="ids")
    ctx = checked_context(agent)
    visible = agent.visible_scope_keys
    receipt = ForgetReceipt()
    if ids is not None:
        requested = [_checked_id(i, "ids") for i in ([ids] if isinstance(ids, str) else ids)]
        batches: Iterator[list[str]] = iter([requested[i:i + FORGET_BATCH]
                                              for i in range(0, len(requested), FORGET_BATCH)])
        scope_keys = visible
    else:
        f = as_filter(where)
        if f is None or f.is_empty:
            raise InvalidArgument("where= must filter something; to forget everything of a user, the owner runs "
                                  "store.erase(user_id=...)", argument="where")
        scope_keys, _ = graph_filter(f, visible)
        # Read a page, delete it, read the next after the cursor: what is deleted never shifts it.
        batches = ([r.id for r in page] for page in iter_matching(store, visible, f))
    totals: dict[str, int] = {"traces": 0, "archived": 0, "observation_notes": 0, "schemas": 0, "entities": 0,
                              "vectors": 0}
    for batch in batches:
        rows = ctx.graph.forget_expand(batch, visible, SAME_MEMORY)
        found = {r["id"] for r in rows}
        receipt.not_found += [i for i in batch if i not in found]
        doomed: list[str] = []
        for row in rows:
            if row["pinned"] and not force:
                receipt.skipped_pinned.append(row["id"])
                continue
            doomed += [row["id"], *row["related"]]
        doomed = list(dict.fromkeys(doomed))
        counts = ctx.graph.hard_delete(doomed, visible)  # the graph first: a vector without its trace is never shown
        ctx.vectors.delete(doomed)
        agent.working_memory_forget(doomed)
        for key, n in counts.items():
            totals[key] += n
        totals["vectors"] += len(doomed)
        receipt.forgotten += doomed
    receipt.counts = totals
    if receipt.forgotten:
        _audit(store, "forget", actor_of(agent), scope_keys, {**totals, "not_found": len(receipt.not_found),
                                                            "skipped_pinned": len(receipt.skipped_pinned)})
    else:  # asked for what it cannot see (or nothing matched): summarised, so repeats cannot fill the disk
        reason = "not_found" if receipt.not_found else "pinned" if receipt.skipped_pinned else "no_match"
        AuditLog(store.home, store.config.audit).refused("forget", reason, at_ms=store.clock.now_ms(),
                                                         actor=actor_of(agent), scope_keys=scope_keys)
    if receipt.forgotten:
        store.compaction_due()
        if compact:
            store.compact()
            receipt.compacted = True
    return receipt


def export(store: StorePort, out: TextIO, scope_keys: Sequence[str] | None, actor: Mapping[str, Any],
           on_progress: Any = None) -> Any:
    """The memories of `scope_keys` (None: the whole store) as JSON Lines `import` reads, audited."""
    from cogmem_graph.portable import export_store  # it checks that the store is open

    keys = list(scope_keys) if scope_keys is not None else None
    counts = export_store(store, out, scope_keys=keys, on_progress=on_progress)
    _audit(store, "export", actor, keys or ["*"], {"traces": counts.traces})
    return counts


# ---------------------------------------------------------------- a whole user


def user_scopes(store: StorePort, user_id: str | None, organization_id: str | None,
                verb: str = "erase") -> tuple[str, list[str]]:
    """The user's qualified id and the scope keys in use that are theirs (user and threads).

    Ids are qualified by their organization, so a user id without one names the user outside
    every organization: when that user has nothing but users of the same id have memories under
    organizations, ValueError names them and `organization_id`, rather than `verb` silently
    finding nothing (each organization's user is another person: none is chosen for the caller)."""
    for name, value in (("user_id", user_id), ("organization_id", organization_id)):
        if value is not None and (not isinstance(value, str) or not value.strip() or SEPARATOR in value):
            raise InvalidArgument(f"{name} must be a non-empty id without {SEPARATOR!r}, got {value!r}", argument=name)
    if user_id is None:
        raise InvalidArgument("user_id is required: whose memories to erase or export", argument="user_id")
    qualified = f"{organization_id}{SEPARATOR}{user_id}" if organization_id else user_id
    user_key = scope_key(Scope.USER, qualified)
    keys = store.graph.user_scope_keys(user_key, scope_key(Scope.THREAD, qualified + SEPARATOR))
    if not keys and organization_id is None:
        _refuse_user_without_organization(store, user_id, verb)
    return qualified, sorted(set(keys) | {user_key})


def users(store: StorePort, organization_id: str | None = None) -> list[str]:
    """The ids of the users who hold memories, in their user scope or one of their threads,
    sorted: those outside every organization, or with `organization_id` that organization's
    (ids are qualified by their organization, as `user_scopes` says). Read from the scope keys
    that hold active or dormant memories, never from the memories' content: the owner's view."""
    if organization_id is not None and (not isinstance(organization_id, str) or not organization_id.strip()
                                        or SEPARATOR in organization_id):
        raise InvalidArgument(f"organization_id must be a non-empty id without {SEPARATOR!r}, got {organization_id!r}",
                              argument="organization_id")
    found = set()
    for key in checked_context(store).graph.scope_keys_with_active_traces():
        who = identity_of_scope_key(key)
        if "user_id" in who and who.get("organization_id") == organization_id:
            found.add(who["user_id"])
    return sorted(found)


MAX_NAMED_ORGANIZATIONS = 10


def _refuse_user_without_organization(store: StorePort, user_id: str, verb: str) -> None:
    """ValueError naming the organizations holding a user `user_id`, if any hold one (only the
    store's owner calls erase and export of a user, and the owner sees every organization)."""
    found = store.graph.user_keys_in_organizations(SEPARATOR + user_id, SEPARATOR + user_id + SEPARATOR)
    orgs = sorted({who["organization_id"] for who in map(identity_of_scope_key, found)
                   if who.get("user_id") == user_id and "organization_id" in who})
    if not orgs:
        return
    named = ", ".join(repr(o) for o in orgs[:MAX_NAMED_ORGANIZATIONS])
    if len(orgs) > MAX_NAMED_ORGANIZATIONS:
        named += f" and {len(orgs) - MAX_NAMED_ORGANIZATIONS} more"
    which = "organization" if len(orgs) == 1 else "organizations"
    raise InvalidArgument(
        f"user {user_id!r} has no memories outside an organization, but a user {user_id!r} has memories under "
        f"{which} {named}: pass organization_id (--org for the command line) to {verb} that user, e.g. "
        f"organization_id={orgs[0]!r} (the user of each organization is another person)", argument="organization_id")


def scope_counts(store: StorePort) -> dict[str, int]:
    """Active memories per scope key over the whole store, and nothing of their content: the
    owner's census, which a local command shows when the identity it was given sees nothing."""
    return checked_context(store).graph.scope_key_counts()


def erase(store: StorePort, user_id: str, *, organization_id: str | None = None,
          include_shared: bool = False, compact: bool = True,
          on_progress: Callable[[str, int], None] | None = None) -> EraseReceipt:
    """Everything of one user: their user and thread scopes (memories, reminders, notes,
    buffered turns, archive, schemas), their vectors, and the files under the home
    (compacted unless `compact=False`). What they wrote into shared scopes (organization,
    agent, persona) stays, without its author, unless `include_shared=True`. Run twice,
    the second run finds nothing. `on_progress(kind, n)` hears of each batch deleted."""
    progress = on_progress or (lambda kind, n: None)
    ctx = checked_context(store)
    qualified, keys = user_scopes(store, user_id, organization_id)
    receipt = EraseReceipt(user=qualified, scope_keys=keys)
    counts: dict[str, int] = {"traces": 0, "archived": 0, "observation_notes": 0, "schemas": 0, "entities": 0,
                              "other_nodes": 0, "shared_deleted": 0, "shared_kept_without_author": 0}
    while ids := ctx.graph.trace_ids_in_scopes(keys, FORGET_BATCH):
        for kind, n in ctx.graph.hard_delete(ids, keys).items():
            counts[kind] += n
        ctx.vectors.delete(ids)
        progress("traces", len(ids))
    counts["other_nodes"] = ctx.graph.delete_scope_leftovers(keys)
    ctx.vectors.delete_scopes(keys)
    while authored := ctx.graph.authored_elsewhere(qualified, keys, FORGET_BATCH):
        if include_shared:
            by_scope: dict[str, list[str]] = {}
            for trace_id, key in authored:
                by_scope.setdefault(key, []).append(trace_id)
            for key, ids in by_scope.items():
                deleted = ctx.graph.hard_delete(ids, [key])
                counts["shared_deleted"] += deleted["traces"]
                counts["entities"] += deleted["entities"]
                ctx.vectors.delete(ids)
        else:
            counts["shared_kept_without_author"] += ctx.graph.remove_author([i for i, _ in authored], qualified)
    store.consolidation_log.forget_scopes(keys)
    receipt.counts = counts
    _audit(store, "erase", {"owner": True, "user": qualified}, keys, {**counts, "include_shared": include_shared})
    store.compaction_due()
    if compact:
        store.compact()
        receipt.compacted = True
    return receipt
