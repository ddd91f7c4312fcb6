"""Tenant isolation: a property test over many agents across users, threads, personas and
organizations on one store.

Each example builds a small world: a fixed core (two users of one organization, the
same user id in another organization, a user with no organization) plus random
identities, each writing memories into the scopes it may write. Adversarial
SAME_TOPIC edges are then drawn straight across tenants (as a buggy maintenance job
might), so graph activation has paths that leave every caller's scope. For every
agent, `retrieve`, `assemble_for_prompt` and `spread_activation` (seeded with its own
traces, and with foreign ones) must return only traces under the
caller's visible scope keys, and must not modify any trace or edge outside them;
the graph's scoped writes (Hebbian, access, strengths, mechanism state, soft delete)
must ignore foreign ids. Organization-scope memories are seen by every agent of that
organization and by nobody else.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cogmem_graph as cg
from cogmem_graph.between_turns.archive import ArchiveNotFound, MemoryArchive
from cogmem_graph.clock import ManualClock
from cogmem_graph.config.graph import ActivationConfig
from cogmem_graph.graph.port import AccessUpdate, Edge
from cogmem_graph.identity import AgentIdentity
from cogmem_graph.language.entities import entity_key
from cogmem_graph.model import EdgeType, Scope

from .conftest import START_MS, owner_edges, owner_traces, scope_keys_of

SHARED_WORDS = "falcon project roadmap budget"
WIDE = ActivationConfig(max_seeds=100, max_results=1000, threshold=0.0, max_depth=3)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Iterator[cg.MemoryStore]:
    clock = ManualClock(START_MS)
    with cg.open(home=tmp_path_factory.mktemp("tenants") / "home", embedder="hash", clock=clock) as s:
        yield s


@dataclass
class World:
    agents: list[cg.AgentMemory] = field(default_factory=list)
    traces: dict[str, tuple[str, str]] = field(default_factory=dict)
    """trace id -> (scope key, unique token in its content)"""


_counter = itertools.count()

identity_parts = st.tuples(
    st.sampled_from(["a1", "a2"]),
    st.sampled_from([None, "u1", "u2"]),
    st.sampled_from([None, "t1"]),
    st.sampled_from([None, "p1"]),
    st.sampled_from([None, "acme", "globex"]),
)
CORE = [("a1", "u1", "t1", None, "acme"), ("a2", "u2", None, "p1", "acme"),
        ("a1", "u1", None, None, "globex"), ("a1", "u1", None, "p1", None)]


def _build_world(store: cg.MemoryStore, data) -> World:
    n = next(_counter)

    def q(value: str | None) -> str | None:  # every example is a world of its own
        return None if value is None else f"{value}-w{n}"

    extra = data.draw(st.lists(identity_parts, max_size=3), label="extra identities")
    world = World()
    seen: set[tuple] = set()
    for agent_id, user, thread, persona, org in CORE + extra:
        key = (agent_id, user, thread, persona, org)
        if key in seen:
            continue
        seen.add(key)
        agent = store.agent(q(agent_id), user_id=q(user), thread_id=q(thread), persona_id=q(persona),
                            organization_id=q(org))
        world.agents.append(agent)
        scopes = data.draw(st.lists(st.sampled_from(list(Scope)), min_size=1, max_size=3), label="scopes")
        if org:
            scopes.append(Scope.ORGANIZATION)  # the core always shares something in its organization
        items = []
        for scope in scopes:
            try:
                agent.identity.scope_id(scope)
            except ValueError:
                continue  # this identity cannot write that scope (e.g. thread without user)
            token = f"tok{n}x{len(world.traces) + len(items)}"
            items.append({"content": f"{token} {SHARED_WORDS} note in {scope.value} scope", "scope": scope})
        for item, trace in zip(items, agent.encode_many(items), strict=True):
            world.traces[trace.id] = (trace.scope_key, item["content"].split()[0])
    ids = list(world.traces)
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), max_size=12), label="edges")
    store.graph.merge_edges(EdgeType.SAME_TOPIC, [Edge(a, b, 0.9) for a, b in pairs if a != b])
    return world


def _outside(store: cg.MemoryStore, keys: set[str]) -> tuple[dict, set]:
    """Everything a caller with `keys` must leave alone: traces outside its scopes and
    every edge with an end outside them."""
    traces = owner_traces(store)
    foreign = {i: t.model_dump() for i, t in traces.items() if t.scope_key not in keys}
    edges = {e for e in owner_edges(store) if e[0] in foreign or e[1] in foreign}
    return foreign, edges


def _assert_visible(store: cg.MemoryStore, agent, ids, what: str) -> None:
    keys = set(agent.visible_scope_keys)
    scope_of = scope_keys_of(store, ids)
    leaked = [i for i in ids if scope_of[i] not in keys]
    assert not leaked, f"{what} of {agent.identity} returned traces outside {sorted(keys)}: " \
                       f"{[scope_of[i] for i in leaked]}"


def _retrieve_ids(agent: cg.AgentMemory, query: str) -> list[str]:
    result = agent.retrieve(query, top_k=50)
    return result.ids + [t.trace.id for t in result.partial]


def _assemble_ids(agent: cg.AgentMemory, query: str) -> list[str]:
    return list(agent.assemble_for_prompt(query, token_budget=400).trace_ids)


def _multi_hop_ids(agent: cg.AgentMemory, query: str) -> list[str]:
    result = agent.multi_hop(query, hops=3, top_k=50)
    on_paths = [i for t in result.traces for i in t.path.trace_ids]
    return result.ids + on_paths + [i for c in result.communities for i in c.member_ids]


# Every agent-facing read, checked for leaks: name -> (agent, query) -> trace ids handed out.
AGENT_READS: dict[str, Callable[[cg.AgentMemory, str], list[str]]] = {
    "retrieve": _retrieve_ids,
    "assemble_for_prompt": _assemble_ids,
    "multi_hop": _multi_hop_ids,
}

# Owner maintenance run for one agent's scope keys, checked to touch nothing outside them
# (the `_outside` snapshot around each agent). Hook for the lead: consolidation joins here,
# e.g. "consolidate": lambda store, agent: store.consolidate(agent.visible_scope_keys).
SCOPED_MAINTENANCE: dict[str, Callable[[cg.MemoryStore, cg.AgentMemory], object]] = {
    "consolidate": lambda store, agent: store.consolidate(agent.visible_scope_keys),
}


def _check_reads(store: cg.MemoryStore, world: World, agent) -> None:
    keys = set(agent.visible_scope_keys)
    for name, read in AGENT_READS.items():
        _assert_visible(store, agent, read(agent, SHARED_WORDS), name)
    # Consolidation run by an earlier agent may legitimately merge or prune shared-scope
    # memories, so "everything" means everything still active.
    active = {i for i, t in owner_traces(store).items() if t.is_active}
    mine = {i for i, (key, _) in world.traces.items() if key in keys and i in active}
    assert mine <= set(agent.retrieve(SHARED_WORDS, top_k=50, record_access=False).ids), (
        "everything visible and matching is found (top_k is wide enough)")

    ctx = agent.assemble_for_prompt(SHARED_WORDS, token_budget=400)
    foreign_tokens = [tok for key, tok in world.traces.values() if key not in keys]
    assert not [t for t in foreign_tokens if t + " " in ctx.text], "foreign content in the prompt"

    # Seeds are excluded from the result, so seed with the agent's own traces: foreign traces
    # reachable over the cross-tenant edges must not be activated; foreign seeds spread nothing.
    own = [i for i, (key, _) in world.traces.items() if key in keys]
    foreign = [i for i, (key, _) in world.traces.items() if key not in keys]
    activated = store.graph.spread_activation(own, agent.visible_scope_keys, WIDE)
    _assert_visible(store, agent, [a.trace_id for a in activated], "spread_activation")
    assert store.graph.spread_activation(foreign, agent.visible_scope_keys, WIDE) == []

    for run in SCOPED_MAINTENANCE.values():
        run(store, agent)


def _check_scoped_writes(store: cg.MemoryStore, world: World, agent) -> None:
    """The graph's scoped writes, aimed at foreign ids, do nothing."""
    keys = set(agent.visible_scope_keys)
    visible_keys = agent.visible_scope_keys
    own = [i for i, (key, _) in world.traces.items() if key in keys]
    foreign = [i for i, (key, _) in world.traces.items() if key not in keys]
    if not own or not foreign:
        return
    now = START_MS + 10**9
    graph = store.graph
    weights = graph.hebbian_update([[own[0], f] for f in foreign], visible_keys)
    assert not {pair for pair in weights if set(pair) & set(foreign)}
    graph.record_access([AccessUpdate(f, now, 1.0, 1, now) for f in foreign], visible_keys)
    graph.set_strengths({f: 0.0 for f in foreign}, visible_keys)
    graph.write_mechanism_state([{"id": f, "valence": -1.0, "stability": 1.0} for f in foreign], visible_keys)
    assert graph.soft_delete(foreign, visible_keys, reason="attack") == []
    assert graph.get_traces(foreign, visible_keys) == []
    assert graph.get_edges(foreign, visible_keys) == []
    assert graph.subgraph(foreign, visible_keys).traces == []


