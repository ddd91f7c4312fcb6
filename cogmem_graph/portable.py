"""Portable backup: a whole memory store as JSON Lines, and back.

The file is engine-neutral, so a backup taken from the embedded FalkorDB
restores into Neo4j and the other way round. One JSON object per line, each
with a `"record"` field:

    {"record": "header", "format": "cogmem-graph", "version": 1, "source": {...}}
    {"record": "trace", "props": {...every property of the Trace node...}}
    {"record": "entity", "props": {...}}
    {"record": "schema", "props": {...}}
    {"record": "archived", "props": {...}}
    {"record": "prospective", "props": {...}}          (reminders, cue vectors included)
    {"record": "observation_note", "props": {...}}     (the observer's notes)
    {"record": "conversation_turn", "props": {...}}    (turns buffered for the observer)
    {"record": "mention", "trace": "<trace id>", "entity": "<entity key>", "props": {"name", "kind", "createdAt"}}
    {"record": "edge", "type": "SHARED_ENTITY", "src": "<id>", "dst": "<id>", "props": {...}}
    {"record": "footer", "counts": {...}}

Nodes come before the relationships that need them. Property names are the
graph's camelCase names and times stay epoch milliseconds. Vectors are not in
the file: importing re-embeds each trace's content with the target store's
embedder (the same text through the same embedder gives the same vector) and
writes the points, keeping trace ids, scope keys, timestamps, strengths and
edges. Reminders, observation notes and buffered turns are restored with
every property as saved (a context reminder's cue vector is base64 text on its
node; a store with another embedder embeds the cue again on its next check).
An entity record is the shared node (its key); what a trace's
mention says of it (the name as that memory spells it, its kind, when it was linked) is on
the mention record. The footer's counts let an import detect a truncated file. Backups written
before the last three kinds existed hold none of them and import as they are.

Both directions stream in batches: export pages through the graph with an id
cursor, import flushes a batch per `batch_size` records.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from pydantic import ValidationError

from cogmem_graph.context import ContextSource, MemoryContext, checked_context
from cogmem_graph.errors import InvalidArgument, PortableFormatError, field_problems
from cogmem_graph.gc_pause import collector_paused
from cogmem_graph.graph.port import Edge, ExportSection, Mention, SavedNodes
from cogmem_graph.model import EdgeType, MemoryTrace

FORMAT = "cogmem-graph"
VERSION = 1
BATCH_SIZE = 500

ProgressCallback = Callable[[str, int], None]
"""Called with (section, items done since the last call): "traces", "entities", ...;
for an import also "bytes" with the size of the lines read, then "indexed" as the
imported traces are embedded and indexed."""

_TRACE_FIELDS = {f.alias or name for name, f in MemoryTrace.model_fields.items()}
_NODE_RECORDS = ("trace", "entity", "schema", "archived", "prospective", "observation_note", "conversation_turn")
_LINK_RECORDS = ("mention", "edge")


@dataclass
class PortableCounts:
    traces: int = 0
    entities: int = 0
    schemas: int = 0
    archived: int = 0
    mentions: int = 0
    edges: dict[str, int] = field(default_factory=dict)
    reminders: int = 0
    """Prospective nodes (pending, spent and cancelled intentions)."""
    observation_notes: int = 0
    conversation_turns: int = 0
    """Turns buffered for the observer, not yet made into notes."""

    @property
    def total_edges(self) -> int:
        return sum(self.edges.values())

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def add_edge(self, edge_type: str, n: int = 1) -> None:
        self.edges[edge_type] = self.edges.get(edge_type, 0) + n


def _noop(section: str, n: int) -> None:
    return None


# ---------------------------------------------------------------- export


def _pages(ctx: MemoryContext, section: ExportSection, column: str, cursor_key: str, batch_size: int,
           scope_keys: list[str] | None = None) -> Iterator[list[dict]]:
    """Rows of a cursor-paged export section, one page at a time (all scopes, or `scope_keys`).

    A page is read, and written by the caller, with the cyclic garbage collector paused
    (`CogmemConfig.pause_gc`, cogmem_graph/gc_pause.py): it is tens of thousands of small
    lists and dicts, whose allocation set off collections that walked the whole heap and
    found nothing: a third to a half of an export's time at 1k memories."""
    after = ""
    while True:
        with collector_paused(ctx.config.pause_gc):
            rows = ctx.graph.export_page(section, after=after, limit=batch_size, scope_keys=scope_keys)
            if not rows:
                return
            yield [r[column] if column else r for r in rows]
        last = rows[-1][column] if column else rows[-1]
        after = last[cursor_key]
        if len(rows) < batch_size:
            return


