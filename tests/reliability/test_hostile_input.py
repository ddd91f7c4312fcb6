"""Hostile and bad input: property tests over content, tags, metadata, structured data,
source ids, scope ids and queries.

Each input is either stored verbatim and retrievable, or rejected with a ValueError
(pydantic's ValidationError is one) that names the field. Never another exception,
never a changed query (graph parameters are data, full-text terms are escaped), and
never a change to another tenant's memories: a victim tenant's traces, vectors and
edges are snapshotted before every example and compared after it.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from luqum import tree as lucene_tree
from luqum.parser import parser as lucene_parser

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.graph.fulltext import lucene_query, redisearch_query
from cogmem_graph.model import MAX_CONTENT_CHARS, MAX_ID_CHARS, MemoryTrace
from cogmem_graph.text import query_terms

from .conftest import START_MS, owner_edges, scope_keys_of

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=False)

VICTIM = {"agent_id": "victim-agent", "user_id": "victim", "organization_id": "other-org"}
BULK = {"agent_id": "bulk", "user_id": "bulk-user"}  # big memories live apart, so other tests stay fast
ATTACKER = {"agent_id": "attacker", "user_id": "mallory", "thread_id": "t1", "organization_id": "evil-org"}

HOSTILE = [  # cypher-payload: injection strings fed to the API as data, never run
    "", " ", "\t\n\r", "MATCH (n) DETACH DELETE n", "') MATCH (n) DETACH DELETE n //",
    '"}) MATCH (n) DETACH DELETE n //', "'}) SET n.scopeKey = 'user:other-org/victim' //",
    "{x}", "$scopeKeys", "${scopeKeys}", "CYPHER scopeKeys=['user:other-org/victim'] MATCH (n) RETURN n",
    '@field:{x} | -foo* ~"', "@scopeKey:{user\\:other\\-org/victim}", "*", "%", "(", ")", "[]", "`", "\\",
    '\\"', "' OR 1=1 --", "AND OR NOT TO", "title:(foo AND bar)^3 ~2 /regex/", "a\x00b", "\x00",
    "\ud800", "x\udfffy", "😀🔥👩‍👩‍👧‍👦", "\u202eevil\u202c", "ǅ\u0301", "null", "NaN", "true",
    '{"a": [1, {"b": null}]}', ']}",', '{"$where": "1"}', "user:other-org/victim", "organization:other-org",
    "line one\nline two", "\x1b[31mred\x1b[0m", "\ufeffbom", "ｆｕｌｌｗｉｄｔｈ",
]

_chars = st.one_of(
    st.characters(),  # any code point except surrogates
    st.characters(categories=["Cs"]),  # lone surrogates: not encodable as UTF-8
    st.sampled_from("\x00\"'\\{}()[]@:|-*~`$;\n"),
)
hostile_text = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(_chars, max_size=60),
    st.lists(st.sampled_from(HOSTILE) | st.text(_chars, max_size=8), max_size=4).map("".join),
)


# ---------------------------------------------------------------- oracle


def not_unicode(value: str) -> bool:
    """Text with a lone surrogate: no UTF-8 encodes it, so no request or store carries it."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def cannot_be_stored(value: str) -> bool:
    """Text no store keeps verbatim: NUL bytes, lone surrogates."""
    return not_unicode(value) or "\x00" in value


def text_ok(value: str, *, allow_empty: bool, max_len: int | None) -> bool:
    """The documented rule for text fields (model.check_text)."""
    if cannot_be_stored(value):
        return False
    if not allow_empty and not value.strip():
        return False
    return max_len is None or len(value) <= max_len


def metadata_ok(metadata: dict, depth: int = 0) -> bool:
    """JSON values: text, numbers, true/false, null, lists of those, objects of the same
    (at most four deep), keys of 1 to 200 storable characters."""
    def value_ok(value, depth: int) -> bool:
        if isinstance(value, str):
            return text_ok(value, allow_empty=True, max_len=None)
        if isinstance(value, float):
            return math.isfinite(value)
        if isinstance(value, list):
            return all(not isinstance(v, list | dict) and value_ok(v, depth) for v in value)
        if isinstance(value, dict):
            return depth < 4 and metadata_ok(value, depth + 1)
        return value is None or isinstance(value, bool | int)

    return all(isinstance(key, str) and text_ok(key, allow_empty=False, max_len=200) and value_ok(value, depth)
               for key, value in metadata.items())


