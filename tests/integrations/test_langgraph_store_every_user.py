"""`CogmemStore(..., every_user=True)`: a store acting as the memory store's owner reads every
user's namespaces under a prefix that names no user, as LangGraph's `InMemoryStore` (the
control, embedding with the same hashing embedder) reads every namespace."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langgraph.store.base", reason="the langgraph extra is not installed")

from langgraph.store.base import BaseStore  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

import cogmem_graph as cg  # noqa: E402
from cogmem_graph.clock import MS_PER_SECOND  # noqa: E402
from cogmem_graph.integrations.langgraph import CogmemStore  # noqa: E402
from cogmem_graph.providers.embedders import HashEmbedder  # noqa: E402

USERS = ["ann", "bob", "cy"]
ITEMS: list[tuple[tuple[str, ...], str, dict]] = [
    (("memories", "ann"), "pet", {"content": "Ann's dog is named Biscuit", "kind": "pet"}),
    (("memories", "ann", "profile"), "city", {"content": "Ann lives in Lisbon", "kind": "place"}),
    (("memories", "bob"), "pet", {"content": "Bob's cat is called Felix", "kind": "pet"}),
    (("memories", "bob"), "drink", {"content": "Bob drinks green tea every morning", "kind": "habit"}),
    (("memories", "cy", "profile"), "city", {"content": "Cy moved to Porto last spring", "kind": "place"}),
    (("handbook",), "hours", {"content": "The office opens at eight", "kind": "rule"}),
    (("docs", "v1"), "intro", {"content": "Version one of the onboarding guide", "kind": "doc"}),
    (("memories",), "policy", {"content": "Memories are kept for a year", "kind": "rule"}),
]


def reference() -> InMemoryStore:
    """LangGraph's own store, embedding with the same hashing embedder: the control."""
    embedder = HashEmbedder()
    return InMemoryStore(index={"dims": embedder.dim, "embed": lambda texts: embedder.embed(list(texts))})


def fill(store: BaseStore, memory: cg.MemoryStore | None = None) -> None:
    """The same items in both stores, one second apart on cogmem's clock."""
    for namespace, key, value in ITEMS:
        store.put(namespace, key, value)
        if memory is not None:
            memory.clock.advance(MS_PER_SECOND)


def found(items) -> set[tuple[tuple[str, ...], str]]:
    return {(item.namespace, item.key) for item in items}


@pytest.fixture
def both(store: cg.MemoryStore) -> tuple[InMemoryStore, CogmemStore]:
    """The control and an owner-mode store on a fresh memory store (each graph engine), filled alike."""
    control, owner = reference(), CogmemStore(store, agent_id="lg-owner", every_user=True)
    fill(control)
    fill(owner, store)
    return control, owner


LISTINGS = [
    {},
    {"prefix": ("memories",)},
    {"prefix": ("memories", "*")},
    {"prefix": ("memories", "bob")},
    {"suffix": ("profile",)},
    {"prefix": ("memories", "*"), "suffix": ("profile",)},
    {"max_depth": 2},
    {"max_depth": 1},
    {"limit": 3},
    {"limit": 3, "offset": 3},
    {"prefix": ("handbook",)},
]


def test_list_namespaces_lists_every_users_namespaces_as_the_control_does(both) -> None:
    control, owner = both
    assert owner.list_namespaces() == sorted({namespace for namespace, _, _ in ITEMS})
    for kwargs in LISTINGS:
        assert owner.list_namespaces(**kwargs) == control.list_namespaces(**kwargs), kwargs


def test_a_search_without_a_query_lists_every_users_items_as_the_control_does(both) -> None:
    control, owner = both
    for prefix in [(), ("memories",), ("memories", "ann"), ("handbook",)]:
        listed = owner.search(prefix, limit=50)
        assert found(listed) == found(control.search(prefix, limit=50)), prefix
        assert all(item.score is None for item in listed)


def test_the_listing_is_newest_first_across_users_and_pages_with_limit_and_offset(both) -> None:
    _, owner = both
    newest_first = [(namespace, key) for namespace, key, _ in reversed(ITEMS)]
    assert [(i.namespace, i.key) for i in owner.search((), limit=50)] == newest_first
    pages = [owner.search((), limit=3, offset=offset) for offset in (0, 3, 6, 9)]
    assert [(i.namespace, i.key) for page in pages for i in page] == newest_first
    assert [(i.namespace, i.key) for i in owner.search(("memories",), limit=2, offset=1)] == [
        item for item in newest_first if item[0][0] == "memories"][1:3]


