"""`CogmemStore` does what LangGraph's stores are expected to do (put, get, update, delete,
prefix search with filters, limit and offset, ranking by meaning, namespace listing), on an
embedded memory store, and its items are memories: in the scope their namespace names,
with history, forgotten for good on delete, fading and merging like any memory."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime

import pytest

pytest.importorskip("langgraph.store.base", reason="the langgraph extra is not installed")

from langgraph.store.base import GetOp, InvalidNamespaceError, ListNamespacesOp, PutOp, SearchOp  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

from cogmem_graph.clock import MS_PER_SECOND  # noqa: E402
from cogmem_graph.filters import MemoryState  # noqa: E402
from cogmem_graph.integrations.langgraph import CogmemStore  # noqa: E402
from cogmem_graph.model import EdgeType, Hexaco  # noqa: E402
from cogmem_graph.providers.embedders import HashEmbedder  # noqa: E402
from tests.integrations.conftest import START_MS  # noqa: E402


@pytest.fixture
def lg(memory, uid) -> CogmemStore:
    """A store of its own agent: its shared namespaces are this test's alone."""
    return CogmemStore(memory, agent_id=f"lg-{uid}")


def keys(items) -> list[str]:
    return [item.key for item in items]


def reference() -> InMemoryStore:
    """LangGraph's own store, embedding with the same hashing embedder: the control."""
    embedder = HashEmbedder()
    return InMemoryStore(index={"dims": embedder.dim, "embed": lambda texts: embedder.embed(list(texts))})


def both(store: CogmemStore):
    """The same case against the reference store and `store`, in that order."""
    return reference(), store


# ---------------------------------------------------------------- put, get, update, delete


def test_put_then_get_returns_the_value_exactly_with_its_times(lg) -> None:
    value = {"content": "Ada prefers tea", "n": 3, "ok": True, "nested": {"a": [1, 2.5, "x"]}, "none": None,
             "rows": [{"k": "v"}], "text\u00e9": "\u00e9t\u00e9"}
    lg.put(("prefs",), "ada", value)
    item = lg.get(("prefs",), "ada")
    assert item is not None and item.value == value
    assert (item.namespace, item.key) == (("prefs",), "ada")
    assert item.created_at == item.updated_at == datetime.fromtimestamp(START_MS / 1000, tz=UTC)
    assert lg.get(("prefs",), "nobody") is None
    assert lg.get(("other",), "ada") is None, "a key belongs to its namespace"


def test_putting_a_key_again_makes_a_new_version_and_keeps_the_first(lg, memory) -> None:
    lg.put(("pets",), "dog", {"content": "The dog is named Biscuit"})
    memory.clock.advance(seconds=5)
    lg.put(("pets",), "dog", {"content": "The dog is named Rex", "since": 2024})
    item = lg.get(("pets",), "dog")
    assert item.value == {"content": "The dog is named Rex", "since": 2024}
    assert (item.updated_at - item.created_at).total_seconds() == 5, "created_at stays the first put's"
    versions = lg.history(("pets",), "dog")
    assert [(v.trace.content, v.state) for v in versions] == [
        ("The dog is named Biscuit", MemoryState.SUPERSEDED), ("The dog is named Rex", MemoryState.ACTIVE)]
    assert keys(lg.search(("pets",))) == ["dog"], "one item per key, whatever its versions"
    memory.clock.advance(seconds=5)
    lg.put(("pets",), "dog", {"content": "The dog is named Rex", "since": 2023})  # the same text
    assert lg.get(("pets",), "dog").value["since"] == 2023
    assert len(lg.history(("pets",), "dog")) == 2, "a value whose text is unchanged is corrected in place"


def test_delete_forgets_every_version_and_says_what_went(lg) -> None:
    lg.put(("pets",), "cat", {"content": "The cat is called Tom"})
    lg.put(("pets",), "cat", {"content": "The cat is called Felix"})
    receipt = lg.forget(("pets",), "cat")
    assert len(receipt.forgotten) == 2 and receipt.counts["traces"] == 2
    assert lg.get(("pets",), "cat") is None and lg.history(("pets",), "cat") == []
    assert lg.search(("pets",), query="cat called Felix") == []
    lg.delete(("pets",), "cat")  # deleting what is not there is no error
    assert lg.forget(("pets",), "cat").forgotten == []


