"""Every operation `cogmem serve` offers, declared once.

An `Operation` names the operation, its argument model, who may call it, its REST method
and path, its MCP tool (or resource), its `cg.connect` method and its CLI command, with
a summary and the description a model reads to choose it. The surfaces follow from the
table: `server.service` dispatches and checks the caller's role by it, `server.rest`
generates one route per entry, `client.RemoteAgent.call` finds its route in it,
`tools/generate_client.py` writes the client's methods from it (`client/generated.py`),
`server.mcp_tools` generates each MCP tool from its entry (`mcp_args`, declared beside the
entry with `tool_args`, when a tool shows fewer fields or a flat filter), and
`tests/unit/test_operations_table.py` fails when a surface misses an entry.

An argument's type, default and limit are its model field's, on every surface: a tool
variant picks fields and may give its own default and description, never its own limit; the
facade's methods validate their arguments with the same model (`checked_arguments`). True or
False is not taken for a number.

Argument models forbid unknown fields. Whose memory an operation reaches is the API key's
to say: a request naming one of the `IDENTITY_ARGUMENTS` is refused (403) unless the
operation's own argument model declares that field, and only owner operations may declare
one (the user an `erase` erases is its subject, not the caller's identity). Agent and read
operations never name an identity; the table refuses an entry that tries. Argument names are
compared as a lenient reader could take them (`identity_name`: case-insensitive, without a
`[]` suffix), so `USER_ID` or `user_id[]` is refused too. `value_problems` names the values no
request may carry (numbers that are not finite, text with lone surrogates), which every
surface refuses naming the field instead of failing to encode them.

A "read" operation changes nothing a later call would notice: a read-only key may call
exactly those. `recall` qualifies because the server runs it without reinforcement
(`record_access=False`) for a read-only key; `context` does not (it fires reminders and moves
the handle's working memory), so it is an "agent" operation.

Adding an operation is one entry, its handler and its tests: an args model and an
`Operation(...)` below (with `mcp_args=tool_args(...)` when its MCP tool shows less than the
model); a `_op_<name>` method on `server.service.MemoryService`; tests of what it does. REST
and MCP follow from the entry (`server.mcp_tools.SHAPES` when the tool answers less than
REST). An entry naming `client` gets its `RemoteAgent` method by running
`python tools/generate_client.py`: the model's fields are its parameters, converted by their
types (a field typed `Duration` or `OneOrMany` also takes a timedelta or one text from a
Python caller); the generator's `METHODS` says where a method lays them out otherwise or
reads its answer into a result type, and `tests/unit/test_client_generated.py` fails while the
generated module is stale. An entry naming `cli` needs that command, written for a shell.
`tests/unit/test_operations_surfaces.py` fails when a method or a command takes an argument,
default or limit the model does not declare. An operation answering JSON
Lines (`media_type=NDJSON`, an export) returns an iterator of text chunks from its
`_op_<name>`; REST streams it and `RemoteAgent.call(name, args, out=...)` writes it to a file
object.

This module sits below the facade (it imports pydantic, the domain model and the
facade's `EncodeRequest` and `MemoryFilter`, nothing with I/O), so the server, the client,
the CLI and the facade itself may all import it.
"""

from __future__ import annotations

import enum
import functools
import math
import re
import types
import typing
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, create_model, field_validator

from cogmem_graph.config.retrieval import MAX_TOP_K
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.filters import MemoryFilter
from cogmem_graph.model import MemoryType, Moment
from cogmem_graph.write.request import EncodeRequest

Role = Literal["agent", "read", "owner"]
"""Who may call an operation: "read" ones look without changing memory (a read-only key
may call them, where the key file has such a role), "agent" ones change the key's
memories, "owner" ones act on the whole store."""
ROLES: tuple[str, ...] = typing.get_args(Role)
HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
QUERY_METHODS = frozenset({"GET", "DELETE"})
API_PREFIX = "/v1/"
JSON = "application/json"
NDJSON = "application/x-ndjson"
"""JSON Lines, streamed: what an export answers."""
MEDIA_TYPES = (JSON, NDJSON)

MAX_BATCH = 500
MAX_PAGE = 1000
MAX_FORGET_IDS = 1000
IDENTITY_ARGUMENTS = frozenset({
    "agent_id", "user_id", "thread_id", "persona_id", "organization_id",
    "agent", "user", "thread", "persona", "organization", "org", "scope_key", "scope_keys", "scope_id"})


# ---------------------------------------------------------------- argument models


class Args(BaseModel):
    """The base of every argument model: unknown fields are refused, and so is True or False
    given for a number (Python's bool is an int, which pydantic would take as 1 or 0)."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _no_flag_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool) and info.field_name in _number_fields(cls):
            raise ValueError("should be a number, not True or False")
        return value


@functools.cache
def _number_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields of `model` that take a number and no bool."""
    return frozenset(name for name, field in model.model_fields.items() if _takes_a_number(field.annotation))