_EXTRA_NODES: tuple[tuple[str, SavedNodes, str, str], ...] = (
    ("prospective", "prospective", "prospective", "reminders"),
    ("observation_note", "observation_notes", "note", "observation_notes"),
    ("conversation_turn", "conversation_turns", "turn", "conversation_turns"),
)
"""Nodes outside the trace graph, each restored as saved: (record kind, export section,
its column, PortableCounts field = progress section)."""


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)
"""What `json.dumps` with these options builds at each call (a line's encoder, made once)."""


def _line(record: dict[str, Any]) -> str:
    return _JSON.encode(record) + "\n"


def export_store(
    store: ContextSource, out: TextIO, *, batch_size: int = BATCH_SIZE, on_progress: ProgressCallback | None = None,
    scope_keys: list[str] | None = None,
) -> PortableCounts:
    """Write every trace, entity, schema, archived original, reminder, observation note,
    buffered turn, mention and edge of the store (all scopes: this is an operator's backup),
    or of the scopes in `scope_keys` only (one user's data), to `out` as JSON Lines."""
    if batch_size < 1:
        raise InvalidArgument("batch_size must be >= 1", argument="batch_size")
    progress = on_progress or _noop
    ctx = checked_context(store)
    counts = PortableCounts()
    out.write(_line({
        "record": "header", "format": FORMAT, "version": VERSION,
        "source": {"dialect": ctx.graph.dialect, "embedder": ctx.embedder.name,
                   "exportedAt": ctx.clock.now_ms()},
    }))
    for page in _pages(ctx, "traces", "trace", "id", batch_size, scope_keys):
        out.writelines(_line({"record": "trace", "props": props}) for props in page)
        counts.traces += len(page)
        progress("traces", len(page))
    for page in _pages(ctx, "entities", "entity", "key", batch_size, scope_keys):
        out.writelines(_line({"record": "entity", "props": props}) for props in page)
        counts.entities += len(page)
        progress("entities", len(page))
    for page in _pages(ctx, "schemas", "schema", "id", batch_size, scope_keys):
        out.writelines(_line({"record": "schema", "props": props}) for props in page)
        counts.schemas += len(page)
        progress("schemas", len(page))
    for page in _pages(ctx, "archived", "archived", "traceId", batch_size, scope_keys):
        out.writelines(_line({"record": "archived", "props": props}) for props in page)
        counts.archived += len(page)
        progress("archived", len(page))
    for kind, saved, column, section in _EXTRA_NODES:
        for page in _pages(ctx, saved, column, "id", batch_size, scope_keys):
            out.writelines(_line({"record": kind, "props": props}) for props in page)
            setattr(counts, section, getattr(counts, section) + len(page))
            progress(section, len(page))
    for page in _pages(ctx, "mentions", "", "id", batch_size, scope_keys):
        for row in page:
            for mention in sorted({m["key"]: m for m in row["mentions"] if m}.values(), key=lambda m: m["key"]):
                props = {k: mention[k] for k in ("name", "kind", "createdAt") if mention.get(k) is not None}
                out.write(_line({"record": "mention", "trace": row["id"], "entity": mention["key"], "props": props}))
                counts.mentions += 1
        progress("mentions", len(page))
    for page in _pages(ctx, "edges", "", "id", batch_size, scope_keys):
        for row in page:
            for edge in sorted(row["edges"], key=lambda e: (e["type"], str(e["dst"]))):
                out.write(_line({"record": "edge", "type": edge["type"], "src": row["id"], "dst": edge["dst"],
                                 "props": edge["props"] or {}}))
                counts.add_edge(edge["type"])
        progress("edges", len(page))
    out.write(_line({"record": "footer", "counts": counts.as_dict()}))
    return counts


# ---------------------------------------------------------------- import


