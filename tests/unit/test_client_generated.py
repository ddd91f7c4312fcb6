"""The client's methods are made from the operations table by `tools/generate_client.py`.

The checked-in `client/generated.py` must be what the generator writes now (so a table entry
changed without running it fails here). Each method keeps the public signature it had when it
was written by hand, sends the request it sent then for the same call, and reads the answer into
the same result; the async client has every method; the methods still written by hand are the
ones the generated module lists, with drift tests of their own in `test_operations_surfaces.py`.
"""

from __future__ import annotations

import inspect
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from cogmem_graph.client import arguments
from cogmem_graph.client.agent import RemoteAgent, RemoteMethods
from cogmem_graph.client.aio import AsyncRemoteAgent
from cogmem_graph.client.generated import OperationMethods
from cogmem_graph.client.plans import Send, plans_of
from cogmem_graph.client.wire import prepare
from cogmem_graph.filters import MemoryFilter
from cogmem_graph.model import MemoryTrace, MemoryType, Scope
from cogmem_graph.operations import OPERATIONS, checked_arguments
from tests.client_generator import generator

GENERATED = generator().TARGET


def test_the_checked_in_module_is_what_the_generator_writes() -> None:
    assert GENERATED.read_text(encoding="utf-8") == generator().source(), (
        "cogmem_graph/client/generated.py differs from what the operations table makes: "
        "run `python tools/generate_client.py`")
    assert generator().main(["--check"]) == 0


def test_every_client_entry_is_generated_or_written_by_hand_and_the_module_says_which() -> None:
    hand_written = generator().HAND_WRITTEN
    for op in OPERATIONS.values():
        if op.client is None:
            continue
        generated = op.client in vars(OperationMethods)
        assert generated != (op.client in hand_written), f"{op.client}: generated, or written by hand, not both"
        if not generated:
            assert op.client in vars(RemoteMethods), f"{op.client} is listed as written by hand in client/agent.py"
            assert f"`{op.client}`: {hand_written[op.client]}" in GENERATED.read_text(encoding="utf-8")
    assert set(plans_of(RemoteMethods)) == {op.client for op in OPERATIONS.values() if op.client}


def test_a_method_s_docstring_is_its_operation_s_description() -> None:
    for op in OPERATIONS.values():
        if op.client and op.client in vars(OperationMethods):
            doc = inspect.getdoc(getattr(RemoteAgent, op.client)) or ""
            assert doc.split() == op.description.split(), op.client


# ---------------------------------------------------------------- the public signatures

SIGNATURES = {  # as the methods were written by hand: parameters after self, and the result
    "assemble_for_prompt": (("query", "token_budget=None", "*top_k=20", "*events=()", "*where=None", "*debug=False"),
                            "AssembledContext"),
    "cancel_reminder": (("reminder_id",), "bool"),
    "consolidate": ((), "dict[str, Any]"),
    "consolidation_report": (("runs=20", "schemas=20", "members=10", "contradictions=50"), "dict[str, Any]"),
    "encode": (("content", "**fields"), "MemoryTrace"),
    "encode_many": (("items", "*batch_size=500"), "list[MemoryTrace]"),
    "erase": (("user_id", "*organization_id=None", "*include_shared=False", "*compact=True"), "EraseReceipt"),
    "export": (("out",), "PortableCounts"),
    "export_user": (("out", "user_id", "organization_id=None"), "PortableCounts"),
    "forget": (("ids=None", "*where=None", "*force=False", "*compact=False"), "ForgetReceipt"),
    "get": (("trace_id",), "MemoryRecord"),
    "history": (("trace_id",), "list[MemoryRecord]"),
    "list": (("where=None", "*order='newest'", "*limit=None", "*cursor=None"), "MemoryPage"),
    "memory_stats": ((), "dict[str, Any]"),
    "multi_hop": (("query", "hops=None", "top_k=None", "where=None"), "dict[str, Any]"),
    "neighbourhood": (("trace_id", "limit=25"), "dict[str, Any]"),
    "observe": (("role", "text", "*created_at=None"), "dict[str, Any]"),
    "pin": (("trace_ids",), "list[str]"),
    "remind": (("content", "*at=None", "*every=None", "*on_keywords=None", "*on_context=None", "*recurring=None",
                "*cooldown=None", "*threshold=None", "*importance=None", "*scope=None"), "Intention"),
    "reminders": (("*include_inactive=False", "*limit=100"), "list[Intention]"),
    "repair": (("reembed=False",), "dict[str, Any]"),
    "retrieve": (("query", "top_k=None", "*strategy='full'", "*record_access=True", "*as_of=None", "*timeline=False",
                  "*where=None"), "RetrievalResult"),
    "stats": ((), "dict[str, Any]"),
    "unpin": (("trace_ids",), "list[str]"),
    "update": (("trace_id", "*content=None", "*tags=None", "*metadata=None", "*pinned=None", "*type=None"),
               "MemoryRecord"),
    "users": (("*organization_id=None",), "list[str]"),
    "whoami": ((), "dict[str, Any]"),
}
KIND = {inspect.Parameter.POSITIONAL_OR_KEYWORD: "", inspect.Parameter.KEYWORD_ONLY: "*",
        inspect.Parameter.VAR_KEYWORD: "**"}


