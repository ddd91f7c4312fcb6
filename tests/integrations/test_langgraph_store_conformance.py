"""LangGraph's store contract, case by case, against LangGraph's own `InMemoryStore` (the
control) and `CogmemStore` (on a `cg.open()` store and a `cg.open_async()` one), through the
sync methods and the async ones.

Each case drives a store through its public methods and returns what a caller observes.
The control must return the case's `expected` (so a case that no longer describes
LangGraph's behaviour fails on the control); `CogmemStore` must return the same, or, for a
listed difference, the `cogmem` result docs/integrations.md gives with its reason. Both
stores embed with cogmem's hashing embedder, so semantic cases rank the same texts alike.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base", reason="the langgraph extra is not installed")

from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore  # noqa: E402

import cogmem_graph as cg  # noqa: E402
from cogmem_graph.integrations.langgraph import CogmemStore  # noqa: E402
from cogmem_graph.providers.embedders import HashEmbedder  # noqa: E402

SAME = object()
"""A case's `cogmem` when CogmemStore must answer as the control does."""
DOCS = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


@dataclass(frozen=True)
class Case:
    name: str
    run: Callable[[Target], Any]
    expected: Any
    cogmem: Any = SAME

    @property
    def differs(self) -> bool:
        return self.cogmem is not SAME


CASES: list[Case] = []


def case(expected: Any, *, cogmem: Any = SAME) -> Callable[[Callable[[Target], Any]], Callable[[Target], Any]]:
    """Register a case: what the control returns, and CogmemStore's listed difference if any."""
    def register(run: Callable[[Target], Any]) -> Callable[[Target], Any]:
        CASES.append(Case(run.__name__, run, expected, cogmem))
        return run
    return register


class Target:
    """One store kind (the control or CogmemStore) called through one entry-point kind: the
    sync methods, or the async ones each awaited on a loop of its own."""

    def __init__(self, kind: str, mode: str, memory: cg.MemoryStore | cg.AsyncMemoryStore, uid: str,
                 fields: list[str] | None = None, stores: Iterator[int] | None = None) -> None:
        self.kind, self.mode, self.memory, self.uid = kind, mode, memory, uid
        self._stores = itertools.count() if stores is None else stores
        self.raw = self._new_store(fields)

    def _new_store(self, fields: list[str] | None) -> BaseStore:
        if self.kind == "reference":
            embedder = HashEmbedder()
            index: dict[str, Any] = {"dims": embedder.dim, "embed": lambda texts: embedder.embed(list(texts))}
            if fields is not None:
                index["fields"] = fields
            return InMemoryStore(index=index)
        n = next(self._stores)
        owner = {"every_user": True, "organization_id": f"org-{self.uid}-{n}"} if self.kind == "owner" else {}
        return CogmemStore(self.memory, agent_id=f"lg-{self.uid}-{n}",
                           index=None if fields is None else {"fields": fields}, **owner)

    def with_fields(self, fields: list[str]) -> Target:
        """Another empty store of the same kind, with these `index` fields."""
        return Target(self.kind, self.mode, self.memory, self.uid, fields, self._stores)

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self.mode == "sync":
            return getattr(self.raw, name)(*args, **kwargs)
        return asyncio.run(getattr(self.raw, "a" + name)(*args, **kwargs))

    def put(self, *args: Any, **kwargs: Any) -> None:
        return self._call("put", *args, **kwargs)

    def get(self, *args: Any, **kwargs: Any) -> Item | None:
        return self._call("get", *args, **kwargs)

    def delete(self, *args: Any) -> None:
        return self._call("delete", *args)

    def search(self, *args: Any, **kwargs: Any) -> list:
        return self._call("search", *args, **kwargs)

    def list_namespaces(self, **kwargs: Any) -> list[tuple[str, ...]]:
        return self._call("list_namespaces", **kwargs)

    def batch(self, ops: list) -> list:
        return self._call("batch", ops)

    def let_a_month_pass(self) -> None:
        """A month with nothing read: cogmem consolidates (what is unread fades); the control
        has nothing to run."""
        if self.kind == "reference":
            return
        self.memory.clock.advance(days=30)
        done = self.memory.consolidate()
        if asyncio.iscoroutine(done):
            asyncio.run(done)

    def tick(self) -> None:
        """Let time pass between two writes: the control reads the wall clock, cogmem its own."""
        if self.kind == "reference":
            time.sleep(0.002)
        else:
            self.memory.clock.advance(seconds=1)