class _Importer:
    """Buffers records per kind and writes them in batches, nodes before links."""

    def __init__(self, ctx: MemoryContext, batch_size: int, progress: ProgressCallback) -> None:
        self.graph = ctx.graph
        self.batch_size = batch_size
        self.progress = progress
        self.counts = PortableCounts()
        self.buffers: dict[str, list[Any]] = {kind: [] for kind in (*_NODE_RECORDS, *_LINK_RECORDS)}
        self.entity_names: dict[str, tuple[str, str]] = {}
        self.unlinked = 0

    def add(self, kind: str, item: Any) -> None:
        self.buffers[kind].append(item)
        if len(self.buffers[kind]) >= self.batch_size:
            if kind in _LINK_RECORDS:
                self.flush_nodes()
            self.flush(kind)

    def flush_nodes(self) -> None:
        for kind in _NODE_RECORDS:
            self.flush(kind)

    def flush_all(self) -> None:
        self.flush_nodes()
        for kind in _LINK_RECORDS:
            self.flush(kind)

    def flush(self, kind: str) -> None:
        items = self.buffers[kind]
        if not items:
            return
        self.buffers[kind] = []
        getattr(self, f"_write_{kind}")(items)

    # -- nodes

    def _write_trace(self, items: list[tuple[MemoryTrace, dict[str, Any]]]) -> None:
        traces = [t.model_copy(update={"indexed": False}) for t, _ in items]
        self.graph.upsert_traces(traces)
        extras = [(t.id, extra) for t, extra in items if extra]
        if extras:
            self.graph.import_trace_props(extras)
        # Indexed once every trace is in the graph (`index_unindexed` after the last record),
        # so each turn is embedded with its previous turn wherever the backup lists it.
        self.counts.traces += len(traces)
        self.progress("traces", len(traces))

    def _write_entity(self, items: list[dict[str, Any]]) -> None:
        self.graph.import_entities(items)
        for p in items:
            self.entity_names[p["key"]] = (str(p.get("name") or p["key"]), str(p.get("kind") or "thing"))
        self.counts.entities += len(items)
        self.progress("entities", len(items))

    def _write_schema(self, items: list[dict[str, Any]]) -> None:
        self.graph.import_schemas(items)
        self.counts.schemas += len(items)
        self.progress("schemas", len(items))

    def _write_archived(self, items: list[dict[str, Any]]) -> None:
        self.graph.import_archived(items)
        self.counts.archived += len(items)
        self.progress("archived", len(items))

    def _write_as_saved(self, kind: SavedNodes, section: str, items: list[dict[str, Any]]) -> None:
        written = self.graph.import_saved_nodes(kind, items)
        setattr(self.counts, section, getattr(self.counts, section) + written)
        self.progress(section, len(items))

    def _write_prospective(self, items: list[dict[str, Any]]) -> None:
        self._write_as_saved("prospective", "reminders", items)

    def _write_observation_note(self, items: list[dict[str, Any]]) -> None:
        self._write_as_saved("observation_notes", "observation_notes", items)

    def _write_conversation_turn(self, items: list[dict[str, Any]]) -> None:
        self._write_as_saved("conversation_turns", "conversation_turns", items)

    # -- links

    def _write_mention(self, items: list[tuple[str, str, dict[str, Any]]]) -> None:
        mentions = []
        for trace_id, key, props in items:
            # Backups written before mentions carried a name take the entity record's.
            name, kind = self.entity_names.get(key, (key, "thing"))
            created = props.get("createdAt")
            mentions.append(Mention(trace_id=trace_id, key=key, name=str(props.get("name") or name),
                                    kind=str(props.get("kind") or kind),
                                    created_at=created if isinstance(created, int) else None))
        linked = self.graph.merge_mentions(mentions)
        self.unlinked += len(mentions) - linked
        self.counts.mentions += linked
        self.progress("mentions", len(items))

    def _write_edge(self, items: list[tuple[EdgeType, str, str, dict[str, Any]]]) -> None:
        by_type: dict[EdgeType, list[tuple[str, str, dict[str, Any]]]] = {}
        for edge_type, src, dst, props in items:
            by_type.setdefault(edge_type, []).append((src, dst, props))
        for edge_type, edges in by_type.items():
            if edge_type is not EdgeType.SCHEMA_INSTANCE:
                self.graph.merge_edges(edge_type, [Edge(s, d, float(p.get("weight", 0.0))) for s, d, p in edges])
            written = self.graph.import_edge_props(edge_type, edges)
            self.unlinked += len(edges) - written
            self.counts.add_edge(edge_type.value, written)
        self.progress("edges", len(items))