def shown(method: Any) -> tuple[tuple[str, ...], str]:
    """A method's parameters after `self` (`*` marks a keyword-only one) and its result, as written."""
    signature = inspect.signature(method)
    parameters = tuple(KIND[p.kind] + p.name + ("" if p.default is p.empty else f"={p.default!r}")
                       for p in list(signature.parameters.values())[1:])
    return parameters, str(signature.return_annotation).replace("builtins.", "")


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_each_method_keeps_its_public_signature(name: str) -> None:
    assert shown(getattr(RemoteAgent, name)) == SIGNATURES[name]
    assert shown(getattr(AsyncRemoteAgent, name)) == SIGNATURES[name]
    assert inspect.iscoroutinefunction(getattr(AsyncRemoteAgent, name))


def test_the_signatures_cover_every_method() -> None:
    assert set(SIGNATURES) == set(plans_of(RemoteMethods))


# ---------------------------------------------------------------- what each method sends

WHEN = datetime(2026, 1, 31, 18, 0, tzinfo=UTC)
WHEN_MS = 1_769_882_400_000


def call(name: str, *args: Any, **kwargs: Any) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    return name, args, kwargs


SENT = [  # a call, and the request the hand-written method made of it: method, path, and query or body
    (call("encode", "a fact"), "POST", "/v1/memories", {"json": {"content": "a fact"}}),
    (call("encode", "a fact", type=MemoryType.SEMANTIC, tags=("a", "b"), created_at=WHEN, valid_from="2026-01-01",
          valid_until=1_800_000_000_000, confidence=0.5),
     "POST", "/v1/memories", {"json": {"content": "a fact", "type": "semantic", "tags": ["a", "b"],
                                       "created_at": WHEN_MS, "valid_from": 1_767_225_600_000,
                                       "valid_until": 1_800_000_000_000, "confidence": 0.5}}),
    (call("retrieve", "who"),
     "POST", "/v1/recall", {"json": {"query": "who", "strategy": "full", "record_access": True, "timeline": False}}),
    (call("retrieve", "who", 5, strategy="dense", record_access=False, as_of=WHEN, timeline=True,
          where=MemoryFilter(tags_any=["x"])),
     "POST", "/v1/recall", {"json": {"query": "who", "top_k": 5, "strategy": "dense", "record_access": False,
                                     "as_of": WHEN_MS, "timeline": True, "where": {"tags_any": ["x"]}}}),
    (call("retrieve", "who", as_of="2026-01-31", where={"type": ["semantic"]}),
     "POST", "/v1/recall", {"json": {"query": "who", "strategy": "full", "record_access": True,
                                     "as_of": 1_769_817_600_000, "timeline": False, "where": {"type": ["semantic"]}}}),
    (call("assemble_for_prompt", "what now"),
     "POST", "/v1/context", {"json": {"query": "what now", "top_k": 20, "events": [], "debug": False}}),
    (call("assemble_for_prompt", "what now", 500, top_k=7, events=("e1", "e2"), where={"tags_any": ["x"]}, debug=True),
     "POST", "/v1/context", {"json": {"query": "what now", "token_budget": 500, "top_k": 7, "events": ["e1", "e2"],
                                      "where": {"tags_any": ["x"]}, "debug": True}}),
    (call("observe", "user", "hello"), "POST", "/v1/observe", {"json": {"role": "user", "text": "hello"}}),
    (call("observe", "assistant", "hi", created_at="2026-01-31T10:00:00+02:00"),
     "POST", "/v1/observe", {"json": {"role": "assistant", "text": "hi", "created_at": 1_769_846_400_000}}),
    (call("remind", "call mum", at=WHEN), "POST", "/v1/reminders", {"json": {"content": "call mum", "at": WHEN_MS}}),
    (call("remind", "stretch", every=timedelta(hours=1), on_keywords="desk", on_context="long sitting",
          recurring=True, cooldown=timedelta(minutes=5), threshold=0.5, importance=0.7, scope=Scope.USER),
     "POST", "/v1/reminders", {"json": {"content": "stretch", "every": 3_600_000, "on_keywords": ["desk"],
                                        "on_context": "long sitting", "recurring": True, "cooldown": 300_000,
                                        "threshold": 0.5, "importance": 0.7, "scope": "user"}}),
    (call("remind", "water", every=3_600_000, on_keywords=["drink", "water"], cooldown=0, scope="thread"),
     "POST", "/v1/reminders", {"json": {"content": "water", "every": 3_600_000, "on_keywords": ["drink", "water"],
                                        "cooldown": 0, "scope": "thread"}}),
    (call("reminders"), "GET", "/v1/reminders", {"params": {"include_inactive": False, "limit": 100}}),
    (call("reminders", include_inactive=True, limit=5),
     "GET", "/v1/reminders", {"params": {"include_inactive": True, "limit": 5}}),
    (call("cancel_reminder", "r1"), "DELETE", "/v1/reminders/r1", {"params": {}}),
    (call("pin", "t1"), "POST", "/v1/memories/pin", {"json": {"ids": ["t1"]}}),
    (call("pin", ["t1", "t2"]), "POST", "/v1/memories/pin", {"json": {"ids": ["t1", "t2"]}}),
    (call("unpin", ("t1",)), "POST", "/v1/memories/unpin", {"json": {"ids": ["t1"]}}),
    (call("get", "t1"), "GET", "/v1/memories/t1", {"params": {}}),
    (call("list"), "POST", "/v1/memories/list", {"json": {"order": "newest"}}),
    (call("list", {"tags_any": ["x"]}, order="oldest", limit=10, cursor="c1"),
     "POST", "/v1/memories/list", {"json": {"where": {"tags_any": ["x"]}, "order": "oldest", "limit": 10,
                                            "cursor": "c1"}}),
    (call("update", "t1", content="new"), "PATCH", "/v1/memories/t1", {"json": {"content": "new"}}),
    (call("update", "t1", tags=("a",), metadata={"k": 1}, pinned=True, type=MemoryType.SEMANTIC),
     "PATCH", "/v1/memories/t1", {"json": {"tags": ["a"], "metadata": {"k": 1}, "pinned": True, "type": "semantic"}}),
    (call("history", "t1"), "GET", "/v1/memories/t1/history", {"params": {}}),
    (call("forget", "t1"), "POST", "/v1/memories/forget", {"json": {"ids": ["t1"], "force": False, "compact": False}}),
    (call("forget", ["t1", "t2"], force=True, compact=True),
     "POST", "/v1/memories/forget", {"json": {"ids": ["t1", "t2"], "force": True, "compact": True}}),
    (call("forget", where={"tags_any": ["x"]}),
     "POST", "/v1/memories/forget", {"json": {"where": {"tags_any": ["x"]}, "force": False, "compact": False}}),
    (call("erase", "u1"), "POST", "/v1/admin/erase", {"json": {"user_id": "u1", "include_shared": False,
                                                               "compact": True}}),
    (call("erase", "u1", organization_id="o1", include_shared=True, compact=False),
     "POST", "/v1/admin/erase", {"json": {"user_id": "u1", "organization_id": "o1", "include_shared": True,
                                          "compact": False}}),
    (call("users"), "GET", "/v1/admin/users", {"params": {}}),
    (call("users", organization_id="o1"), "GET", "/v1/admin/users", {"params": {"organization_id": "o1"}}),
    (call("multi_hop", "who", 2, 5, {"tags_any": ["x"]}),
     "POST", "/v1/multi-hop", {"json": {"query": "who", "hops": 2, "top_k": 5, "where": {"tags_any": ["x"]}}}),
    (call("multi_hop", "who"), "POST", "/v1/multi-hop", {"json": {"query": "who"}}),
    (call("neighbourhood", "t1"), "GET", "/v1/memories/t1/neighbourhood", {"params": {"limit": 25}}),
    (call("neighbourhood", "t1", 10), "GET", "/v1/memories/t1/neighbourhood", {"params": {"limit": 10}}),
    (call("consolidation_report"),
     "GET", "/v1/consolidation", {"params": {"runs": 20, "schemas": 20, "members": 10, "contradictions": 50}}),
    (call("consolidation_report", 1, 2, 3, 4),
     "GET", "/v1/consolidation", {"params": {"runs": 1, "schemas": 2, "members": 3, "contradictions": 4}}),
    (call("memory_stats"), "GET", "/v1/stats", {"params": {}}),
    (call("consolidate"), "POST", "/v1/admin/consolidate", {"json": {}}),
    (call("stats"), "GET", "/v1/admin/stats", {"params": {}}),
    (call("repair"), "POST", "/v1/admin/repair", {"json": {"reembed": False}}),
    (call("repair", True), "POST", "/v1/admin/repair", {"json": {"reembed": True}}),
]