def names_one_of(exc: BaseException, fields: list[str]) -> bool:
    message = str(exc)
    return any(field in message for field in fields)


# ---------------------------------------------------------------- the shared store


class World:
    def __init__(self, store: cg.MemoryStore, clock: ManualClock) -> None:
        self.store = store
        self.clock = clock
        self.victim = store.agent(**VICTIM)
        self.attacker = store.agent(**ATTACKER)
        self.bulk = store.agent(**BULK)
        self.victim.encode("The victim's locker code is 4711 and MATCH (n) is in it")  # cypher-payload
        self.victim.encode("Victim notes: the quarterly numbers look fine", scope="agent")
        self.victim.encode("Other-org shares its deploy runbook", scope="organization")
        self.victim.retrieve("locker code quarterly runbook")  # edges, counters, working state

    def victim_state(self) -> tuple:
        listed = self.store.graph.list_traces(self.victim.visible_scope_keys, include_inactive=True, limit=10_000)
        traces = {t.id: t.model_dump() for t in listed}
        edges = {e for e in owner_edges(self.store) if e[0] in traces or e[1] in traces}
        vectors = self.store.vectors.count(self.victim.visible_scope_keys, active=None)
        return traces, edges, vectors

    def fresh(self) -> str:
        """A unique prefix, so an example's content is not a near-duplicate of an earlier one."""
        self.clock.advance(1_000)
        token = uuid.uuid4().hex
        while "4711" in token:  # the victim's secret, which the tests look for, must not appear by chance
            token = uuid.uuid4().hex
        return f"probe {token} "


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Iterator[World]:
    clock = ManualClock(START_MS)
    with cg.open(home=tmp_path_factory.mktemp("hostile") / "home", embedder="hash", clock=clock) as store:
        yield World(store, clock)


def _stored(world: World, trace_id: str, agent=None) -> MemoryTrace:
    (trace,) = world.store.graph.get_traces([trace_id], (agent or world.attacker).visible_scope_keys)
    return trace


def _assert_only_visible(world: World, agent, ids) -> None:
    keys = set(agent.visible_scope_keys)
    found = scope_keys_of(world.store, ids)
    assert set(found) == set(ids), "returned a trace the graph does not hold"
    outside = [i for i in ids if found[i] not in keys]
    assert not outside, f"returned traces outside the caller's scopes: {outside}"


# ---------------------------------------------------------------- content


@SETTINGS
@given(content=hostile_text)
@example(content="x" * 64 + '"}) MATCH (n) DETACH DELETE n //')  # cypher-payload
@example(content="\\" * 33)
def test_content_is_stored_verbatim_and_retrievable_or_rejected_naming_content(world: World, content: str) -> None:
    before = world.victim_state()
    valid = text_ok(content, allow_empty=False, max_len=MAX_CONTENT_CHARS)
    # Past the conversation window, so the memory is indexed by its own words alone: said
    # right after an earlier example, its index vector would carry that turn's words too
    # (write.context_vectors) and a look-up by its text alone could rank the other first.
    world.clock.advance(world.store.config.graph.edges.temporal_window_ms + 1)
    try:
        trace = world.attacker.encode(content)
    except ValueError as exc:
        assert not valid, f"valid content refused: {exc}"
        assert "content" in str(exc)
    else:
        assert valid, f"content that cannot be kept verbatim was accepted: {content!r}"
        stored = _stored(world, trace.id)
        if stored.content != content:
            # Only a near-duplicate may stand for it: the embedder sees them as the same memory.
            embed = world.store.embedder.embed
            a, b = embed([content])[0], embed([stored.content])[0]
            cosine = sum(x * y for x, y in zip(a, b, strict=True))
            assert cosine >= world.store.config.write.near_duplicate_similarity
        else:
            assert stored.indexed and stored.scope_key in world.attacker.visible_scope_keys
        embed = world.store.embedder.embed
        if embed([content]) != embed([""]):  # a text with no words shares one vector with all such texts
            dense = world.attacker.retrieve(content, top_k=3, strategy="dense", record_access=False)
            assert trace.id in dense.ids
        full = world.attacker.retrieve(content, top_k=5)
        _assert_only_visible(world, world.attacker, full.ids + [t.trace.id for t in full.partial])
    assert world.victim_state() == before