def _check_organization_sharing(store: cg.MemoryStore, world: World) -> None:
    org_traces = {i: v for i, v in world.traces.items() if v[0].startswith("organization:")}
    assert org_traces, "the core always writes organization memories"
    active = {i for i, t in owner_traces(store).items() if t.is_active}
    org_traces = {i: v for i, v in org_traces.items() if i in active}  # survivors of consolidation
    for trace_id, (key, token) in org_traces.items():
        org = key.split(":", 1)[1]
        for agent in world.agents:
            found = trace_id in agent.retrieve(f"{token} {SHARED_WORDS}", top_k=50, record_access=False).ids
            member = agent.identity.organization_id == org
            assert found == member, (f"{agent.identity} {'does not see' if member else 'sees'} the memory "
                                     f"of organization {org}")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_agents_only_ever_see_and_touch_their_visible_scopes(store: cg.MemoryStore, data) -> None:
    world = _build_world(store, data)
    for agent in world.agents:
        keys = set(agent.visible_scope_keys)
        before = _outside(store, keys)
        _check_reads(store, world, agent)
        _check_scoped_writes(store, world, agent)
        assert _outside(store, keys) == before, f"{agent.identity} modified something outside its scopes"
    _check_organization_sharing(store, world)


def test_same_ids_in_different_organizations_are_different_tenants(store: cg.MemoryStore) -> None:
    """Ids are qualified by their tenant: user u1 of acme is not user u1 of globex."""
    acme = AgentIdentity(agent_id="bot", user_id="u1", thread_id="t1", persona_id="p", organization_id="acme-x")
    globex = AgentIdentity(agent_id="bot", user_id="u1", thread_id="t1", persona_id="p", organization_id="globex-x")
    assert not set(acme.visible_scope_keys()) & set(globex.visible_scope_keys())
    a = store.agent("bot", user_id="u1", thread_id="t1", persona_id="p", organization_id="acme-x")
    g = store.agent("bot", user_id="u1", thread_id="t1", persona_id="p", organization_id="globex-x")
    for scope in Scope:
        a.encode(f"acme-only {scope.value} secret about the {SHARED_WORDS}", scope=scope)
    assert [t for t in g.retrieve(f"acme-only secret {SHARED_WORDS}", top_k=50).traces] == []
    assert len(a.retrieve(f"acme-only secret {SHARED_WORDS}", top_k=50).ids) == len(Scope)