def first_send(name: str, *args: Any, **kwargs: Any) -> Send:
    """The first request method `name`'s plan makes, with no server: the plan stops at it."""
    send = next(plans_of(RemoteMethods)[name](RemoteMethods(), *args, **kwargs))
    assert isinstance(send, Send)
    return send


@pytest.mark.parametrize(("made", "method", "path", "options"), SENT,
                         ids=[f"{made[0]}-{i}" for i, (made, *_) in enumerate(SENT)])
def test_each_method_sends_what_it_sent_when_written_by_hand(made: tuple[str, tuple[Any, ...], dict[str, Any]],
                                                             method: str, path: str, options: dict[str, Any]) -> None:
    name, args, kwargs = made
    send = first_send(name, *args, **kwargs)
    prepared = prepare(send.op, send.args)
    assert (prepared.method, prepared.path) == (method, path)
    assert json.loads(json.dumps(prepared.options)) == options  # as the transport encodes it
    assert all(isinstance(value, str | int | float | bool | list | dict | None) for value in (send.args or {}).values())


def test_every_generated_method_is_among_the_calls() -> None:
    assert {made[0] for made, *_ in SENT} >= set(plans_of(OperationMethods))


def test_a_text_is_one_item_where_the_model_marks_one_and_refused_where_it_does_not() -> None:
    """`events`, like `ids` and `on_keywords`, takes one text for a list of one (`Given.ONE`), as
    the facade does; `tags` does not, so a text goes as given and the model refuses it, as in process."""
    assert first_send("assemble_for_prompt", "q", events="lunch").args["events"] == ["lunch"]
    sent = first_send("update", "t1", tags="urgent").args
    assert sent["tags"] == "urgent"
    with pytest.raises(ValueError, match="tags"):
        checked_arguments("update", {"trace_id": "t1", "tags": "urgent"})