def test_the_same_text_under_two_keys_is_two_items(lg) -> None:
    lg.put(("notes",), "a", {"content": "Standup is at nine"})
    lg.put(("notes",), "b", {"content": "Standup is at nine"})
    assert sorted(keys(lg.search(("notes",)))) == ["a", "b"]


def test_batch_runs_its_operations_in_order(lg) -> None:
    results = lg.batch([
        PutOp(("b",), "k", {"content": "first"}),
        GetOp(("b",), "k"),
        PutOp(("b",), "k", {"content": "second"}),
        SearchOp(("b",)),
        ListNamespacesOp(),
        PutOp(("b",), "k", None),
        GetOp(("b",), "k"),
    ])
    assert results[0] is None and results[1].value == {"content": "first"}
    assert [i.value for i in results[3]] == [{"content": "second"}]
    assert results[4] == [("b",)] and results[6] is None


# ---------------------------------------------------------------- search


def test_search_filters_on_value_fields(lg) -> None:
    rows = {"r1": {"kind": "report", "score": 4.5, "tags": ["a", "b"], "meta": {"lang": "en"}, "owner": "ann"},
            "r2": {"kind": "report", "score": 2, "tags": ["b"], "meta": {"lang": "fr"}, "owner": None},
            "n1": {"kind": "note", "score": 9, "tags": ["a"], "meta": {"lang": "en"}}}
    for key, value in rows.items():
        lg.put(("docs",), key, value)

    def found(**filter_) -> list[str]:
        return sorted(keys(lg.search(("docs",), filter=filter_)))

    assert found(kind="report") == ["r1", "r2"]
    assert found(kind="report", score={"$gt": 3}) == ["r1"]
    assert found(score={"$gte": 2, "$lt": 9}) == ["r1", "r2"]
    assert found(score={"$lte": 2}) == ["r2"]
    assert found(score=2.0) == ["r2"], "2 and 2.0 are one number"
    assert found(kind={"$ne": "report"}) == ["n1"]
    assert found(meta={"lang": "en"}) == ["n1", "r1"]
    assert found(tags=["b"]) == ["r2"], "a list matches the same list, not a member"
    assert found(owner=None) == ["n1", "r2"], "null matches a null or missing field"
    assert found(kind="memo") == []
    ranked = lg.search(("docs",), query="report", filter={"kind": "report", "score": {"$gt": 3}})
    assert keys(ranked) == ["r1"]


def test_search_pages_newest_first_with_limit_and_offset(lg, memory) -> None:
    for n in range(5):
        lg.put(("log",), f"e{n}", {"content": f"entry number {n}"})
        memory.clock.advance(MS_PER_SECOND)
    assert keys(lg.search(("log",), limit=2)) == ["e4", "e3"]
    assert keys(lg.search(("log",), limit=2, offset=2)) == ["e2", "e1"]
    assert keys(lg.search(("log",), limit=10, offset=4)) == ["e0"]
    assert lg.search(("log",), limit=0) == []
    assert len(lg.search(("log",), query="entry number", limit=3)) == 3
    assert len(lg.search(("log",), query="entry number", limit=3, offset=3)) == 2


def test_search_by_meaning_ranks_the_closest_first_with_scores(lg) -> None:
    lg.put(("facts",), "dog", {"content": "The user's dog is named Biscuit"})
    lg.put(("facts",), "tea", {"content": "The user drinks green tea every morning"})
    lg.put(("facts",), "car", {"content": "The user drives an old blue Volvo"})
    results = lg.search(("facts",), query="What is the name of the user's dog?")
    assert results[0].key == "dog"
    scores = [r.score for r in results]
    assert all(isinstance(s, float) for s in scores) and scores == sorted(scores, reverse=True)
    assert lg.search(("facts",), query="Which car does the user drive?", limit=1)[0].key == "car"