def test_reminders_are_listed_fired_and_cancelled_only_within_visible_scopes(store: cg.MemoryStore) -> None:
    """Prospective memory: every agent of the core writes a keyword reminder into each scope it
    may write; each agent lists and fires exactly those under its visible keys, and cannot
    cancel anyone else's."""
    agents = [store.agent(f"{a}-pm", user_id=u and f"{u}-pm", thread_id=t, persona_id=p,
                          organization_id=o and f"{o}-pm") for a, u, t, p, o in CORE]
    owner: dict[str, str] = {}  # reminder id -> scope key
    for agent in agents:
        for scope in Scope:
            try:
                agent.identity.scope_id(scope)
            except ValueError:
                continue
            r = agent.remind(f"{scope.value} note", on_keywords=["falcon"], recurring=True, cooldown=0, scope=scope)
            owner[r.id] = r.scope_key
    for agent in agents:
        keys = set(agent.visible_scope_keys)
        visible = {i for i, key in owner.items() if key in keys}
        assert {r.id for r in agent.reminders(limit=1000)} == visible, f"{agent.identity} lists foreign reminders"
        fired = {f.intention.id for f in agent.check_reminders(f"the {SHARED_WORDS}")}
        assert fired == visible, f"{agent.identity} fired reminders outside {sorted(keys)}"
        for foreign in set(owner) - visible:
            assert agent.cancel_reminder(foreign) is False
    assert all(r.active for a in agents for r in a.reminders(limit=1000)), "nothing foreign was cancelled"