def _takes_a_number(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _takes_a_number(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        kinds = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return bool(kinds) and all(_takes_a_number(arg) for arg in kinds)
    return annotation in (int, float)


class Given(enum.Enum):
    """A form a Python caller may give for an argument that JSON does not carry, marked on the
    field's type (`Duration`, `OneOrMany`). The model takes the JSON form only; the client's
    methods (and the facade's) take this one too and convert it, so the mark says so once."""

    TIMEDELTA = "a timedelta, for milliseconds"
    ONE = "one text, for a list of one"


Duration = typing.Annotated[int, Given.TIMEDELTA]
"""Milliseconds; a Python caller may give a `timedelta` (`model.duration_ms` converts it)."""
OneOrMany = typing.Annotated[list[str], Given.ONE]
"""A list of texts (ids, keywords, events); a Python caller may give one text for a list of one."""


class NoArgs(Args):
    """An operation that takes no argument."""


class MemoryArgs(Args):
    trace_id: str = Field(..., min_length=1, description="the memory's id")
    limit: int = Field(25, ge=0, le=500, description="at most this many neighbours")


class TraceArgs(Args):
    trace_id: str = Field(..., min_length=1, description="the memory's id")


WHERE_DESCRIPTION = (
    "which memories (all given fields hold): type, scope, tags_any, tags_all, metadata (dotted key -> value, "
    "list of values, or {eq, in, gte, gt, lte, lt}), source_type, state (active, dormant, superseded, inactive), "
    "created_after / created_before, valid_after / valid_before (epoch ms), entity")
Where = MemoryFilter | None


class PageArgs(Args):
    order: Literal["newest", "oldest"] = Field("newest", description="by event time")
    limit: int | None = Field(None, ge=1, le=MAX_PAGE,
                              description=f"memories per page (default 100, at most {MAX_PAGE})")
    cursor: str | None = Field(None, min_length=1, description="the `cursor` of the previous page, for the next one")


class ListArgs(PageArgs):
    where: Where = Field(None, description=WHERE_DESCRIPTION)


QUERY_FILTER_FIELDS: tuple[str, ...] = tuple(name for name in MemoryFilter.model_fields if name != "metadata")
"""The filter's fields a query string carries (all but `metadata`, a nested object)."""

_QUERY_FILTER_DEFINITIONS: dict[str, Any] = {  # (annotation, FieldInfo) pairs, as create_model takes them
    name: (field.annotation, field) for name, field in MemoryFilter.model_fields.items() if name in QUERY_FILTER_FIELDS}
ListQueryArgs: type[PageArgs] = create_model(  # the filter's own fields, descriptions and validators' types
    "ListQueryArgs", __base__=PageArgs, **_QUERY_FILTER_DEFINITIONS)


class UpdateArgs(Args):
    trace_id: str = Field(..., min_length=1, description="the memory's id")
    content: str | None = Field(None, min_length=1, description=(
        "the corrected text: a new version that supersedes this one (kept for history)"))
    tags: list[str] | None = Field(None, description="the new tags (replace the old ones)")
    metadata: dict[str, Any] | None = Field(None, description="the new metadata (replaces the old)")
    pinned: bool | None = Field(None, description="pin (a truth anchor) or unpin")
    type: MemoryType | None = Field(None, description="the memory's type")


class ForgetArgs(Args):
    ids: OneOrMany | None = Field(None, min_length=1, max_length=MAX_FORGET_IDS,
                                  description="the ids of the memories to delete")
    where: Where = Field(
        None, description=f"instead of ids: delete every memory matching this filter; {WHERE_DESCRIPTION}")
    force: bool = Field(False, description="delete pinned memories too (they are skipped otherwise)")
    compact: bool = Field(False, description="rewrite the store's files now, so the data leaves them at once "
                                             "(otherwise at the next consolidation)")


class ForgetOneArgs(Args):
    trace_id: str = Field(..., min_length=1, description="the memory's id")
    force: bool = Field(False, description="delete it even when pinned")
    compact: bool = Field(False, description="rewrite the store's files now")


class UserArgs(Args):
    """An owner operation on one user's memories: the user is its subject (owner entries only)."""

    user_id: str = Field(..., min_length=1, description="the user")
    organization_id: str | None = Field(None, min_length=1, description="the user's organization, when the "
                                                                         "user's keys name one")


class OrganizationArgs(Args):
    """An owner operation over one organization's users (owner entries only)."""

    organization_id: str | None = Field(None, min_length=1, description=(
        "that organization's users; without it, the users outside every organization"))


class EraseArgs(UserArgs):
    include_shared: bool = Field(False, description=(
        "also delete what the user wrote into shared scopes (organization, agent, persona); by default it "
        "stays, without its author"))
    compact: bool = Field(True, description="rewrite the store's files now (the default)")


class RepairArgs(Args):
    reembed: bool = Field(False, description=(
        "also embed every memory again with the store's embedder and replace its vector (vectors an older "
        "version made: memories written before sentence vectors have none)"))


class IdsArgs(Args):
    ids: OneOrMany = Field(..., min_length=1, max_length=MAX_BATCH, description="memory ids")


class BatchArgs(Args):
    items: list[EncodeRequest] = Field(..., min_length=1, max_length=MAX_BATCH)


class RecallArgs(Args):
    query: str = Field(..., min_length=1, description="what to remember")
    top_k: int | None = Field(None, ge=1, le=MAX_TOP_K)
    strategy: Literal["full", "dense", "lexical"] = "full"
    record_access: bool = Field(True, description="false: look without reinforcing what is found")
    as_of: Moment | None = Field(None, description="a moment: what the memory knew then and held true then")
    timeline: bool = Field(False, description="every version, expired and superseded ones too, in event order")
    where: Where = Field(None, description=WHERE_DESCRIPTION)


class ContextArgs(Args):
    query: str = Field(..., min_length=1, description="what the prompt is about")
    token_budget: int | None = Field(None, ge=1, le=200_000)
    top_k: int = Field(20, ge=1, le=MAX_TOP_K)
    events: OneOrMany = Field(default_factory=list, description="events this turn, for event reminders")
    where: Where = Field(None, description=WHERE_DESCRIPTION)
    debug: bool = Field(False, description=(
        "true: the text also shows each memory's id and score (and its activation under Active Context), "
        "for a person inspecting the memory; leave it false for text a model reads"))


class MultiHopArgs(Args):
    query: str = Field(..., min_length=1)
    hops: int | None = Field(None, ge=1, le=4)
    top_k: int | None = Field(None, ge=1, le=MAX_TOP_K)
    where: Where = Field(None, description=WHERE_DESCRIPTION)


class ObserveArgs(Args):
    role: Literal["user", "assistant", "system", "tool"]
    text: str = Field(..., min_length=1)
    created_at: Moment | None = None


class RemindArgs(Args):
    content: str = Field(..., min_length=1)
    at: Moment | None = Field(None, description="when it is due")
    every: Duration | None = Field(None, gt=0, description="ms between occurrences (recurring)")
    on_keywords: OneOrMany | None = None
    on_context: str | None = None
    recurring: bool | None = None
    cooldown: Duration | None = Field(None, ge=0, description="ms")
    threshold: float | None = Field(None, ge=0.0, le=1.0)
    importance: float | None = Field(None, ge=0.0, le=1.0)
    scope: Literal["agent", "thread", "user", "persona", "organization"] | None = None


class RemindersArgs(Args):
    include_inactive: bool = False
    limit: int = Field(100, ge=1, le=1000)


class CancelReminderArgs(Args):
    reminder_id: str = Field(..., min_length=1)


class ConsolidationReportArgs(Args):
    runs: int = Field(20, ge=1, le=100, description="the newest runs")
    schemas: int = Field(20, ge=0, le=200, description="the newest schemas")
    members: int = Field(10, ge=0, le=100, description="member memories shown per schema")
    contradictions: int = Field(50, ge=0, le=500, description="the newest settled contradictions")


def tool_args(args: type[BaseModel], *fields: str, defaults: typing.Mapping[str, Any] | None = None,
              descriptions: typing.Mapping[str, str] | None = None) -> type[Args]:
    """The arguments an MCP tool shows of its operation's model `args`: the named `fields`, each with
    its type and limits from `args` or, when `args` has no such field, from `MemoryFilter` (a flat
    filter argument the tool gathers into `where`, as a tool's schema reads better without a nested
    object). A tool may give its own default (None: the operation's own) and the words a model reads;
    never its own type or limit, so a limit is the same on every surface."""
    definitions: dict[str, Any] = {}
    for name in fields:
        source = args.model_fields.get(name) or MemoryFilter.model_fields[name]
        annotation: Any = source.annotation
        default = source.get_default(call_default_factory=True) if not source.is_required() else ...
        if defaults and name in defaults:
            default = defaults[name]
            if default is None and type(None) not in typing.get_args(annotation):
                annotation = annotation | None
        description = (descriptions or {}).get(name, source.description)
        if source.metadata:
            annotation = typing.Annotated[(annotation, *source.metadata)]
        definitions[name] = (annotation, Field(default, description=description))
    return create_model(f"{args.__name__}Tool", __base__=Args, **definitions)


# ---------------------------------------------------------------- the declaration


@dataclass(frozen=True)
class Operation:
    """One operation and where it shows.

    name: the operation's name (`MemoryService.call`, `RemoteAgent.call`, the REST route's name).
    args: the pydantic model of its arguments (extra="forbid"; an identity field only in an
        owner operation, where it names the operation's subject: `identity_fields`).
    role: who may call it ("agent", "read" or "owner"; see `Role`).
    method, path: its REST route; `{field}` segments are path parameters, the other fields
        are query parameters for GET/DELETE and the JSON body otherwise.
    summary: one line for the OpenAPI schema.
    description: what it does and when to use it, for a model choosing a tool (MCP) and the docs.
    mcp: the MCP tool's name, or the resource's name when `mcp_resource` is set; None: not on MCP.
    mcp_resource: the URI template of the MCP resource serving it (then it is not a tool).
    mcp_args: the MCP tool's arguments when they are not all of `args` (`tool_args`: some of
        them, flat filter fields, the tool's own defaults and descriptions); `mcp_arguments`.
    client: the `cg.connect` (`RemoteAgent`) method; None: reachable through `call(name, args)` only.
    cli: the `cogmem` command that runs it (with `--server` too); None: no command.
    result: the JSON shape of the answer (`dict` or `list`), the REST response model; `str`
        for a JSON Lines answer.
    media_type: JSON, or NDJSON for JSON Lines streamed as they are written (an export).
    """

    name: str
    args: type[BaseModel]
    role: Role
    method: HttpMethod
    path: str
    summary: str
    description: str
    mcp: str | None = None
    mcp_resource: str | None = None
    mcp_args: type[BaseModel] | None = None
    client: str | None = None
    cli: str | None = None
    result: Any = dict
    media_type: str = JSON

    def __post_init__(self) -> None:
        where = f"operation {self.name!r}"
        if not self.name.isidentifier():
            raise ValueError(f"{where}: the name must be an identifier")
        if self.role not in ROLES:
            raise ValueError(f"{where}: role must be one of {', '.join(ROLES)}, not {self.role!r}")
        if self.method not in typing.get_args(HttpMethod):
            raise ValueError(f"{where}: method {self.method!r} is not one of {typing.get_args(HttpMethod)}")
        if not self.path.startswith(API_PREFIX):
            raise ValueError(f"{where}: the path must start with {API_PREFIX} (the guard checks identities there)")
        if self.args.model_config.get("extra") != "forbid":
            raise ValueError(f"{where}: {self.args.__name__} must forbid unknown fields (extra='forbid')")
        chosen = sorted(IDENTITY_ARGUMENTS & set(_all_field_names(self.args)))
        if chosen and self.role != "owner":
            raise ValueError(f"{where}: {self.args.__name__} has identity fields {chosen}; the identity comes "
                             "from the API key (only an owner operation may name the user it acts on)")
        if self.media_type not in MEDIA_TYPES:
            raise ValueError(f"{where}: media_type must be one of {MEDIA_TYPES}, not {self.media_type!r}")
        if self.streams and (self.result is not str or self.mcp is not None):
            raise ValueError(f"{where}: a {self.media_type} answer is text (result=str) and not on MCP")
        for name in self.path_params:
            field = self.args.model_fields.get(name)
            if field is None or not field.is_required():
                raise ValueError(f"{where}: path parameter {{{name}}} must be a required field of "
                                 f"{self.args.__name__}")
        if self.in_query:
            nested = [name for name, field in self.args.model_fields.items()
                      if name not in self.path_params and not _flat(field.annotation)]
            if nested:
                raise ValueError(f"{where}: {self.method} arguments travel in the query string, which holds "
                                 f"scalars and lists of scalars; {', '.join(nested)} is not one (flatten it, "
                                 "or use POST with a JSON body)")
        if self.mcp_resource is not None and self.mcp is None:
            raise ValueError(f"{where}: an MCP resource needs a name (mcp=...)")
        if self.mcp_args is not None:
            if self.mcp_tool is None:
                raise ValueError(f"{where}: mcp_args needs an MCP tool (mcp=..., no mcp_resource)")
            flat = set(self.mcp_args.model_fields) - set(self.args.model_fields)
            if flat and ("where" not in self.args.model_fields or not flat <= set(MemoryFilter.model_fields)):
                raise ValueError(f"{where}: MCP arguments {sorted(flat)} are neither fields of "
                                 f"{self.args.__name__} nor filter fields it takes in `where`")
        if not self.summary.strip() or not self.description.strip():
            raise ValueError(f"{where}: summary and description are required")

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(re.findall(r"{(\w+)}", self.path))

    @property
    def mcp_tool(self) -> str | None:
        """The MCP tool's name, None when the entry is not a tool (no MCP, or a resource)."""
        return self.mcp if self.mcp_resource is None else None

    @property
    def mcp_arguments(self) -> type[BaseModel]:
        """The model of the MCP tool's arguments: `mcp_args`, else `args`."""
        return self.mcp_args or self.args

    @property
    def identity_fields(self) -> frozenset[str]:
        """The identity arguments this entry's own model declares (an owner operation's subject:
        the user it erases); every other identity argument is refused."""
        return IDENTITY_ARGUMENTS & frozenset(_all_field_names(self.args))

    @property
    def streams(self) -> bool:
        """True when the answer is JSON Lines streamed as it is written, not one JSON document."""
        return self.media_type != JSON

    @property
    def in_query(self) -> bool:
        """True when the arguments other than path parameters travel in the query string."""
        return self.method in QUERY_METHODS


def _all_field_names(model: type[BaseModel], seen: frozenset[type] = frozenset()) -> Iterator[str]:
    """The field names of `model` and of the models nested in its fields (batch items)."""
    if model in seen:
        return
    for name, field in model.model_fields.items():
        yield name
        for nested in _models_in(field.annotation):
            yield from _all_field_names(nested, seen | {model})


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _models_in(arg)


def _flat(annotation: Any) -> bool:
    """True for a scalar, a Literal, an optional one or a list of them: what a query string carries."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:  # a validated scalar (a `Moment`) is what it annotates
        return _flat(typing.get_args(annotation)[0])
    if origin is Literal:
        return True
    if origin is list:
        return all(_flat(arg) and typing.get_origin(arg) is not list for arg in typing.get_args(annotation))
    if origin is typing.Union or origin is types.UnionType:  # X | None
        return all(_flat(arg) for arg in typing.get_args(annotation))
    if origin is not None:  # dict[...], tuple[...], ...
        return False
    return annotation in (str, int, float, bool, type(None)) or (
        isinstance(annotation, type) and issubclass(annotation, str | int))  # str and int enums


def _table(*operations: Operation) -> dict[str, Operation]:
    table: dict[str, Operation] = {}
    seen: dict[tuple[str, Any], str] = {}
    for op in operations:
        keys = [("name", op.name), ("route", (op.method, op.path))]
        keys += [(kind, value) for kind, value in (("mcp", op.mcp), ("client", op.client), ("cli", op.cli)) if value]
        for key in keys:
            if key in seen:
                raise ValueError(f"operations {seen[key]!r} and {op.name!r} share {key[0]} {key[1]!r}")
            seen[key] = op.name
        table[op.name] = op
    return table


OPERATIONS: dict[str, Operation] = _table(
    Operation(
        "whoami", NoArgs, "read", "GET", "/v1/whoami",
        summary="The identity and role of the presented key",
        description="Who this memory connection acts as: the key's agent, user, organization and visible scopes.",
        mcp="whoami", client="whoami"),
    Operation(
        "remember", EncodeRequest, "agent", "POST", "/v1/memories",
        summary="Remember one thing (encode)",
        description=(
            "Store one memory for later. Use for facts about the user or the world (type 'semantic'), "
            "things that happened (type 'episodic', the default), how-tos ('procedural'). "
            "scope: 'user' (default when the key has a user: only this user sees it), 'organization' "
            "(every agent of the organization sees it: shared knowledge), 'thread', 'agent', 'persona'. "
            "Returns the stored memory with its id; a near-duplicate reinforces the existing one instead."),
        mcp="remember", client="encode",
        mcp_args=tool_args(EncodeRequest, "content", "type", "scope", "tags", "entities", "confidence", "pinned",
                           defaults=dict.fromkeys(("type", "tags", "entities", "confidence", "pinned")),
                           descriptions={"content": "the memory, one self-contained statement",
                                         "pinned": "a truth anchor that is never forgotten"})),
    Operation(
        "remember_many", BatchArgs, "agent", "POST", "/v1/memories/batch",
        summary="Remember many things in one batch",
        description=(
            f"Store up to {MAX_BATCH} memories in one call, each with the fields of `remember`; the batch "
            "is checked whole before anything is stored. Returns the stored memories in order."),
        client="encode_many", cli="ingest", result=list),
    Operation(
        "memory", MemoryArgs, "read", "GET", "/v1/memories/{trace_id}/neighbourhood",
        summary="One memory and its graph neighbourhood",
        description="One memory and its graph neighbourhood: associative edges and the memories at their ends.",
        mcp="memory", mcp_resource="memory://{trace_id}", client="neighbourhood"),
    Operation(
        "get", TraceArgs, "read", "GET", "/v1/memories/{trace_id}",
        summary="One memory with its state and version",
        description=(
            "One memory by id with where it is in its life: state (active, dormant, superseded, inactive), "
            "version, superseded_by, updated_by, whether an archived original exists. A memory outside the "
            "key's scopes is not found (404)."),
        client="get", cli="get"),
    Operation(
        "list", ListArgs, "read", "POST", "/v1/memories/list",
        summary="A page of memories passing a filter (the filter as a JSON object)",
        description=(
            "Browse the memories this key can see, newest (or oldest) first, a page at a time: pass the "
            "answer's `cursor` back for the next page (null: the last page). Narrow with a filter: type, "
            "scope, tags_any, tags_all, metadata, source_type, state, created/valid time windows, entity. "
            "Use to review or audit what is remembered, or to find ids to update or forget; use recall "
            "instead to find what answers a question."),
        mcp="list_memories", client="list", cli="list",
        mcp_args=tool_args(
            ListArgs, "type", "tags_any", "tags_all", "scope", "state", "metadata", "entity", "created_after",
            "created_before", "order", "limit", "cursor", defaults={"limit": 20}, descriptions={
                "scope": "scopes, any of",
                "state": ("any of: active, dormant (faded), superseded (replaced by a newer version), inactive "
                          "(merged or pruned); default: every state"),
                "metadata": "dotted key -> value, list of values, or {eq, in, gte, gt, lte, lt}",
                "entity": "mentions one of these names",
                "created_after": "event time at or after (ISO-8601 or epoch ms)",
                "created_before": "event time before (ISO-8601 or epoch ms)",
                "limit": "memories per page", "cursor": "the `cursor` of the previous page"})),
    Operation(
        "list_query", ListQueryArgs, "read", "GET", "/v1/memories",
        summary="A page of memories, the filter as query fields",
        description=(
            "The `list` operation with the filter's fields as query parameters (type, scope, tags_any, "
            "tags_all, source_type, state, entity: repeat one for several values; created_after, "
            "created_before, valid_after, valid_before: epoch ms), with order, limit and cursor. A metadata "
            "filter needs the JSON object of POST /v1/memories/list."),
        client=None),
    Operation(
        "update", UpdateArgs, "agent", "PATCH", "/v1/memories/{trace_id}",
        summary="Correct a memory (new content makes a new version)",
        description=(
            "Correct a memory the user says is wrong or out of date. New `content` makes a new version that "
            "supersedes the old one (the old one stays in its history, and is what as_of and timeline "
            "questions about the past see); tags, metadata, pinned and type change in place. Returns the "
            "current version (with its new id when the content changed)."),
        mcp="update_memory", client="update", cli="update",
        mcp_args=tool_args(UpdateArgs, "trace_id", "content", "tags", "metadata", "pinned", "type", descriptions={
            "trace_id": "the id of the memory to correct",
            "content": "the corrected statement: a new version replaces the old one (kept in its history)",
            "pinned": "pin (never forgotten) or unpin"})),
    Operation(
        "history", TraceArgs, "read", "GET", "/v1/memories/{trace_id}/history",
        summary="Every version of a memory, oldest first",
        description=(
            "Every version of a memory, oldest first: what it said, its state, and which agent changed it. "
            "Use to answer how a memory changed, or who corrected it."),
        mcp="memory_history", client="history", cli="history", result=list,
        mcp_args=tool_args(TraceArgs, "trace_id", descriptions={"trace_id": "the id of any version of the memory"})),
    Operation(
        "forget", ForgetArgs, "agent", "POST", "/v1/memories/forget",
        summary="Delete memories for good, by ids or by a filter",
        description=(
            "Delete memories permanently, by `ids` or every memory matching a filter (`where`), never both. "
            "There is no undo: the memory, its earlier versions, its graph edges and what was derived from "
            "it are deleted. Use only when the user asks to delete or forget something (\"forget my old "
            "address\", \"delete what you know about my divorce\"); to correct a memory use update_memory, "
            "and do not forget a memory merely because it seems unimportant (unused memories fade by "
            "themselves). Find the ids with recall or list_memories first. Pinned memories are skipped "
            "unless force is true. Returns a receipt: forgotten ids, not_found, skipped_pinned, counts."),
        mcp="forget", client="forget", cli="forget",
        mcp_args=tool_args(ForgetArgs, "ids", "where", "force", descriptions={
            "where": "instead of ids: delete every memory matching this filter (tags_any, type, metadata, ...)",
            "force": "also delete pinned memories"})),
    Operation(
        "forget_one", ForgetOneArgs, "agent", "DELETE", "/v1/memories/{trace_id}",
        summary="Delete one memory for good",
        description=(
            "Delete one memory permanently (as `forget` with one id): 404 when the key cannot see it, 409 "
            "when it is pinned and force is not set. Returns the receipt."),
        client=None),
    Operation(
        "export", NoArgs, "read", "GET", "/v1/export",
        summary="The key's user's memories as JSON Lines",
        description=(
            "Every memory of the key's user (the user and thread scopes the key sees; the agent's own scope "
            "when the key names no user) as JSON Lines that `cogmem import` restores: traces, entities, "
            "reminders, notes, mentions, edges, and a footer with the counts. Streamed."),
        client="export", cli="export", result=str, media_type=NDJSON),
    Operation(
        "pin", IdsArgs, "agent", "POST", "/v1/memories/pin",
        summary="Pin memories (truth anchors)",
        description=(
            "Pin memories by id: truth anchors that are never forgotten, merged or superseded. Use when "
            "the user states something as permanently true."),
        mcp="pin", client="pin", cli="pin"),
    Operation(
        "unpin", IdsArgs, "agent", "POST", "/v1/memories/unpin",
        summary="Unpin memories",
        description="Unpin memories by id: they may fade like any other again.",
        mcp="unpin", client="unpin", cli="unpin"),
    Operation(
        "recall", RecallArgs, "read", "POST", "/v1/recall",
        summary="Retrieve memories with their signals and sources",
        description=(
            "Search memory for what answers a question or relates to a topic. Returns ranked memories, "
            "each with its score, the signals behind it (relevance, recency, importance, ...) and "
            "`sources`: how it was found ('dense' meaning, 'lexical' words, 'activation' association "
            "through the memory graph). Use before answering questions about the user or past work."),
        mcp="recall", client="retrieve", cli="recall",
        mcp_args=tool_args(RecallArgs, "query", "top_k", "as_of", "timeline", "tags_any", "type", descriptions={
            "query": "a question or a few keywords", "top_k": "how many memories",
            "as_of": ("a moment (ISO-8601 date or date-time, or epoch milliseconds): answer as of then (what was "
                      "known then and true then) instead of now"),
            "timeline": ("true: every version of what matches, including replaced and expired ones, in the "
                         "order it happened (for 'how did this change?' questions)"),
            "tags_any": "only memories with at least one of these tags", "type": "only memories of these types"})),
    Operation(  # "agent": it fires reminders and moves the working memory (a read-only key may not)
        "context", ContextArgs, "agent", "POST", "/v1/context",
        summary="The memory context for a prompt, within a token budget",
        description=(
            "Build the memory context to put in front of a reply: relevant facts, recent events, "
            "graph associations, working memory and reminders that this turn triggers, laid out in "
            "sections within a token budget. Use once per user turn with the user's message as query."),
        mcp="build_context", client="assemble_for_prompt", cli="context",
        mcp_args=tool_args(ContextArgs, "query", "token_budget", "debug", descriptions={
            "query": "the user's message or the task at hand",
            "debug": ("true: the text also shows each memory's id and score, for inspecting the memory; leave it "
                      "false for a context to answer from")})),
    Operation(
        "multi_hop", MultiHopArgs, "read", "POST", "/v1/multi-hop",
        summary="Multi-hop retrieval with evidence paths",
        description=(
            "Answer a question that connects several things (\"where does the company Alice joined have "
            "its office?\") by walking the memory graph: entities the question names, memories that "
            "mention them, entities those mention. Each result has its evidence path from the question."),
        mcp="multi_hop", client="multi_hop",
        mcp_args=tool_args(MultiHopArgs, "query", "hops", "top_k",
                           descriptions={"hops": "entity crossings, default 2"})),
    Operation(
        "observe", ObserveArgs, "agent", "POST", "/v1/observe",
        summary="Feed one conversation turn to the observer",
        description=(
            "Feed one conversation turn to the observer, which distils buffered turns into notes and "
            "later into long-term memories on its own. Use to log a conversation without deciding "
            "yourself what is worth remembering."),
        mcp="observe", client="observe", mcp_args=tool_args(ObserveArgs, "role", "text")),
    Operation(
        "remind", RemindArgs, "agent", "POST", "/v1/reminders",
        summary="Remember to bring something up later",
        description=(
            "Set a reminder to bring something up later: at a time (`at`, epoch ms), every interval "
            "(`every`, ms), when a turn mentions words (`on_keywords`) or resembles a situation "
            "(`on_context`). Fired reminders appear in build_context's Reminders section."),
        mcp="remind", client="remind",
        mcp_args=tool_args(RemindArgs, "content", "at", "every", "on_keywords", "on_context", "scope", descriptions={
            "at": "when it is due: an ISO-8601 date-time or epoch milliseconds",
            "every": "milliseconds between occurrences"})),
    Operation(
        "reminders", RemindersArgs, "read", "GET", "/v1/reminders",
        summary="The reminders this key can see",
        description="List the pending reminders this agent can see (with their ids, to cancel one).",
        mcp="list_reminders", client="reminders", result=list,
        mcp_args=tool_args(RemindersArgs, "include_inactive")),
    Operation(
        "cancel_reminder", CancelReminderArgs, "agent", "DELETE", "/v1/reminders/{reminder_id}",
        summary="Cancel a pending reminder",
        description="Cancel a pending reminder by its id.",
        mcp="cancel_reminder", client="cancel_reminder"),
    Operation(
        "consolidation_report", ConsolidationReportArgs, "read", "GET", "/v1/consolidation",
        summary="What consolidation did in this key's scopes",
        description=(
            "The last consolidation runs that counted something in this key's scopes (those scopes' "
            "counts only: made dormant, merged, schemas, contradictions settled), the schemas it "
            "abstracted with their members, and the contradictions it settled: which side won and "
            "both sides' time and confidence. An owner key without an identity gets the runs' "
            "store-wide counts only, no content."),
        mcp="consolidation_report", client="consolidation_report", cli="consolidation-report"),
    Operation(
        "memory_stats", NoArgs, "read", "GET", "/v1/stats",
        summary="Counts of what this key can see",
        description=(
            "Counts of the memories this key can see: by type, active, dormant and inactive, the "
            "entities they mention and the edges between them by type."),
        mcp="memory_stats", client="memory_stats", cli="memory-stats"),
    Operation(
        "consolidate", NoArgs, "owner", "POST", "/v1/admin/consolidate",
        summary="Owner: run consolidation now",
        description="Owner only: run memory consolidation now (decay, merge, schemas, contradictions).",
        mcp="consolidate", client="consolidate", cli="consolidate"),
    Operation(
        "stats", NoArgs, "owner", "GET", "/v1/admin/stats",
        summary="Owner: counts of the store and the last consolidation",
        description="Owner only: counts of the whole store and the last scheduled consolidation.",
        mcp="stats", client="stats", cli="stats"),
    Operation(
        "repair", RepairArgs, "owner", "POST", "/v1/admin/repair",
        summary="Owner: reconcile the vectors with the graph",
        description="Owner only: reconcile the vector index with the graph after a crash; with reembed, embed "
        "every memory again.",
        mcp="repair", client="repair", cli="repair"),
    Operation(
        "erase", EraseArgs, "owner", "POST", "/v1/admin/erase",
        summary="Owner: erase everything of one user",
        description=(
            "Owner only: delete every memory of one user (their user and thread scopes: memories, reminders, "
            "notes, buffered turns, archive, vectors) and compact the files. What they wrote into shared "
            "scopes stays without its author, unless include_shared. Run twice, the second run finds "
            "nothing. Returns a receipt with the counts."),
        client="erase", cli="erase"),
    Operation(
        "users", OrganizationArgs, "owner", "GET", "/v1/admin/users",
        summary="Owner: the users who hold memories",
        description=(
            "Owner only: the ids of the users who hold memories (in their user scope or one of their threads) "
            "in one organization, or outside every organization without organization_id; sorted. The ids "
            "`erase` and `export_user` take."),
        mcp="users", client="users", cli="users"),
    Operation(
        "export_user", UserArgs, "owner", "GET", "/v1/admin/export",
        summary="Owner: one user's memories as JSON Lines",
        description=(
            "Owner only: every memory of one user (their user and thread scopes) as JSON Lines that "
            "`cogmem import` restores, with a footer of counts. Streamed."),
        client="export_user", result=str, media_type=NDJSON),
)


def operation(name: str) -> Operation:
    """The entry named `name`; ValueError for an operation the table does not declare."""
    try:
        return OPERATIONS[name]
    except KeyError:
        raise InvalidArgument(f"unknown operation {name!r}", argument="name") from None


def checked_arguments(name: str, values: typing.Mapping[str, Any], *,
                      names: typing.Mapping[str, str] | None = None) -> Any:
    """`values` validated by operation `name`'s argument model: how a facade method that runs
    the operation in process checks its arguments, so their types and limits are the table's,
    the same as on REST, MCP, the client and the CLI. A Python caller's values are taken as
    they are: text is not read as a number or a flag, nor a number as a flag (a request's text
    is, as JSON and query strings carry it). `names` gives the method's own name of a field
    (`pin(trace_ids)` for `ids`) for the error, an `InvalidArgument` naming the first bad
    argument (`events[1]`, `where.type[0]`) and saying what is wrong with each."""
    op = operation(name)
    problems: list[tuple[tuple[Any, ...], str]] = []
    for key, value in values.items():
        kind = _plain_kind(op.args.model_fields[key].annotation) if key in op.args.model_fields else None
        if value is None or kind is None:
            continue
        if kind is bool and not isinstance(value, bool):
            problems.append(((key,), f"should be True or False, not {type(value).__name__}"))
        elif kind is not bool and isinstance(value, str):
            problems.append(((key,), "should be a number, not text"))
    if not problems:
        try:
            return op.args.model_validate(dict(values))
        except ValidationError as exc:
            problems = [(tuple(e["loc"]), e["msg"].removeprefix("Value error, ")) for e in exc.errors()]
    where = [_argument_path(loc, names or {}) or name for loc, _ in problems]
    raise InvalidArgument("; ".join(f"{path}: {message}" for path, (_, message) in zip(where, problems, strict=True)),
                          argument=where[0])


def _plain_kind(annotation: Any) -> type | None:
    """int, float or bool for a field that takes one of them as it is (optional or not, marked
    with a `Given` form or not); None for any other field, a validated one (`Moment`) included."""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *marks = typing.get_args(annotation)
        return _plain_kind(base) if all(isinstance(mark, Given) for mark in marks) else None
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kinds = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return _plain_kind(kinds[0]) if len(kinds) == 1 else None
    return annotation if annotation in (int, float, bool) else None


def _argument_path(loc: tuple[Any, ...], names: typing.Mapping[str, str]) -> str:
    """A validation error's location as the caller wrote the argument: `events[1]`, `where.type[0]`."""
    if not loc:
        return ""
    path = names.get(str(loc[0]), str(loc[0]))
    for part in loc[1:]:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def identity_name(name: Any) -> str | None:
    """The identity argument `name` stands for, None when it stands for none. Compared as a
    lenient reader might take it: Unicode-normalised (NFKC), case-insensitively, `-` as `_`,
    without a `[...]` suffix (`user_id[]`, `user_id[0]`) or surrounding spaces. A name must
    already be decoded (the guard decodes query names)."""
    if not isinstance(name, str):
        return None
    key = unicodedata.normalize("NFKC", name).split("[", 1)[0].strip().casefold().replace("-", "_")
    return key if key in IDENTITY_ARGUMENTS else None


def identity_arguments(args: typing.Mapping[str, Any], allowed: typing.AbstractSet[str] = frozenset()) -> list[str]:
    """The identity arguments a request names (as `identity_name` reads a name), at its top
    level or in its batch items, less the ones its operation declares (`allowed`:
    `Operation.identity_fields`); the names as given, sorted; empty when none. The server
    refuses a request naming any with 403."""
    names = list(args)
    items = args.get("items")
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict):
            names += list(item)
    return sorted({name for name in names if (key := identity_name(name)) is not None and key not in allowed})


NOT_FINITE = "not a finite number (NaN, Infinity and numbers beyond ±1.8e308 are not JSON numbers)"
LONE_SURROGATES = "contains characters that are not valid UTF-8 (lone surrogates)"


def _path(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    text = str(key).encode("utf-8", "backslashreplace").decode("utf-8")
    if text.isidentifier():
        return f"{path}.{text}" if path else text
    return f"{path}[{text!r}]"


def value_problems(args: Any, *, most: int = 5) -> list[str]:
    """What no request may carry, each as "<field>: <problem>" (at most `most`), naming the
    field by its path (`items[2].confidence`, `metadata.price`): a number that is not finite
    (NaN, Infinity, a literal beyond the float range) and text, key or value, with lone
    surrogates (not UTF-8: no store keeps it, no JSON encoder writes it). Empty when none.
    Iterative, so a deeply nested value cannot overflow it."""
    problems: list[str] = []
    stack: list[tuple[str, Any]] = [("", args)]
    while stack and len(problems) < most:
        path, value = stack.pop()
        if isinstance(value, float):
            if not math.isfinite(value):
                problems.append(f"{path or 'value'}: {NOT_FINITE}")
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                problems.append(f"{path or 'value'}: {LONE_SURROGATES}")
        elif isinstance(value, typing.Mapping):
            for key, item in reversed(list(value.items())):
                where = _path(path, key)
                if isinstance(key, str):
                    try:
                        key.encode("utf-8")
                    except UnicodeEncodeError:
                        problems.append(f"{where}: the name {LONE_SURROGATES}")
                        continue
                stack.append((where, item))
        elif isinstance(value, list | tuple):
            stack.extend((_path(path, i), item) for i, item in reversed(list(enumerate(value))))
    return problems[:most]


@functools.cache
def _routes() -> tuple[tuple[str, re.Pattern[str], Operation], ...]:
    """(method, path pattern, entry), routes without path parameters first (as the REST app
    matches them: `/v1/memories/list` is not a memory's id)."""
    ordered = sorted(OPERATIONS.values(), key=lambda op: len(op.path_params))
    return tuple((op.method, re.compile("^" + re.sub(r"\\{(\w+)\\}", "[^/]+", re.escape(op.path)) + "$"), op)
                 for op in ordered)


def route_operation(method: str, path: str) -> Operation | None:
    """The entry serving a request's `method` and `path` (parameters filled in); None when none does."""
    for route_method, pattern, op in _routes():
        if route_method == method and pattern.match(path):
            return op
    return None


__all__ = [
    "IDENTITY_ARGUMENTS", "JSON", "MAX_BATCH", "MAX_FORGET_IDS", "MAX_PAGE", "NDJSON", "OPERATIONS",
    "QUERY_FILTER_FIELDS", "ROLES", "Args",
    "BatchArgs", "CancelReminderArgs", "ContextArgs", "Duration", "EraseArgs", "ForgetArgs", "ForgetOneArgs", "Given",
    "IdsArgs", "ListArgs", "ListQueryArgs", "MemoryArgs", "MultiHopArgs", "NoArgs", "ObserveArgs", "OneOrMany",
    "Operation", "PageArgs", "RecallArgs", "RemindArgs", "RemindersArgs", "Role", "TraceArgs", "UpdateArgs", "UserArgs",
    "checked_arguments", "identity_arguments", "identity_name", "operation", "route_operation", "value_problems",
]