def test_filters_apply_across_users_as_in_the_control(both) -> None:
    control, owner = both
    for flt, query in [({"kind": "pet"}, None), ({"kind": "place"}, None), ({"kind": {"$ne": "rule"}}, None),
                       ({"kind": "pet"}, "a pet named Biscuit or Felix"),
                       ({"kind": "place"}, "lives in Lisbon, Porto")]:
        assert found(owner.search((), filter=flt, query=query, limit=20)) == \
            found(control.search((), filter=flt, query=query, limit=20)), (flt, query)


QUERIES = [
    ("Bob's cat Felix", (("memories", "bob"), "pet")),
    ("Ann's dog named Biscuit", (("memories", "ann"), "pet")),
    ("Cy moved to Porto", (("memories", "cy", "profile"), "city")),
    ("when does the office open", (("handbook",), "hours")),
]


def test_a_search_by_meaning_ranks_across_users_by_match(both) -> None:
    control, owner = both
    for query, best in QUERIES:
        ranked = owner.search((), query=query, limit=20)
        reference_ranked = control.search((), query=query, limit=20)
        assert (ranked[0].namespace, ranked[0].key) == best == \
            (reference_ranked[0].namespace, reference_ranked[0].key), query
        assert found(ranked) <= found(reference_ranked), query
        scores = [item.score for item in ranked]
        assert all(score is not None for score in scores) and scores == sorted(scores, reverse=True)
        assert [(i.namespace, i.key) for i in owner.search((), query=query, limit=2, offset=1)] == \
            [(i.namespace, i.key) for i in ranked[1:3]], query


def test_an_items_score_across_users_does_not_depend_on_the_other_users(both) -> None:
    """Across users an item is scored by its embedding's cosine to the query: the same whether
    the read reaches one user's namespaces beside the shared ones or three."""
    _, owner = both
    wide = {(i.namespace, i.key): i.score for i in owner.search((), query="green tea every morning", limit=20)}
    owner.delete(("memories", "ann"), "pet")
    owner.delete(("memories", "ann", "profile"), "city")
    owner.delete(("memories", "cy", "profile"), "city")
    narrow = owner.search((), query="green tea every morning", limit=20)
    assert narrow[0].key == "drink" and {(i.namespace, i.key) for i in narrow} <= set(wide)
    assert all(wide[(i.namespace, i.key)] == pytest.approx(i.score) for i in narrow)


def test_writes_are_as_without_the_mode(both) -> None:
    _, owner = both
    owner.put(("memories", "dee"), "k", {"content": "Dee is new here"})
    assert owner.get(("memories", "dee"), "k").value == {"content": "Dee is new here"}
    assert ("memories", "dee") in owner.list_namespaces()
    owner.delete(("memories", "ann"), "pet")
    assert owner.get(("memories", "ann"), "pet") is None
    assert (("memories", "ann"), "pet") not in found(owner.search((), limit=50))


# ---------------------------------------------------------------- the bounds and the refusals


def test_every_user_with_user_id_is_refused_naming_both(memory) -> None:
    with pytest.raises(ValueError, match="every_user.*user_id"):
        CogmemStore(memory, every_user=True, user_id="ann")
    with pytest.raises(ValueError, match="every_user must be True or False"):
        CogmemStore(memory, every_user="yes")  # type: ignore[arg-type]
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="max_users_per_search must be a positive integer"):
            CogmemStore(memory, every_user=True, max_users_per_search=bad)  # type: ignore[arg-type]


def test_only_the_stores_organization_is_reached(memory, uid) -> None:
    acme, globex = f"acme-{uid}", f"globex-{uid}"
    agent_id = f"lg-{uid}"
    CogmemStore(memory, agent_id=agent_id, organization_id=acme).put(("memories", "u1"), "k", {"content": "acme u1"})
    CogmemStore(memory, agent_id=agent_id, organization_id=acme).put(("memories", "u2"), "k", {"content": "acme u2"})
    CogmemStore(memory, agent_id=agent_id, organization_id=globex).put(("memories", "u3"), "k",
                                                                       {"content": "globex u3"})
    CogmemStore(memory, agent_id=agent_id).put(("memories", f"loner-{uid}"), "k", {"content": "outside"})
    owner = CogmemStore(memory, agent_id=agent_id, organization_id=acme, every_user=True)
    assert owner.list_namespaces() == [("memories", "u1"), ("memories", "u2")]
    assert sorted(i.value["content"] for i in owner.search(())) == ["acme u1", "acme u2"]
    assert sorted(i.value["content"] for i in owner.search((), query="acme")) == ["acme u1", "acme u2"]
    assert memory.users(organization_id=acme) == ["u1", "u2"]
    assert memory.users(organization_id=globex) == ["u3"]
    assert f"loner-{uid}" in memory.users() and "u1" not in memory.users()