def test_agents_rehydrate_only_originals_in_their_visible_scopes(store: cg.MemoryStore) -> None:
    """`agent.rehydrate(id)` returns the archived original of a trace the agent can see and
    knows no other, archived or not; it leaves a foreign archive's access log alone. The
    store-level `rehydrate` is the owner's and returns any."""
    agents = [store.agent(f"{a}-rh", user_id=u and f"{u}-rh", thread_id=t, persona_id=p,
                          organization_id=o and f"{o}-rh") for a, u, t, p, o in CORE]
    archive = MemoryArchive(store.graph, store.clock)
    originals: dict[str, tuple[str, str]] = {}  # trace id -> (scope key, original)
    plain: dict[str, str] = {}  # trace id -> scope key, never archived
    for n, agent in enumerate(agents):
        for scope in Scope:
            try:
                agent.identity.scope_id(scope)
            except ValueError:
                continue
            archived = agent.encode(f"rehydrate secret {n} {scope.value} {SHARED_WORDS}", scope=scope)
            archive.store([archived], reason="gist")
            originals[archived.id] = (archived.scope_key, archived.content)
            kept = agent.encode(f"unarchived secret {n} {scope.value} {SHARED_WORDS}", scope=scope)
            plain[kept.id] = kept.scope_key
    for agent in agents:
        keys = set(agent.visible_scope_keys)
        for trace_id, (key, original) in originals.items():
            if key in keys:
                assert agent.rehydrate(trace_id) == original
                continue
            before = archive.get(trace_id)
            with pytest.raises(ArchiveNotFound):
                agent.rehydrate(trace_id)
            assert archive.get(trace_id) == before, "a foreign archive's access log moved"
        for trace_id, key in plain.items():
            if key not in keys:
                with pytest.raises(ArchiveNotFound):
                    agent.rehydrate(trace_id)
    for trace_id, (_, original) in originals.items():
        assert store.rehydrate(trace_id) == original


def _entity_texts(agent: cg.AgentMemory, query: str, ids: list[str]) -> str:
    """Everything about entities an agent's reads hand out: multi-hop's entities and evidence
    paths, and the entity nodes of the neighbourhood `viz` draws (every property)."""
    result = agent.multi_hop(query, hops=3, top_k=50)
    texts = [f"{e.key}|{e.name}|{e.fan}" for e in result.entities]
    texts += [f"{s.id}|{s.label}" for t in result.traces for s in t.path.steps if s.kind == "entity"]
    texts += [repr(sorted(e.items())) for e in agent.store.graph.subgraph(ids, agent.visible_scope_keys).entities]
    return "\n".join(texts)


def test_entities_show_a_tenant_nothing_another_tenant_wrote(store: cg.MemoryStore) -> None:
    """One entity, two tenants: acme writes it first with its own spelling, globex a day later
    with another. Neither sees the other's spelling, first-seen time or mentions, in
    `multi_hop` (entities, evidence paths) or in the neighbourhood `viz` draws (every entity
    property); each sees its own."""
    acme = store.agent("bot-ent", user_id="u-ent", organization_id="acme-ent")
    globex = store.agent("bot-ent", user_id="u-ent", organization_id="globex-ent")
    clock = store.clock
    assert isinstance(clock, ManualClock)
    clock.advance(1_000)
    acme_seen = clock.now_ms()
    acme_ids = [t.id for t in acme.encode_many([
        {"content": "Maren leads the Quillon rollout", "entities": ["Quillon", "Maren"]},
        {"content": "The Quillon rollout moves the ledger to Kestrel", "entities": ["Quillon", "Kestrel"]},
        {"content": "Kestrel upgrades are handled by Orla", "entities": ["Kestrel", "Orla"]}])]
    clock.advance(86_400_000)
    globex_seen = clock.now_ms()
    globex_ids = [t.id for t in globex.encode_many([
        {"content": "Our team plans the QUILLON budget", "entities": ["QUILLON"]},
        {"content": "QUILLON reviews happen on Fridays", "entities": ["QUILLON"]}])]

    assert entity_key("Quillon") == entity_key("QUILLON"), "one entity key, two spellings"
    acme_view = _entity_texts(acme, "Who leads the Quillon rollout?", acme_ids)
    globex_view = _entity_texts(globex, "What is planned for QUILLON?", globex_ids)
    assert "Quillon" in acme_view and "Kestrel" in acme_view, acme_view
    assert "QUILLON" in globex_view, globex_view
    for seen in ("QUILLON", "Fridays", str(globex_seen)):
        assert seen not in acme_view, f"acme sees {seen!r}, written by globex:\n{acme_view}"
    for seen in ("Quillon", "Maren", "Kestrel", "Orla", str(acme_seen)):
        assert seen not in globex_view, f"globex sees {seen!r}, written by acme:\n{globex_view}"
    # The fan counts only the tenant's own mentions.
    fans = {e.name: e.fan for e in globex.multi_hop("QUILLON", top_k=10).entities}
    assert fans == {"QUILLON": 2}