def test_a_search_by_meaning_is_a_recall_that_strengthens_what_it_finds(lg) -> None:
    lg.put(("facts",), "dog", {"content": "The user's dog is named Biscuit"})

    def recalled() -> int:
        return lg.history(("facts",), "dog")[-1].trace.retrieval_count

    lg.search(("facts",), query="the user's dog")
    assert recalled() == 1
    lg.search(("facts",), query="the user's dog", refresh_ttl=False)
    lg.search(("facts",))
    lg.get(("facts",), "dog")
    assert recalled() == 1, "listing, getting, or a search asked not to refresh, recall nothing"


def test_a_prefix_finds_its_namespace_and_those_below_only(lg) -> None:
    lg.put(("a",), "k", {"content": "top"})
    lg.put(("a", "b"), "k", {"content": "below"})
    lg.put(("ab",), "k", {"content": "a sibling whose name starts the same"})
    assert sorted(i.value["content"] for i in lg.search(("a",))) == ["below", "top"]
    assert [i.value["content"] for i in lg.search(("a", "b"))] == ["below"]
    assert len(lg.search(())) == 3


# ---------------------------------------------------------------- namespaces


def test_list_namespaces_by_prefix_suffix_depth_and_page(lg) -> None:
    for namespace in [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"),
                      ("a", "c", "f"), ("x", "y")]:
        lg.put(namespace, "k", {"content": "/".join(namespace)})
    assert lg.list_namespaces(prefix=("a", "b"), max_depth=3) == [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert lg.list_namespaces(prefix=("a", "b")) == [
        ("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert lg.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert lg.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert lg.list_namespaces(prefix=("a",), suffix=("*", "e")) == [("a", "b", "d", "e")]
    assert lg.list_namespaces(max_depth=1) == [("a",), ("x",)]
    assert lg.list_namespaces(limit=2, offset=1) == [("a", "b", "d", "e"), ("a", "b", "d", "i")]
    lg.delete(("x", "y"), "k")
    assert ("x", "y") not in lg.list_namespaces()


def test_list_namespaces_reads_a_bounded_number_of_memories(memory, uid) -> None:
    lg = CogmemStore(memory, agent_id=f"lg-{uid}", namespace_scan_limit=2)
    for n in range(3):
        lg.put(("n", str(n)), "k", {"content": f"item {n}"})
    with pytest.raises(ValueError, match="namespace_scan_limit"):
        lg.list_namespaces()


# ---------------------------------------------------------------- namespaces and scopes


def test_a_users_namespace_is_that_users_scope_and_others_are_the_agents(memory, uid) -> None:
    lg = CogmemStore(memory, agent_id=f"lg-{uid}")
    lg.put(("memories", f"ann-{uid}"), "k", {"content": "Ann's locker code is 4711"})
    lg.put(("handbook",), "k", {"content": "The office opens at eight"})
    ann = memory.agent(f"other-agent-{uid}", user_id=f"ann-{uid}")
    [ann_memory] = ann.list().items
    assert ann_memory.trace.scope_key == f"user:ann-{uid}" and ann_memory.trace.content == "Ann's locker code is 4711"
    [shared] = memory.agent(f"lg-{uid}").list().items
    assert shared.trace.scope_key == f"agent:lg-{uid}"
    assert [r.trace.content for r in ann.retrieve("locker code", top_k=3).traces] == ["Ann's locker code is 4711"], \
        "the item is a memory that user's other agents recall"


def test_a_store_bound_to_one_user_never_sees_another_users_items(memory, uid) -> None:
    ann, bob = f"ann-{uid}", f"bob-{uid}"
    agent_id = f"lg-{uid}"
    CogmemStore(memory, agent_id=agent_id).put(("memories", bob), "secret", {"content": "Bob's PIN is 1234"})
    lg = CogmemStore(memory, agent_id=agent_id, user_id=ann)
    lg.put(("memories", ann), "pet", {"content": "Ann's PIN is 9999"})

    assert lg.get(("memories", bob), "secret") is None
    assert lg.search(("memories", bob)) == [] and lg.search(("memories", bob), query="PIN") == []
    for prefix in [(), ("memories",)]:
        assert keys(lg.search(prefix, query="PIN")) == ["pet"]
        assert keys(lg.search(prefix)) == ["pet"]
    assert lg.list_namespaces() == [("memories", ann)]
    assert lg.list_namespaces(prefix=("memories", bob)) == []
    assert lg.history(("memories", bob), "secret") == []
    with pytest.raises(InvalidNamespaceError, match=f"belongs to user '{bob}'"):
        lg.put(("memories", bob), "secret", {"content": "overwritten"})
    with pytest.raises(InvalidNamespaceError, match="bound to user"):
        lg.delete(("memories", bob), "secret")
    assert CogmemStore(memory, agent_id=agent_id, user_id=bob).get(("memories", bob), "secret") is not None


def test_an_unbound_store_reads_a_users_items_only_under_a_prefix_naming_the_user(memory, uid) -> None:
    lg = CogmemStore(memory, agent_id=f"lg-{uid}")
    lg.put(("memories", f"ann-{uid}"), "k", {"content": "Ann likes jazz"})
    lg.put(("memories", f"bob-{uid}"), "k", {"content": "Bob likes jazz too"})
    assert lg.search(("memories",), query="jazz") == [] and lg.search(()) == []
    assert [i.value["content"] for i in lg.search(("memories", f"ann-{uid}"), query="jazz")] == ["Ann likes jazz"]
    assert lg.list_namespaces(prefix=("memories", f"bob-{uid}")) == [("memories", f"bob-{uid}")]


def test_one_user_id_in_two_organizations_is_two_users(memory, uid) -> None:
    acme = CogmemStore(memory, agent_id=f"lg-{uid}", organization_id=f"acme-{uid}")
    globex = CogmemStore(memory, agent_id=f"lg-{uid}", organization_id=f"globex-{uid}")
    acme.put(("memories", "u1"), "k", {"content": "The acme user's code word is falcon"})
    assert globex.get(("memories", "u1"), "k") is None and globex.search(("memories", "u1"), query="code word") == []
    owner = memory.agent("x", user_id="u1", organization_id=f"acme-{uid}")
    assert owner.list().items[0].trace.scope_key == f"user:acme-{uid}/u1"


def test_the_user_namespace_pattern_is_configurable(memory, uid) -> None:
    lg = CogmemStore(memory, agent_id=f"lg-{uid}", user_namespace=("{user_id}",))  # (user_id, "memories")
    lg.put((f"cy-{uid}", "memories"), "k", {"content": "Cy is left-handed"})
    assert memory.agent("anyone", user_id=f"cy-{uid}").list().items[0].trace.scope_key == f"user:cy-{uid}"
    assert keys(lg.search((f"cy-{uid}",))) == ["k"] and lg.search(()) == []


# ---------------------------------------------------------------- memories over time


def test_items_fade_but_a_key_survives_consolidation(store, clock) -> None:
    """Consolidation never merges an item's memory away: a key put stays gettable, searchable
    and updatable by key (LangMem updates by key), as in LangGraph's store."""
    text = "The printer on floor two jams on Mondays"
    control, plain = both(CogmemStore(store, agent_id="plain"))
    pinned = CogmemStore(store, agent_id="anchored", pinned=True)
    for key in "ab":
        for lg in (control, plain, pinned):
            lg.put(("notes",), key, {"content": text, "key": key})
        clock.advance(seconds=1)
    clock.advance(days=30)
    result = store.consolidate()
    assert result.merged == 0 and result.dormant >= 1
    assert plain.history(("notes",), "a")[-1].state is MemoryState.DORMANT, "unread, it faded"
    for lg in (control, plain):
        assert sorted(keys(lg.search(("notes",)))) == ["a", "b"]
        assert [lg.get(("notes",), k).value["key"] for k in "ab"] == ["a", "b"]
        assert sorted(keys(lg.search(("notes",), query=text))) == ["a", "b"]
        lg.put(("notes",), "b", {"content": "The printer on floor two now works", "key": "b"})
        assert lg.get(("notes",), "b").value["content"] == "The printer on floor two now works"
    assert {pinned.history(("notes",), k)[-1].state for k in "ab"} == {MemoryState.ACTIVE}


def test_other_memories_merge_into_an_item_and_the_key_keeps_it(store, clock) -> None:
    lg = CogmemStore(store, agent_id="keeper")
    text = "The printer on floor two jams on Mondays"
    agent = store.agent("keeper")
    agent.encode_many([{"content": text, "scope": "agent"}])  # older than the item, not keyed
    clock.advance(seconds=1)
    lg.put(("notes",), "printer", {"content": text})
    clock.advance(seconds=1)
    result = store.consolidate()
    assert result.merged == 1, "the plain memory merged into the item's, not the other way round"
    assert lg.get(("notes",), "printer").value == {"content": text}
    current = agent.list({"state": [MemoryState.ACTIVE, MemoryState.DORMANT]}).items
    assert [r.trace.metadata.get("langgraph", {}).get("key") for r in current] == ["printer"]


def test_a_contradiction_settled_at_night_leaves_the_item_gettable_and_marks_it_outdated(store, clock) -> None:
    """The newer memory wins a contradiction with an item, as with any memory: the item is
    then ranked below it and shown outdated, but its key is a key-value entry and stays
    gettable until it is put again or deleted."""
    lg = CogmemStore(store, agent_id="keeper")
    lg.put(("memories", "ana"), "home", {"content": "I live in Paris"})
    clock.advance(days=1)
    agent = store.agent("keeper", user_id="ana", traits=Hexaco(honesty=0.8))  # the newer side wins
    berlin = agent.encode("I moved to Berlin")
    paris = lg.history(("memories", "ana"), "home")[-1]
    assert any(e.type is EdgeType.CONTRADICTS and e.dst == paris.id
               for e in store.graph.get_edges([berlin.id], agent.visible_scope_keys))
    clock.advance(hours=1)
    store.consolidate()
    edges = store.graph.get_edges([berlin.id], agent.visible_scope_keys)
    assert any(e.type is EdgeType.SUPERSEDES and e.dst == paris.id for e in edges), "settled: Berlin won"
    item = lg.get(("memories", "ana"), "home")
    assert item is not None and item.value == {"content": "I live in Paris"}
    assert lg.history(("memories", "ana"), "home")[-1].state is not MemoryState.SUPERSEDED
    contents = [hit.trace.content for hit in agent.retrieve("Where do I live?", top_k=5).traces]
    assert contents.index("I moved to Berlin") < contents.index("I live in Paris")
    assert store.consolidate().conflicts_resolved == 0, "settled once, not read again every night"


# ---------------------------------------------------------------- what is indexed


def test_index_fields_choose_the_text_an_item_is_found_by(memory, uid) -> None:
    lg = CogmemStore(memory, agent_id=f"lg-{uid}", index={"fields": ["title", "body.summary"]})
    lg.put(("d",), "k1", {"title": "Quarterly revenue", "body": {"summary": "grew in Lisbon"}, "id": 7})
    lg.put(("d",), "k2", {"title": "Ignored title", "other": "the only words"}, index=["other"])
    lg.put(("d",), "k3", {"n": 1}, index=False)
    contents = {r.trace.metadata["langgraph"]["key"]: r.trace.content for r in memory.agent(f"lg-{uid}").list().items}
    assert contents == {"k1": "Quarterly revenue\ngrew in Lisbon", "k2": "the only words", "k3": '{"n": 1}'}
    plain = CogmemStore(memory, agent_id=f"plain-{uid}")
    plain.put(("d",), "k", {"content": "the content field", "text": "not this"})
    assert memory.agent(f"plain-{uid}").list().items[0].trace.content == "the content field"


# ---------------------------------------------------------------- async


def test_async_methods_run_the_same_operations(lg) -> None:
    async def scenario() -> tuple:
        await lg.aput(("a",), "k", {"content": "async put"})
        await asyncio.gather(*(lg.aput(("a",), f"k{n}", {"content": f"parallel {n}"}) for n in range(3)))
        got = await lg.aget(("a",), "k")
        found = await lg.asearch(("a",), query="async put", limit=1)
        spaces = await lg.alist_namespaces()
        await lg.adelete(("a",), "k")
        receipt = await lg.aforget(("a",), "k0")
        return got, found, spaces, await lg.aget(("a",), "k"), receipt, await lg.asearch(("a",))

    got, found, spaces, gone, receipt, rest = asyncio.run(scenario())
    assert got.value == {"content": "async put"} and found[0].key == "k" and spaces == [("a",)]
    assert gone is None and len(receipt.forgotten) == 1 and sorted(keys(rest)) == ["k1", "k2"]


# ---------------------------------------------------------------- bad input


def test_bad_input_is_refused_naming_the_argument(lg, memory) -> None:
    cases = [
        (lambda: lg.put(("a",), "k", ["not", "a", "dict"]), ValueError, "value must be a dict"),
        (lambda: lg.put(("a",), "k", {"x": float("nan")}), ValueError, "value must be JSON"),
        (lambda: lg.put(("a",), "", {"x": 1}), ValueError, "key must be"),
        (lambda: lg.put(("a",), "k", {"big": "x" * 70_000}), ValueError, "value is too large"),
        (lambda: lg.batch([PutOp(("a.b",), "k", {"x": 1})]), InvalidNamespaceError, "must not contain '.'"),
        (lambda: lg.batch([PutOp((), "k", {"x": 1})]), InvalidNamespaceError, "namespace must not be empty"),
        (lambda: lg.batch([GetOp(("*",), "k")]), InvalidNamespaceError, "list_namespaces only"),
        (lambda: lg.search(("a",), filter={"x": {"$in": [1]}}), ValueError, r"filter\['x'\]: unknown operator"),
        (lambda: lg.search(("a",), filter=["x"]), ValueError, "filter must be a dict"),
        (lambda: lg.search(("a",), limit=-1), ValueError, "limit must be"),
        (lambda: lg.search(("a",), query=3), ValueError, "query must be a string"),
        (lambda: lg.search(("a",), query="x", limit=2000), ValueError, "offset \\+ limit"),
        (lambda: lg.list_namespaces(max_depth=0), ValueError, "max_depth"),
        (lambda: lg.put(("a",), "k", {"x": 1}, ttl=5), NotImplementedError, "TTL"),
        (lambda: lg.batch([PutOp(("a",), "k", {"x": 1}, ttl=5)]), NotImplementedError, "decay"),
        (lambda: lg.put(("memories", "a/b"), "k", {"x": 1}), InvalidNamespaceError, "user_id"),
        (lambda: lg.batch(["get"]), ValueError, "ops must be"),
        (lambda: CogmemStore(memory, index={"dims": 3, "embed": None}), ValueError, "index takes 'fields' only"),
        (lambda: CogmemStore(memory, user_namespace=("memories",)), ValueError, "user_namespace must end"),
        (lambda: CogmemStore(memory, memory_type="dream"), ValueError, "memory_type must be one of"),
        (lambda: CogmemStore(memory, user_id="a/b"), InvalidNamespaceError, "user_id"),
        (lambda: CogmemStore("not a store"), ValueError, "memory must be a cogmem MemoryStore"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


# ---------------------------------------------------------------- as LangGraph's own store does


def test_an_unindexed_item_is_not_found_by_meaning(lg) -> None:
    text = "The zebra crossing on Elm Street is repainted"
    for store in both(lg):
        store.put(("i",), "hidden", {"content": text}, index=False)
        store.put(("i",), "shown", {"content": "The bakery on Elm Street opens at seven"})
        ranked = store.search(("i",), query=text)
        assert keys(ranked) == ["shown", "hidden"] and ranked[0].score is not None
        assert ranked[1].score is None, "unscored, after the ranked items"
        assert keys(store.search(("i",), query=text, limit=1)) == ["shown"]
        assert sorted(keys(store.search(("i",)))) == ["hidden", "shown"], "listing returns it"


def test_an_item_without_text_at_its_index_fields_is_not_found_by_meaning(lg) -> None:
    for store in both(lg):
        store.put(("n",), "bare", {"body": "The ferry leaves at noon"}, index=["title"])
        store.put(("n",), "titled", {"title": "The ferry timetable"}, index=["title"])
        found = store.search(("n",), query="The ferry leaves at noon")
        assert [(i.key, i.score is None) for i in found] == [("titled", False), ("bare", True)]


def test_items_that_match_a_query_equally_tie(lg, memory) -> None:
    for store in both(lg):
        store.put(("t",), "a", {"content": "The user likes green tea"})
        memory.clock.advance(seconds=1)
        store.put(("t",), "b", {"content": "The user likes green tea"})
        store.put(("t",), "c", {"content": "The car is blue"})
        found = store.search(("t",), query="green tea")
        assert sorted(keys(found[:2])) == ["a", "b"] and found[0].score == found[1].score > found[2].score


def test_an_empty_or_blank_query_lists(lg) -> None:
    control, store = both(lg)
    for s in (control, store):
        for n in range(2):
            s.put(("q",), f"k{n}", {"content": f"entry {n}"})
        found = s.search(("q",), query="")
        assert sorted(keys(found)) == ["k0", "k1"] and {i.score for i in found} == {None}
    for blank in ("   ", "\n"):
        assert sorted(keys(control.search(("q",), query=blank))) == ["k0", "k1"]
        found = store.search(("q",), query=blank)
        assert sorted(keys(found)) == ["k0", "k1"] and {i.score for i in found} == {None}, \
            "blanks are no query here (the reference embeds them and scores every item 0)"


def test_filters_with_infinities_and_nan_compare_as_langgraph_does(lg) -> None:
    cases = [{"n": {"$lt": math.inf}}, {"n": {"$gt": -math.inf}}, {"n": {"$gt": math.inf}},
             {"n": {"$gte": -math.inf, "$lte": 0}}, {"n": math.inf}, {"n": math.nan}, {"n": {"$eq": math.nan}},
             {"n": {"$gt": math.nan}}, {"n": {"$lte": math.nan}}, {"n": {"$ne": math.nan}}]
    control, store = both(lg)
    for s in (control, store):
        s.put(("f",), "pos", {"n": 5})
        s.put(("f",), "neg", {"n": -3.5})
    for filter_ in cases:
        expected = sorted(keys(control.search(("f",), filter=filter_)))
        assert sorted(keys(store.search(("f",), filter=filter_))) == expected, filter_
        assert sorted(keys(store.search(("f",), query="n", filter=filter_))) == expected, filter_
    assert store.search(("f",), filter={"n": math.nan}) == [], "NaN equals nothing"


def test_short_small_talk_items_are_found_by_their_own_text(lg) -> None:
    words = ["thanks!", "ok", "hello"]
    for store in both(lg):
        for word in words:
            store.put(("s",), word, {"content": word})
        for word in words:
            assert keys(store.search(("s",), query=word, limit=1)) == [word], word
    chat = lg.memory.agent(lg.agent_id)
    assert chat.retrieve("thanks!").traces == [], "an agent's retrieval still skips small talk"


def test_the_same_cases_run_through_the_async_methods(lg) -> None:
    async def scenario(store) -> tuple:
        await store.aput(("z",), "a", {"content": "The user likes green tea"})
        await store.aput(("z",), "b", {"content": "The user likes green tea"})
        await store.aput(("z",), "u", {"content": "never embedded"}, index=False)
        await store.aput(("z",), "ok", {"content": "ok"})
        tie = await store.asearch(("z",), query="green tea", limit=2)
        blank = await store.asearch(("z",), query="")
        small = await store.asearch(("z",), query="ok", limit=1)
        return ({i.key for i in tie}, tie[0].score == tie[1].score, sorted(keys(blank)), keys(small),
                (await store.aget(("z",), "u")).value)

    control, store = both(lg)
    assert asyncio.run(scenario(store)) == asyncio.run(scenario(control)) == (
        {"a", "b"}, True, ["a", "b", "ok", "u"], ["ok"], {"content": "never embedded"})