def test_content_at_the_size_limit_is_kept_verbatim_by_both_stores(world: World) -> None:
    """1 MB (the limit) of query syntax, quotes and backslashes through the graph's
    parameter encoding, its full-text index and Qdrant, at the storage layer."""
    from cogmem_graph.lexical import bm25_document_vector
    from cogmem_graph.vectors.port import VectorPoint

    filler = '"}) MATCH (n) DETACH DELETE n // \\ \' {x} | -foo* ~" 😀 quartz '  # cypher-payload
    content = (filler * (MAX_CONTENT_CHARS // len(filler) + 1))[:MAX_CONTENT_CHARS]
    keys = world.bulk.visible_scope_keys
    trace = MemoryTrace(content=content, scope_id="bulk-user", agent_id="bulk", created_at=START_MS)
    before = world.victim_state()
    world.store.graph.upsert_traces([trace])
    world.store.vectors.upsert([VectorPoint(trace.id, trace.scope_key, trace.type.value, trace.created_at,
                                            world.store.embedder.embed([content])[0], bm25_document_vector(content))])
    world.store.graph.set_indexed([trace.id])
    assert _stored(world, trace.id, world.bulk).content == content
    assert trace.id in {h.trace_id for h in world.store.graph.fulltext_search("quartz", keys)}
    assert trace.id in world.bulk.retrieve("quartz detach delete", top_k=50, record_access=False).ids
    assert world.victim_state() == before


def test_large_content_is_stored_verbatim_through_the_api(world: World) -> None:
    # 100 kB through the whole write path (features, entities, embedder, both stores). The
    # full 1 MB limit works too but takes tens of seconds in the feature detector (see report).
    content = world.fresh() + ("Deploy notes with \"quotes\", {braces} and \\ backslashes. " * 2_000)[:100_000]
    trace = world.bulk.encode(content)
    assert _stored(world, trace.id, world.bulk).content == content
    assert world.bulk.retrieve(content[:300], top_k=3, strategy="dense").ids[0] == trace.id


def test_content_over_the_size_limit_is_refused_naming_content(world: World) -> None:
    with pytest.raises(ValueError, match="content"):
        world.attacker.encode("a" * (MAX_CONTENT_CHARS + 1))


# ---------------------------------------------------------------- the other fields of a memory


metadata_values = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), hostile_text,
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | hostile_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_text, inner, max_size=3),
    max_leaves=8,
)


@SETTINGS
@given(
    tags=st.lists(hostile_text, max_size=4),
    metadata=st.dictionaries(hostile_text, metadata_values, max_size=4),
    structured=st.none() | st.dictionaries(hostile_text, json_values, max_size=3),
    source_id=st.none() | hostile_text,
)
@example(tags=[], metadata={}, structured=None, source_id="a\x00b")
def test_fields_are_stored_verbatim_or_rejected_naming_the_field(world, tags, metadata, structured, source_id) -> None:
    before = world.victim_state()
    must_reject = [
        name for name, bad in (
            ("tags", not all(text_ok(t, allow_empty=False, max_len=1_000) for t in tags)),
            ("metadata", not metadata_ok(metadata)),
            ("source_id", source_id is not None and cannot_be_stored(source_id)),
        ) if bad
    ]
    content = world.fresh() + "field probe"
    try:
        trace = world.attacker.encode(content, tags=tags, metadata=metadata, structured_data=structured,
                                      source_id=source_id)
    except ValueError as exc:
        allowed = [*must_reject, "source_id", "structured_data"]  # the last two may have stricter rules
        assert names_one_of(exc, allowed), f"refused without naming a bad field ({must_reject}): {exc}"
    else:
        assert not must_reject, f"accepted what cannot be stored verbatim: {must_reject}"
        stored = _stored(world, trace.id)
        assert stored.content == content
        assert stored.tags == list(dict.fromkeys(tags))
        assert stored.metadata == metadata
        assert stored.structured_data == structured
        assert stored.source_id == source_id
        assert trace.id in world.attacker.retrieve(content, top_k=3, strategy="dense", record_access=False).ids
    assert world.victim_state() == before