def _parse(line: str, number: int) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise PortableFormatError(f"line {number}: not JSON ({exc.msg})") from exc
    if not isinstance(record, dict) or not isinstance(record.get("record"), str):
        raise PortableFormatError(f"line {number}: expected an object with a \"record\" field")
    return record


def _check_header(record: dict[str, Any], number: int) -> None:
    if record.get("record") != "header" or record.get("format") != FORMAT:
        raise PortableFormatError(f"line {number}: not a {FORMAT} backup (no header line)")
    if record.get("version") != VERSION:
        raise PortableFormatError(f"line {number}: backup format version {record.get('version')!r} "
                                  f"is not supported (this library reads version {VERSION})")


def check_header(first_line: str, number: int = 1) -> None:
    """Raise PortableFormatError unless `first_line` is a backup header (a cheap check before
    opening a store)."""
    if not first_line.strip():
        raise PortableFormatError("empty file: not a cogmem-graph backup")
    try:
        record = json.loads(first_line)
    except json.JSONDecodeError:
        record = None
    if not isinstance(record, dict):
        raise PortableFormatError(f"line {number}: not a {FORMAT} backup (the first line is not a JSON header)")
    _check_header(record, number)


def _props(record: dict[str, Any], number: int, key: str) -> dict[str, Any]:
    props = record.get("props")
    if not isinstance(props, dict) or not isinstance(props.get(key), str) or not props[key]:
        raise PortableFormatError(f"line {number}: {record['record']} record needs props.{key}")
    for name, value in props.items():
        ok = value is None or isinstance(value, (str, int, float, bool)) or (
            isinstance(value, list) and all(isinstance(v, (str, int, float, bool)) for v in value))
        if not ok:
            raise PortableFormatError(f"line {number}: property {name!r} must be a primitive or a list of primitives")
    _finite(props, number)
    return {k: v for k, v in props.items() if v is not None}


def _finite(props: dict[str, Any], number: int) -> None:
    """JSON has no NaN or infinity, but Python's json reads them: no graph property may hold one."""
    for name, value in props.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, float) and not math.isfinite(item):
                spelled = "NaN" if math.isnan(item) else ("Infinity" if item > 0 else "-Infinity")
                raise PortableFormatError(f"line {number}: property {name!r} is {spelled}, not a finite number")


_REQUIRED: dict[str, dict[str, type]] = {
    "prospective": {"scopeKey": str, "agentId": str, "content": str, "triggerKind": str, "nextFireAt": int,
                    "active": bool},
    "observation_note": {"scopeKey": str, "agentId": str, "type": str, "content": str},
    "conversation_turn": {"bufferKey": str, "scopeKey": str, "role": str, "content": str, "seq": int,
                          "tokens": int},
}
"""Properties the pipeline reads from each node without a default: a node missing one would
break every reminder check, observer or reflector run of its scope."""


def _checked_extra(record: dict[str, Any], number: int) -> dict[str, Any]:
    """A reminder, note or buffered turn's properties, with what its pipeline relies on checked."""
    # Imported here, where only an import needs them: the note kinds' module brings the
    # observer's text rules (~50 ms of regular expressions to compile), which an export never uses.
    from cogmem_graph.cognition.prospective import TriggerKind
    from cogmem_graph.language.note_kinds import NoteType

    kind = record["record"]
    props = _props(record, number, "id")
    for name, expected in _REQUIRED[kind].items():
        value = props.get(name)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise PortableFormatError(f"line {number}: {kind} record needs props.{name} "
                                      f"({expected.__name__}), got {value!r}")
    try:
        if kind == "prospective":
            TriggerKind(props["triggerKind"])
        elif kind == "observation_note":
            NoteType(props["type"])
    except ValueError as exc:
        raise PortableFormatError(f"line {number}: {kind} record: {exc}") from exc
    if kind == "prospective" and props["triggerKind"] == TriggerKind.CONTEXT and not isinstance(props.get("cue"), str):
        raise PortableFormatError(f"line {number}: prospective record needs props.cue (str) for a context trigger")
    return props