def test_a_search_reaching_more_users_than_the_cap_asks_for_a_prefix_naming_the_user(memory, uid) -> None:
    org = f"org-{uid}"
    owner = CogmemStore(memory, agent_id=f"lg-{uid}", organization_id=org, every_user=True, max_users_per_search=2)
    for user in USERS:
        owner.put(("memories", user), "k", {"content": f"{user} likes jazz"})
    for search in (lambda: owner.search((), query="jazz"), lambda: owner.search(("memories",))):
        with pytest.raises(ValueError, match=r"reach 3 users, more than the store's max_users_per_search \(2\).*"
                                             r"prefix naming the user, such as \('memories', '<user_id>'\)"):
            search()
    assert [i.value["content"] for i in owner.search(("memories", "bob"), query="jazz")] == ["bob likes jazz"]
    assert owner.search(("handbook",)) == []  # a prefix that leads to no user reaches none
    assert len(owner.list_namespaces()) == 3  # listing is bounded by the namespace scan instead


def test_the_namespace_scan_limit_counts_every_users_memories(memory, uid) -> None:
    org = f"org-{uid}"
    owner = CogmemStore(memory, agent_id=f"lg-{uid}", organization_id=org, every_user=True, namespace_scan_limit=2)
    owner.put(("handbook",), "k", {"content": "shared"})
    owner.put(("memories", "ann"), "k", {"content": "Ann's"})
    assert owner.list_namespaces() == [("handbook",), ("memories", "ann")]
    owner.put(("memories", "bob"), "k", {"content": "Bob's"})
    with pytest.raises(cg.NamespaceScanTooLarge, match="namespace_scan_limit"):
        owner.list_namespaces()
    assert owner.list_namespaces(prefix=("memories", "bob")) == [("memories", "bob")]


def test_without_the_mode_a_read_naming_no_user_sees_the_shared_namespaces_only(memory, uid) -> None:
    org = f"org-{uid}"
    plain = CogmemStore(memory, agent_id=f"lg-{uid}", organization_id=org)
    plain.put(("memories", "ann"), "k", {"content": "Ann's"})
    plain.put(("handbook",), "k", {"content": "shared"})
    assert plain.list_namespaces() == [("handbook",)] and found(plain.search(())) == {(("handbook",), "k")}
    owner = CogmemStore(memory, agent_id=f"lg-{uid}", organization_id=org, every_user=True)
    assert owner.list_namespaces() == [("handbook",), ("memories", "ann")]
    assert "every_user=True" in repr(owner)


# ---------------------------------------------------------------- async


def test_an_async_memory_store_reaches_every_user_through_both_kinds_of_method(async_memory, uid) -> None:
    org = f"org-{uid}"
    owner = CogmemStore(async_memory, agent_id=f"lg-{uid}", organization_id=org, every_user=True)

    async def scenario() -> tuple:
        for user in USERS:
            await owner.aput(("memories", user), "k", {"content": f"{user} plays the cello"})
        await owner.aput(("handbook",), "k", {"content": "The office opens at eight"})
        return (await owner.alist_namespaces(), found(await owner.asearch(())),
                (await owner.asearch((), query="bob plays the cello", limit=1))[0].namespace,
                await async_memory.users(organization_id=org))

    spaces, listed, best, users = asyncio.run(scenario())
    expected = [("handbook",)] + [("memories", user) for user in USERS]
    assert spaces == expected and listed == {(namespace, "k") for namespace in expected}
    assert best == ("memories", "bob") and users == USERS
    assert owner.list_namespaces() == expected  # the sync methods, on cogmem's own loop
    assert found(owner.search(("memories",), query="cello")) == {(("memories", user), "k") for user in USERS}