def keys(items: list) -> list[str]:
    return [item.key for item in items]


def outcome(call: Callable[[], Any]) -> Any:
    """What a call returns, or the name of the error it raises."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - the error's kind is the observation
        return ("raises", type(exc).__name__)


# ---------------------------------------------------------------- put, get, delete


@case((True, True, True, True, None, None, True))
def put_then_get_returns_the_value_and_its_times(t: Target) -> tuple:
    value = {"text": "Ada prefers tea", "n": 3, "ok": True, "none": None, "rows": [{"k": "v"}],
             "nested": {"a": [1, 2.5, "x"]}, "été": "ünïcödé"}
    t.put(("prefs",), "ada", value)
    item = t.get(("prefs",), "ada")
    [found] = t.search(("prefs",))
    return (item.value == value, (item.namespace, item.key) == (("prefs",), "ada"),
            0 <= (item.updated_at - item.created_at).total_seconds() < 1
            and item.created_at.utcoffset().total_seconds() == 0,
            (found.created_at, found.updated_at, found.value) == (item.created_at, item.updated_at, value),
            t.get(("prefs",), "nobody"), t.get(("other",), "ada"), found.score is None)


@case(({"text": "second", "v": 2}, [{"text": "second", "v": 2}]))
def putting_a_key_again_replaces_its_value(t: Target) -> tuple:
    t.put(("u",), "k", {"text": "first", "v": 1})
    t.put(("u",), "k", {"text": "second", "v": 2})
    return t.get(("u",), "k").value, [i.value for i in t.search(("u",))]


@case((True, False), cogmem=(True, True))
def an_update_moves_updated_at_and_keeps_created_at(t: Target) -> tuple:
    """(updated_at moved, created_at kept): the control stamps both times on every put."""
    t.put(("u",), "k", {"text": "first"})
    first = t.get(("u",), "k")
    t.tick()
    t.put(("u",), "k", {"text": "second"})
    second = t.get(("u",), "k")
    return second.updated_at > first.updated_at, second.created_at == first.created_at


@case((None, [], None, {"text": "again"}))
def delete_removes_the_item_and_a_missing_key_is_no_error(t: Target) -> tuple:
    t.put(("d",), "k", {"text": "gone soon"})
    t.put(("d",), "keep", {"text": "stays"})
    t.delete(("d",), "k")
    got = t.get(("d",), "k")
    found = [i for i in t.search(("d",)) if i.key == "k"]
    missing = t.delete(("d",), "never-there")
    t.put(("d",), "k", {"text": "again"})
    return got, found, missing, t.get(("d",), "k").value


@case((["raises", "InvalidNamespaceError"], {"doc": 1}, {"doc": 1}, [{"doc": 1}], None))
def the_langgraph_root_label_is_refused_by_put_only(t: Target) -> tuple:
    refused = list(outcome(lambda: t.put(("langgraph", "x"), "k", {"doc": 1})))
    t.batch([PutOp(("langgraph", "x"), "k", {"doc": 1})])
    through_batch = t.get(("langgraph", "x"), "k").value
    t.put(("foo", "langgraph", "foo"), "k", {"doc": 1})
    inner = t.get(("foo", "langgraph", "foo"), "k").value
    found = [i.value for i in t.search(("foo", "langgraph", "foo"))]
    t.delete(("foo", "langgraph", "foo"), "k")
    return refused, through_batch, inner, found, t.get(("foo", "langgraph", "foo"), "k")


INVALID_NAMESPACES = [("foo.bar",), ("foo\x00",), ("foo", ""), (123,)]


@case([("raises", "InvalidNamespaceError")] * (len(INVALID_NAMESPACES) * 6 + 1))
def invalid_namespace_labels_are_refused_by_every_method(t: Target) -> list:
    calls = [call for ns in INVALID_NAMESPACES for call in (
        lambda ns=ns: t.put(ns, "k", {"v": 1}), lambda ns=ns: t.get(ns, "k"), lambda ns=ns: t.delete(ns, "k"),
        lambda ns=ns: t.search(ns), lambda ns=ns: t.list_namespaces(prefix=ns),
        lambda ns=ns: t.list_namespaces(suffix=ns))]
    calls.append(lambda: t.put((), "k", {"v": 1}))
    return [outcome(call) for call in calls]


@case(["1", "2", "3", "4", "5"])
def non_ascii_text_is_stored_and_found(t: Target) -> list:
    texts = ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"]
    for n, text in enumerate(texts, 1):
        t.put(("user_123", "memories"), str(n), {"text": text})
    return [t.search(("user_123", "memories"), query=text)[0].key for text in texts]


# ---------------------------------------------------------------- search: prefixes and paging


@case(({("a",), ("a", "b"), ("a", "c", "d")}, 12, True, True, 16))
def a_prefix_search_pages_through_the_same_listing(t: Target) -> tuple:
    for ns in [("a",), ("a", "b"), ("ab",), ("a", "c", "d")]:
        for i in range(4):
            t.put(ns, f"k{i}", {"i": i, "even": i % 2 == 0})

    def found(items: list) -> list[tuple[tuple[str, ...], str]]:
        return [(item.namespace, item.key) for item in items]

    full = found(t.search(("a",), limit=100))
    paged = [k for offset in range(0, len(full), 5) for k in found(t.search(("a",), limit=5, offset=offset))]
    even = found(t.search(("a",), filter={"even": True}, limit=100))
    even_page = found(t.search(("a",), filter={"even": True}, limit=3, offset=2))
    return ({ns for ns, _ in full}, len(full), paged == full, even_page == even[2:5],
            len(t.search((), limit=100)))


@case((10, 12, [], 2))
def search_returns_ten_items_unless_told_otherwise(t: Target) -> tuple:
    for i in range(12):
        t.put(("many",), f"k{i:02d}", {"text": f"entry {i}"})
    return (len(t.search(("many",))), len(t.search(("many",), limit=20)),
            t.search(("many",), offset=12), len(t.search(("many",), limit=2, offset=10)))


@case((["k0", "k1", "k2"], ["k0", "k1", "k2"]), cogmem=(["k2", "k1", "k0"], ["k1", "k2", "k0"]))
def a_search_without_a_query_lists_in_a_stable_order(t: Target) -> tuple:
    """The control lists in insertion order, an update keeping its place; cogmem lists
    newest first, an update counting as new."""
    for i in range(3):
        t.put(("o",), f"k{i}", {"text": f"entry {i}"})
        t.tick()
    before = keys(t.search(("o",)))
    t.put(("o",), "k1", {"text": "entry 1, updated"})
    return before, keys(t.search(("o",)))


@case([("tenant", "a_%")])
def labels_with_pattern_characters_are_matched_literally(t: Target) -> list:
    t.put(("tenant", "a_%"), "key", {"v": 1})
    t.put(("tenant", "ab"), "key", {"v": 1})
    t.put(("tenant", "a_%x"), "key", {"v": 1})
    return [item.namespace for item in t.search(("tenant", "a_%"))]


# ---------------------------------------------------------------- search: filters


FILTER_ROWS = {
    "r1": {"kind": "report", "score": 4.5, "tags": ["a", "b"], "meta": {"lang": "en", "n": 1,
                                                                     "deep": {"level": 3}}, "owner": "ann"},
    "r2": {"kind": "report", "score": 2, "tags": ["b"], "meta": {"lang": "fr", "n": 2, "deep": {"level": 1}},
           "owner": None},
    "n1": {"kind": "note", "score": 9, "tags": ["a"], "meta": {"lang": "en", "n": 3, "deep": {"level": 3}},
           "done": True},
}
FILTERS: list[tuple[dict[str, Any], list[str]]] = [
    ({"kind": "report"}, ["r1", "r2"]),
    ({"kind": {"$eq": "note"}}, ["n1"]),
    ({"kind": {"$ne": "report"}}, ["n1"]),
    ({"score": {"$gt": 3}}, ["n1", "r1"]),
    ({"score": {"$gte": 4.5}}, ["n1", "r1"]),
    ({"score": {"$lt": 4.5}}, ["r2"]),
    ({"score": {"$lte": 4.5}}, ["r1", "r2"]),
    ({"score": {"$gt": 2, "$lt": 9}}, ["r1"]),
    ({"kind": "report", "score": {"$gt": 3}}, ["r1"]),
    ({"score": 2.0}, ["r2"]),
    ({"meta": {"lang": "en"}}, ["n1", "r1"]),
    ({"meta": {"n": {"$gte": 2}}}, ["n1", "r2"]),
    ({"meta": {"lang": "en", "n": {"$lt": 3}}}, ["r1"]),
    ({"meta": {"deep": {"level": 3}}}, ["n1", "r1"]),
    ({"meta": {"deep": {"level": {"$lt": 3}}}}, ["r2"]),
    ({"tags": ["b"]}, ["r2"]),
    ({"tags": ["a", "b"]}, ["r1"]),
    ({"owner": None}, ["n1", "r2"]),
    ({"done": True}, ["n1"]),
    ({"kind": "memo"}, []),
    ({"nowhere": 1}, []),
]


@case([keys for _, keys in FILTERS] * 2)
def filters_match_values_operators_and_nested_fields(t: Target) -> list:
    for key, value in FILTER_ROWS.items():
        t.put(("docs",), key, value)
    listed = [sorted(keys(t.search(("docs",), filter=f))) for f, _ in FILTERS]
    ranked = [sorted(keys(t.search(("docs",), query="report note", filter=f))) for f, _ in FILTERS]
    return listed + ranked


@case([("raises", "TypeError"), ("raises", "ValueError"), ["five"], ["flag"]],
      cogmem=[["five"], ["five"], [], []])
def a_range_holds_between_numbers_only(t: Target) -> list:
    """The control converts both sides to float: a missing field raises, text raises unless
    it spells a number, and true counts as 1; cogmem compares numbers with numbers and text
    with text, and a range holds for nothing else."""
    t.put(("r", "n"), "five", {"n": 5, "name": "carl"})
    t.put(("r", "n"), "flag", {"n": True, "name": "ann"})
    t.put(("r",), "none", {"name": "bob"})
    return [outcome(lambda p=p, f=f: sorted(keys(t.search(p, filter=f)))) for p, f in (
        (("r",), {"n": {"$gt": 1.5}}), (("r", "n"), {"name": {"$gt": "b"}}), (("r", "n"), {"n": {"$gt": "3"}}),
        (("r", "n"), {"n": {"$lt": 2}}))]


# ---------------------------------------------------------------- search by meaning


@case((2, "doc1", 2, "doc2", {"doc1", "doc3", "doc4"}, ["doc3"]))
def a_query_ranks_within_the_filtered_items(t: Target) -> tuple:
    docs = {"doc1": {"text": "red apple", "color": "red", "score": 4.5},
            "doc2": {"text": "red car", "color": "red", "score": 3.0},
            "doc3": {"text": "green apple", "color": "green", "score": 4.0},
            "doc4": {"text": "blue car", "color": "blue", "score": 3.5}}
    for key, value in docs.items():
        t.put(("test",), key, value)
    apple = t.search(("test",), query="apple", filter={"color": "red"})
    car = t.search(("test",), query="car", filter={"color": "red"})
    high = t.search(("test",), query="blue", filter={"score": {"$gt": 3.2}})
    both = t.search(("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    return len(apple), apple[0].key, len(car), car[0].key, set(keys(high)), keys(both)


@case((["match"], True, True))
def a_query_scores_every_item_best_first(t: Target) -> tuple:
    for i in range(4):
        t.put(("test",), f"other{i}", {"text": f"zzz qqq {i}"})
    t.put(("test",), "match", {"text": "apple pie"})
    results = t.search(("test",), query="apple pie")
    scores = [r.score for r in results]
    return (keys(t.search(("test",), query="apple pie", limit=1)),
            all(isinstance(s, float) for s in scores), scores == sorted(scores, reverse=True))


@case((True, "doc3"))
def an_item_is_found_by_its_text_whichever_field_holds_it(t: Target) -> tuple:
    docs = [("doc1", {"text": "short text"}), ("doc2", {"text": "longer text document"}),
            ("doc3", {"text": "longest text document here"}), ("doc4", {"description": "text in description"}),
            ("doc5", {"content": "text in content field"}), ("doc6", {"body": "text in body field"})]
    for key, value in docs:
        t.put(("test",), key, value)
    found = keys(t.search(("test",), query="longest text document here"))
    return {"doc2", "doc3"} <= set(found), found[0]


@case((2, 2, True, 5))
def a_query_pages_with_limit_and_offset(t: Target) -> tuple:
    for i in range(5):
        t.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    first = keys(t.search(("test",), query="test document", limit=2))
    second = keys(t.search(("test",), query="test document", limit=2, offset=2))
    everything = keys(t.search(("test",), query="test document", limit=10))
    return len(first), len(second), not set(first) & set(second), len(set(everything))


@case(("doc1", True, True, False))
def an_update_is_found_by_its_new_text(t: Target) -> tuple:
    t.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    t.put(("test",), "doc2", {"text": "something about dogs"})
    t.put(("test",), "doc3", {"text": "text about birds"})
    initial = t.search(("test",), query="zany zebra Xerxes")
    t.put(("test",), "doc1", {"text": "new text about dogs"})
    after = next((r.score for r in t.search(("test",), query="zany zebra Xerxes") if r.key == "doc1"), 0.0)
    new = next(r.score for r in t.search(("test",), query="new text about dogs") if r.key == "doc1")
    t.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    top = keys(t.search(("test",), query="new text about dogs", limit=3))
    return initial[0].key, after < initial[0].score, new > after, "doc4" in top


@case((["shown", "hidden"], [True, False], ["shown"], ["hidden", "shown"], {"text": "The zebra crossing"}))
def an_item_put_with_index_false_is_listed_but_not_ranked(t: Target) -> tuple:
    t.put(("i",), "hidden", {"text": "The zebra crossing"}, index=False)
    t.put(("i",), "shown", {"text": "The bakery opens at seven"})
    ranked = t.search(("i",), query="The zebra crossing")
    return (keys(ranked), [r.score is not None for r in ranked],
            keys(t.search(("i",), query="The zebra crossing", limit=1)), sorted(keys(t.search(("i",)))),
            t.get(("i",), "hidden").value)


@case(("doc2", True, "doc3", "doc4", [True, True, False]))
def index_fields_choose_what_an_item_is_found_by(t: Target) -> tuple:
    """The store's fields, a put's own fields over them, and index=False."""
    s = t.with_fields(["key0", "key1", "key3"])
    s.put(("test",), "doc1", {"key1": "xxx", "key2": "yyy", "key3": "zzz"})
    s.put(("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"})
    uuu = s.search(("test",), query="uuu")
    other = t.with_fields(["key17"])
    other.put(("test",), "doc3", {"key0": "aaa", "key1": "bbb", "key2": "ccc"}, index=["key0", "key1"])
    other.put(("test",), "doc4", {"key0": "eee", "key1": "bbb", "key3": "ggg"}, index=["key1", "key3"])
    aaa, ggg = other.search(("test",), query="aaa"), other.search(("test",), query="ggg")
    other.put(("test",), "doc5", {"key0": "hhh", "key1": "iii"}, index=False)
    hhh = other.search(("test",), query="hhh")
    return (uuu[0].key, uuu[0].score > uuu[1].score, aaa[0].key, ggg[0].key,
            [r.score is not None for r in sorted(hhh, key=lambda r: r.key)])


@case((True, True, True), cogmem=(False, False, False))
def each_indexed_field_is_matched_on_its_own(t: Target) -> tuple:
    """Whether a query for one field's text ties the items holding it: the control embeds each
    field apart and scores an item by its best field; cogmem embeds an item's fields as one
    text, so the item whose other fields say less matches better."""
    s = t.with_fields(["key0", "key1", "key3"])
    s.put(("test",), "doc1", {"key1": "xxx", "key3": "zzz"})
    s.put(("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key3": "xxx"})
    s.put(("test",), "doc3", {"key0": "xxx"})
    xxx = {r.key: r.score for r in s.search(("test",), query="xxx")}
    other = t.with_fields(["key17"])
    other.put(("test",), "doc4", {"key0": "aaa", "key1": "bbb"}, index=["key0", "key1"])
    other.put(("test",), "doc5", {"key1": "bbb", "key3": "ggg"}, index=["key1", "key3"])
    bbb = other.search(("test",), query="bbb")
    return (xxx["doc1"] == pytest.approx(xxx["doc2"], abs=1e-5), xxx["doc2"] == pytest.approx(xxx["doc3"], abs=1e-5),
            bbb[0].score == pytest.approx(bbb[1].score, abs=1e-5))


@case(([False, True], ["scored"]))
def an_item_without_text_at_the_index_fields_is_not_ranked(t: Target) -> tuple:
    s = t.with_fields(["title"])
    s.put(("f",), "bare", {"body": "no title here, only a body"})
    s.put(("f",), "scored", {"title": "a title"})
    found = sorted(s.search(("f",), query="a title"), key=lambda r: r.key)
    return [r.score is not None for r in found], keys(s.search(("f",), query="a title", limit=1))


# ---------------------------------------------------------------- TTL


@case((False, ("raises", "NotImplementedError"), None, {"v": 1}))
def a_ttl_on_put_is_refused_by_a_store_without_ttl(t: Target) -> tuple:
    refused = outcome(lambda: t.put(("ttl",), "k", {"v": 1}, ttl=5))
    stored = t.get(("ttl",), "k")
    t.put(("ttl",), "k", {"v": 1}, ttl=None)
    return t.raw.supports_ttl, refused, stored, t.get(("ttl",), "k").value


@case({"v": 1}, cogmem=("raises", "NotImplementedError"))
def a_ttl_in_a_batch_put(t: Target) -> Any:
    """The control stores the item and drops the TTL; cogmem refuses the put, as `put` does."""
    return outcome(lambda: (t.batch([PutOp(("ttl",), "k", {"v": 1}, ttl=5)]), t.get(("ttl",), "k").value)[1])


@case((None, {"text": "an old note"}, ["k"], ["k"]))
def no_sweep_removes_an_item(t: Target) -> tuple:
    """Neither store expires items: only a delete removes one."""
    t.put(("sweep",), "k", {"text": "an old note"})
    t.let_a_month_pass()
    return (t.raw.ttl_config, t.get(("sweep",), "k").value, keys(t.search(("sweep",))),
            keys(t.search(("sweep",), query="an old note")))


@case(({"text": "kept"}, {"text": "kept"}, ["k"], ["k"], ["k"]))
def refresh_ttl_changes_no_result(t: Target) -> tuple:
    t.put(("ttl",), "k", {"text": "kept"})
    return (t.get(("ttl",), "k", refresh_ttl=False).value, t.get(("ttl",), "k", refresh_ttl=True).value,
            keys(t.search(("ttl",), refresh_ttl=False)), keys(t.search(("ttl",), query="kept", refresh_ttl=False)),
            keys(t.search(("ttl",), query="kept", refresh_ttl=True)))


# ---------------------------------------------------------------- batch


@case(({"text": "old"}, ["a", "b"], [("bt",)], None, None, {"text": "new"}, None))
def batch_returns_one_result_per_operation_in_order(t: Target) -> tuple:
    t.put(("bt",), "a", {"text": "old"})
    t.put(("bt",), "b", {"text": "other"})
    got, found, spaces, put, missing = t.batch([
        GetOp(("bt",), "a"), SearchOp(("bt",)), ListNamespacesOp(), PutOp(("bt",), "a", {"text": "new"}),
        GetOp(("bt",), "zzz")])
    t.batch([PutOp(("bt",), "b", {"text": "x"}), PutOp(("bt",), "b", None)])
    return got.value, sorted(keys(found)), spaces, put, missing, t.get(("bt",), "a").value, t.get(("bt",), "b")


@case((None, []), cogmem=({"text": "first"}, ["k"]))
def a_read_in_a_batch_after_a_write_to_its_key(t: Target) -> tuple:
    """The control answers a batch's reads before it applies the batch's writes; cogmem runs
    the operations in order, each seeing what the ones before it wrote."""
    _, got, found = t.batch([PutOp(("bo",), "k", {"text": "first"}), GetOp(("bo",), "k"), SearchOp(("bo",))])
    return None if got is None else got.value, keys(found)


# ---------------------------------------------------------------- list_namespaces


@case([
    [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")],
    [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")],
    [("a", "b", "f"), ("a", "c", "f")],
    [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")],
    [("a", "b", "c"), ("a", "b", "d", "e")],
    [("a", "b", "d", "i"), ("a", "b", "f")],
    [("a", "b", "f"), ("a", "c", "f")],
    [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")],
    [],
    [("users", "123")],
])
def list_namespaces_by_prefix_suffix_wildcard_depth_and_page(t: Target) -> list:
    for i, ns in enumerate([("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"),
                            ("a", "c", "f"), ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"),
                            ("admin", "users", "789")]):
        t.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    return [
        sorted(t.list_namespaces(prefix=("a", "b"))),
        sorted(t.list_namespaces(suffix=("f",))),
        sorted(t.list_namespaces(prefix=("a",), suffix=("f",))),
        sorted(t.list_namespaces(prefix=("a", "b"), max_depth=3)),
        t.list_namespaces(prefix=("a", "b"), limit=2),
        t.list_namespaces(prefix=("a", "b"), offset=2),
        sorted(t.list_namespaces(prefix=("a", "*", "f"))),
        sorted(t.list_namespaces(suffix=("*", "f"))),
        t.list_namespaces(prefix=("nonexistent",)),
        t.list_namespaces(prefix=("users", "123")),
    ]


@case([[("users", "123"), ("users", "456"), ("users", "789", "settings")], [("guests", "456", "preferences")],
       [], [("admin", "users", "settings", "789")],
       [("tenant", "a_%"), ("tenant", "b", "child")]])
def list_namespaces_with_wildcards(t: Target) -> list:
    for i, ns in enumerate([("users", "123"), ("users", "456"), ("users", "789", "settings"),
                            ("admin", "users", "789"), ("guests", "123"), ("guests", "456", "preferences")]):
        t.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    found = [sorted(t.list_namespaces(prefix=("users", "*"))), t.list_namespaces(suffix=("*", "preferences")),
             t.list_namespaces(prefix=("*", "users"), suffix=("*", "settings"))]
    t.put(("admin", "users", "settings", "789"), "foo", {"data": "some_val"})
    found.append(t.list_namespaces(prefix=("*", "users"), suffix=("settings", "*")))
    t.put(("tenant", "a_%"), "key", {"v": 1})
    t.put(("tenant", "b", "child"), "key", {"v": 1})
    found.append(sorted(t.list_namespaces(prefix=("tenant", "*"), suffix=("*",))))
    return found


@case([[("namespace", f"sub_{i:02d}") for i in range(0, 5)], [("namespace", f"sub_{i:02d}") for i in range(5, 10)],
       [("namespace", f"sub_{i:02d}") for i in range(10, 12)], []])
def list_namespaces_pages_in_sorted_order(t: Target) -> list:
    for i in reversed(range(12)):
        t.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": f"value_{i:02d}"})
    return [t.list_namespaces(prefix=("namespace",), limit=5, offset=offset) for offset in (0, 5, 10, 15)]


@case(([("a", "b"), ("a", "g"), ("h", "i")], [("a",), ("h",)], [("a", "b"), ("c", "d"), ("e", "f", "g")]))
def list_namespaces_truncates_to_max_depth(t: Target) -> tuple:
    for i, ns in enumerate([("a", "b", "c", "d"), ("a", "b", "c", "e"), ("a", "b", "f"), ("a", "g"),
                            ("h", "i", "j", "k")]):
        t.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    deep = t.list_namespaces(max_depth=2), t.list_namespaces(max_depth=1)
    other = t.with_fields(["data"])
    for i, ns in enumerate([("a", "b"), ("c", "d"), ("e", "f", "g")]):
        other.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    return (*deep, other.list_namespaces())


@case(([], [("x",)], [("x",), ("y",)], [("x",), ("y",)]), cogmem=([], [("x",)], [("x",)], [("x",)]))
def a_namespace_is_listed_while_it_holds_an_item(t: Target) -> tuple:
    """(empty store, one put, after a get under another namespace, after deleting that
    namespace's last item): the control lists a namespace once any get or put has named it,
    and keeps it after its items are gone; cogmem lists the namespaces that hold items."""
    empty = t.list_namespaces()
    t.put(("x",), "k", {"v": 1})
    one = t.list_namespaces()
    t.get(("y",), "k")
    touched = t.list_namespaces()
    t.put(("y",), "k", {"v": 1})
    t.delete(("y",), "k")
    return empty, one, touched, t.list_namespaces()


# ---------------------------------------------------------------- namespaces and scopes


@case((2, [("handbook",), ("memories", "u1")]), cogmem=(1, [("handbook",)]))
def a_read_without_a_user_sees_the_shared_namespaces(t: Target) -> tuple:
    """A user's namespace (`("memories", user_id)` by default) is that user's scope in cogmem:
    an unbound store reads it only under a prefix naming the user."""
    t.put(("memories", "u1"), "k", {"text": "the user's own"})
    t.put(("handbook",), "k", {"text": "the agent's shared"})
    return len(t.search(())), t.list_namespaces()


# ---------------------------------------------------------------- running the cases


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.mark.parametrize("conformance", CASES, ids=[c.name for c in CASES])
def test_the_reference_store_does_what_the_case_expects(conformance: Case, mode: str, memory, uid) -> None:
    """The control keeps each case honest: a case that stops describing LangGraph's store fails here."""
    assert conformance.run(Target("reference", mode, memory, uid)) == conformance.expected


@pytest.mark.parametrize("handle", ["sync-store", "async-store"])
@pytest.mark.parametrize("conformance", CASES, ids=[c.name for c in CASES])
def test_cogmem_store_does_the_same_or_the_listed_difference(conformance: Case, mode: str, handle: str, memory,
                                                             async_memory, uid) -> None:
    """On a memory store from `cg.open()` and on one from `cg.open_async()` alike."""
    want = conformance.cogmem if conformance.differs else conformance.expected
    store = memory if handle == "sync-store" else async_memory
    assert conformance.run(Target("cogmem", mode, store, uid)) == want


OWNER_CONFORMS = frozenset({"a_read_without_a_user_sees_the_shared_namespaces"})
"""The listed differences a store opened with `every_user=True` does not have."""


@pytest.mark.parametrize("handle", ["sync-store", "async-store"])
@pytest.mark.parametrize("conformance", CASES, ids=[c.name for c in CASES])
def test_cogmem_store_as_owner_does_the_same_or_the_listed_difference(conformance: Case, mode: str, handle: str,
                                                                      memory, async_memory, uid) -> None:
    """`CogmemStore(..., every_user=True)` (each store in an organization of its own, so that
    it reaches only its case's users): a read naming no user reaches every user's namespaces."""
    want = conformance.cogmem if conformance.differs and conformance.name not in OWNER_CONFORMS \
        else conformance.expected
    store = memory if handle == "sync-store" else async_memory
    assert conformance.run(Target("owner", mode, store, uid)) == want


def test_the_docs_list_every_difference_and_give_the_counts() -> None:
    """docs/integrations.md names each listed difference's case and states the counts."""
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    differing = [c.name for c in CASES if c.differs]
    missing = [name for name in differing if f"`{name}`" not in text]
    assert not missing, f"differences the docs do not list: {missing}"
    counts = re.search(r"(\d+) cases: the reference passes (\d+), `CogmemStore` passes (\d+) as the reference "
                       r"does and (\d+) as a listed difference", text)
    assert counts, "the docs state the conformance counts"
    assert tuple(map(int, counts.groups())) == (len(CASES), len(CASES), len(CASES) - len(differing),
                                                len(differing))
    owner = re.search(r"opened with `every_user=True`, it passes (\d+) as the reference does and (\d+) as a listed "
                      r"difference", text)
    assert owner, "the docs state the counts of a store opened with every_user=True"
    owner_differing = [name for name in differing if name not in OWNER_CONFORMS]
    assert tuple(map(int, owner.groups())) == (len(CASES) - len(owner_differing), len(owner_differing))