def test_a_bad_moment_or_filter_is_refused_before_anything_is_sent() -> None:
    with pytest.raises(ValueError, match="as_of"):
        first_send("retrieve", "q", as_of=datetime(2026, 1, 31))  # naive: no zone
    with pytest.raises(ValueError, match="created_at"):
        first_send("encode", "x", created_at="yesterday")
    with pytest.raises(ValueError, match="where.colour"):
        first_send("multi_hop", "q", where={"colour": 1})


def test_an_argument_s_conversion_is_chosen_by_its_field_s_type() -> None:
    remind = OPERATIONS["remind"].args.model_fields
    assert arguments.converter_for(remind["at"].annotation) is arguments.epoch_ms
    assert arguments.converter_for(remind["every"].annotation) is arguments.milliseconds
    assert arguments.converter_for(remind["on_keywords"].annotation) is arguments.one_or_many
    assert arguments.converter_for(remind["scope"].annotation) is arguments.enum_value
    assert arguments.converter_for(remind["content"].annotation) is None
    pin = OPERATIONS["pin"].args.model_fields["ids"]  # required: pydantic lifts the mark onto the field
    assert arguments.converter_for(pin.annotation, pin.metadata) is arguments.one_or_many
    assert arguments.converted("remember", {"created_at": WHEN, "tags": ("a",), "colour": "red"}) == {
        "created_at": WHEN_MS, "tags": ["a"], "colour": "red"}  # an unknown field goes as given, for the model