def _ids(record: dict[str, Any], number: int, *keys: str) -> list[str]:
    ids = [v for v in (record.get(k) for k in keys) if isinstance(v, str) and v]
    if len(ids) < len(keys):
        raise PortableFormatError(f"line {number}: {record['record']} record needs {', '.join(keys)}")
    return ids


def import_store(
    store: ContextSource, lines: Iterable[str], *, batch_size: int = BATCH_SIZE,
    on_progress: ProgressCallback | None = None,
) -> PortableCounts:
    """Restore a backup written by `export_store` into `store` (merged by id: importing twice
    changes nothing). Traces are re-embedded with the store's embedder and indexed; reminders,
    observation notes and buffered turns take the properties they were saved with."""
    from cogmem_graph.write.indexing import index_unindexed  # the write path: an import's only

    if batch_size < 1:
        raise InvalidArgument("batch_size must be >= 1", argument="batch_size")
    progress = on_progress or _noop
    ctx = checked_context(store)
    importer = _Importer(ctx, batch_size, progress)
    header_seen = False
    footer: dict[str, Any] | None = None
    number = 0
    for number, line in enumerate(lines, start=1):
        progress("bytes", len(line.encode("utf-8")))
        if not line.strip():
            continue
        if not header_seen:
            check_header(line, number)
            header_seen = True
            continue
        record = _parse(line, number)
        kind = record["record"]
        if footer is not None:
            raise PortableFormatError(f"line {number}: records after the footer")
        if kind == "trace":
            props = _props(record, number, "id")
            try:
                trace = MemoryTrace.from_graph_props(props)
            except ValidationError as exc:
                raise PortableFormatError(f"line {number}: invalid trace: {field_problems(exc.errors())}") from exc
            extra = {k: v for k, v in props.items() if k not in _TRACE_FIELDS}
            importer.add("trace", (trace, extra))
        elif kind == "entity":
            importer.add("entity", _props(record, number, "key"))
        elif kind == "schema":
            importer.add("schema", _props(record, number, "id"))
        elif kind == "archived":
            importer.add("archived", _props(record, number, "traceId"))
        elif kind in _REQUIRED:
            importer.add(kind, _checked_extra(record, number))
        elif kind == "mention":
            trace_id, key = _ids(record, number, "trace", "entity")
            props = dict(record.get("props") or {})
            _finite(props, number)
            importer.add("mention", (trace_id, key, props))
        elif kind == "edge":
            src, dst = _ids(record, number, "src", "dst")
            try:
                if not isinstance(record.get("type"), str):
                    raise ValueError("an edge type is text")
                edge_type = EdgeType(record["type"])
            except ValueError as exc:
                raise PortableFormatError(f"line {number}: unknown edge type {record.get('type')!r}") from exc
            props = dict(record.get("props") or {})
            weight = props.get("weight", 0.0)
            if not isinstance(weight, (int, float)) or not 0.0 <= weight <= 1.0:
                raise PortableFormatError(f"line {number}: edge weight must be a number in [0, 1]")
            props = _props({"record": "edge", "props": {**props, "src": src}}, number, "src")
            props.pop("src")
            importer.add("edge", (edge_type, src, dst, props))
        elif kind == "footer":
            footer = record
        else:
            raise PortableFormatError(f"line {number}: unknown record kind {kind!r}")
    if not header_seen:
        raise PortableFormatError("empty file: not a cogmem-graph backup")
    importer.flush_all()
    index_unindexed(ctx, on_batch=lambda n: progress("indexed", n))
    if footer is None:
        raise PortableFormatError(f"the backup ends at line {number} without its footer: the file is truncated "
                                  "(what was read has been imported)")
    expected = footer.get("counts") or {}
    got = importer.counts.as_dict()
    missing = {k: (expected[k], got.get(k)) for k in expected if k in got and expected[k] != got[k]}
    if missing or importer.unlinked:
        detail = ", ".join(f"{k}: {e} in the file, {g} imported" for k, (e, g) in missing.items())
        raise PortableFormatError(
            f"the import does not match the backup's footer ({detail or f'{importer.unlinked} links had no node'})")
    return importer.counts