def test_structured_data_that_is_not_json_is_refused_naming_the_field(world: World) -> None:
    for bad in ({"s": {1, 2}}, {"b": b"bytes"}, {"n": float("nan")}):
        with pytest.raises(ValueError, match="structured_data"):
            world.attacker.encode(world.fresh() + "structured probe", structured_data=bad)


# ---------------------------------------------------------------- scope ids


ID_FIELDS = ("agent_id", "user_id", "thread_id", "persona_id", "organization_id")


def id_ok(value: str | None) -> bool:
    """The documented rule for identity ids: stored text, no '/', no control characters."""
    return value is None or (
        text_ok(value, allow_empty=False, max_len=MAX_ID_CHARS) and "/" not in value
        and not any(ord(ch) < 32 or ord(ch) == 127 for ch in value)
    )


@SETTINGS
@given(identity=st.fixed_dictionaries({
    "agent_id": hostile_text,
    **{f: st.none() | hostile_text for f in ID_FIELDS[1:]},
}))
@example(identity={"agent_id": "victim-agent", "user_id": "victim", "thread_id": None, "persona_id": None,
                   "organization_id": "other-org/x"})
@example(identity={"agent_id": "a", "user_id": "other-org/victim", "thread_id": None, "persona_id": None,
                   "organization_id": None})
def test_scope_ids_are_data_never_a_way_into_another_tenant(world: World, identity: dict) -> None:
    if identity["organization_id"] == VICTIM["organization_id"]:
        identity["organization_id"] = "not-" + identity["organization_id"]  # the victim's org shares by design
    before = world.victim_state()
    bad = [f for f in ID_FIELDS if not id_ok(identity[f])]
    try:
        agent = world.store.agent(**identity)
    except ValueError as exc:
        assert bad, f"valid identity refused: {exc}"
        assert names_one_of(exc, bad)
        return
    assert not bad, f"identity fields that cannot be stored were accepted: {bad}"
    content = world.fresh() + "scope probe shared words locker code quarterly runbook"
    trace = agent.encode(content)
    assert trace.scope_key in agent.visible_scope_keys
    result = agent.retrieve("locker code quarterly runbook scope probe", top_k=20)
    assert trace.id in result.ids
    _assert_only_visible(world, agent, result.ids + [t.trace.id for t in result.partial])
    ctx = agent.assemble_for_prompt("locker code quarterly runbook", token_budget=200)
    _assert_only_visible(world, agent, ctx.trace_ids)
    assert "4711" not in ctx.text
    assert world.victim_state() == before


# ---------------------------------------------------------------- queries


@SETTINGS
@given(query=hostile_text, top_k=st.integers(min_value=-2, max_value=60),
       budget=st.integers(min_value=1, max_value=500))