# ---------------------------------------------------------------- what each method returns

TRACE = MemoryTrace(id="t1", scope_id="u1", agent_id="a1", content="a fact").model_dump(mode="json")
INTENTION = {"id": "pm_1", "scope_key": "user:u1", "agent_id": "a1", "content": "call mum", "kind": "time_based",
             "trigger_at": 5, "keywords": ["desk"], "next_fire_at": 5}
RECORD = {"trace": TRACE, "state": "active", "version": 2, "superseded_by": ["t0"], "updated_by": "a1"}
SCORED = {"trace": TRACE, "score": 0.5, "signals": {"relevance": 0.5}, "sources": ["dense"], "composition": None}
ANSWERS: dict[str, Any] = {  # by operation: a server's answer
    "remember": TRACE,
    "recall": {"query": "who", "traces": [SCORED], "partial": [], "strategy": "full", "intent": "fact",
               "parts": ["who"], "as_of": None, "timeline": False, "gated": False},
    "context": {"text": "## Facts", "tokens_used": 3, "token_budget": 100, "sections": {"facts": 3},
                "trace_ids": ["t1"], "reminders": [{"intention": INTENTION, "fired_at": 6,
                                                    "matched_keywords": ["desk"], "similarity": None}]},
    "remind": INTENTION, "reminders": [INTENTION], "cancel_reminder": {"cancelled": True},
    "pin": {"pinned": ["t1"]}, "unpin": {"unpinned": ["t1"]}, "users": {"users": ["u1", "u2"]},
    "get": RECORD, "update": RECORD, "history": [RECORD, RECORD], "list": {"items": [RECORD], "cursor": "c2"},
    "forget": {"forgotten": ["t1"], "not_found": ["t9"], "skipped_pinned": [], "counts": {"traces": 1},
               "compacted": False},
    "erase": {"user": "u1", "scope_keys": ["user:u1"], "counts": {"traces": 2}, "compacted": True},
}


def result_of(name: str, *args: Any) -> Any:
    steps = plans_of(RemoteMethods)[name](RemoteMethods(), *args)
    send = next(steps)
    with pytest.raises(StopIteration) as done:
        steps.send(ANSWERS.get(send.op, {"op": send.op}))
    return done.value.value


def test_each_method_reads_its_answer_into_the_result_it_returned_when_written_by_hand() -> None:
    assert result_of("encode", "x").id == "t1"
    recalled = result_of("retrieve", "who")
    assert (type(recalled).__name__, recalled.traces[0].trace.id, recalled.parts) == ("RetrievalResult", "t1", ("who",))
    context = result_of("assemble_for_prompt", "q")
    assert type(context).__name__ == "AssembledContext" and context.reminders[0].intention.keywords == ("desk",)
    assert type(result_of("remind", "c")).__name__ == "Intention"
    assert [type(i).__name__ for i in result_of("reminders")] == ["Intention"]
    assert result_of("cancel_reminder", "r1") is True
    assert (result_of("pin", "t1"), result_of("unpin", "t1"), result_of("users")) == (["t1"], ["t1"], ["u1", "u2"])
    for name in ("get", "update"):
        record = result_of(name, "t1")
        assert (type(record).__name__, record.version, record.superseded_by) == ("MemoryRecord", 2, ("t0",))
    assert [r.version for r in result_of("history", "t1")] == [2, 2]
    page = result_of("list")
    assert (type(page).__name__, page.cursor, len(page.items)) == ("MemoryPage", "c2", 1)
    assert type(result_of("forget", "t1")).__name__ == "ForgetReceipt"
    assert type(result_of("erase", "u1")).__name__ == "EraseReceipt"
    assert result_of("stats") == {"op": "stats"}, "a JSON answer is the result as it is"
    assert result_of("observe", "user", "hi") == {"op": "observe"}
    assert result_of("neighbourhood", "t1") == {"op": "memory"}