@example(query="MATCH (n) DETACH DELETE n", top_k=5, budget=50)  # cypher-payload
@example(query='@field:{x} | -foo* ~"', top_k=5, budget=50)
@example(query="\ud800", top_k=1, budget=1)  # a lone surrogate
def test_queries_never_fail_other_than_naming_the_argument_and_never_leak(world, query, top_k, budget) -> None:
    before = world.victim_state()
    agent = world.attacker
    try:
        result = agent.retrieve(query, top_k=top_k)
    except ValueError as exc:
        assert not query.strip() or top_k < 1 or not_unicode(query), f"valid query refused: {exc}"
        assert names_one_of(exc, ["query", "top_k"])
    else:
        assert query.strip() and top_k >= 1 and not not_unicode(query)
        assert len(result.ids) <= top_k
        _assert_only_visible(world, agent, result.ids + [t.trace.id for t in result.partial])
        ctx = agent.assemble_for_prompt(query, token_budget=budget)
        assert ctx.tokens_used <= budget
        _assert_only_visible(world, agent, ctx.trace_ids)
        assert "4711" not in ctx.text
    if not not_unicode(query):  # the graph port is below the check: only text a request can carry
        hits = world.store.graph.fulltext_search(query, agent.visible_scope_keys)  # escaped, never a syntax error
        _assert_only_visible(world, agent, [h.trace_id for h in hits])
    assert world.victim_state() == before


_LUCENE_SPECIAL = set('+-!(){}[]^"~*?:\\/&|')
_ESCAPED_PAIR = re.compile(r"\\.", re.DOTALL)


@settings(max_examples=200, deadline=None)
@given(text=hostile_text)
def test_fulltext_queries_are_escaped_for_lucene_and_redisearch(text: str) -> None:
    lucene = lucene_query(text)
    if lucene is not None:
        for term in lucene.split(" OR "):
            assert term and term not in {"AND", "OR", "NOT", "TO"}
            bare = _ESCAPED_PAIR.sub("", term)
            assert not (set(bare) & _LUCENE_SPECIAL) and " " not in bare, (text, term)
    redis = redisearch_query(text)
    if redis is not None:
        for term in redis.split("|"):
            bare = _ESCAPED_PAIR.sub("", term)
            assert term and all(c.isalnum() or c == "_" for c in bare), (text, term)
    assert (lucene is None) == (redis is None)


@settings(max_examples=200, deadline=None)
@given(text=hostile_text, groups=st.lists(hostile_text, max_size=3))
def test_word_groups_parse_as_lucene_and_of_escaped_words(text: str, groups: list[str]) -> None:
    """Lucene's own grammar (luqum) reads the query as an OR whose parts are single words or
    parenthesised ANDs of words: no user text becomes an operator, a range or a field."""
    lucene = lucene_query(text, every_word_of=groups)
    assert (lucene is None) == (redisearch_query(text, every_word_of=groups) is None)
    if lucene is None:
        return
    tree = lucene_parser.parse(lucene)
    parts = tree.children if isinstance(tree, lucene_tree.OrOperation) else (tree,)
    for part in parts:
        if isinstance(part, lucene_tree.Group):
            inner = part.expr
            words = inner.children if isinstance(inner, lucene_tree.AndOperation) else (inner,)
        else:
            words = (part,)
        assert all(isinstance(w, lucene_tree.Word) for w in words), (text, groups, lucene)
    expected = len(query_terms(text)) + sum(1 for g in groups if query_terms(g))
    assert len(parts) == expected, (text, groups, lucene)


def test_a_group_must_hold_every_word_in_both_dialects() -> None:
    assert lucene_query("price", every_word_of=["room 204 costs", "OR NOT"]) == "price OR (room AND 204 AND costs)"
    assert redisearch_query("price", every_word_of=["room 204 costs"]) == "price|(room 204 costs)"
    assert lucene_query("", every_word_of=["-- !!"]) is None


def test_a_fixed_list_of_hostile_strings_as_every_field_at_once(world: World) -> None:
    """Not random: every hostile string in every text field in one go, for a readable failure."""
    before = world.victim_state()
    for value in HOSTILE:
        if cannot_be_stored(value) or not value.strip():
            continue
        content = world.fresh() + value
        trace = world.attacker.encode(content, tags=[value], metadata={value: value}, source_id=value,
                                      structured_data={value: [value]})
        stored = _stored(world, trace.id)
        assert (stored.content, stored.tags, stored.metadata, stored.source_id, stored.structured_data) == (
            content, [value], {value: value}, value, {value: [value]})
        assert json.loads(json.dumps(stored.structured_data)) == {value: [value]}
    assert world.victim_state() == before
