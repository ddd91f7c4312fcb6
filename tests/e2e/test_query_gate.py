"""The pre-retrieval gate through the public API: small talk is not searched (not even
embedded), a prompt for it carries working memory and reminders only, and on the LoCoMo
development data no question with evidence is gated."""

from __future__ import annotations

import json

import cogmem_graph as cg
from cogmem_graph.language.query_gate import skips_retrieval
from tests.benchmark_scripts import LOCOMO_DATA, needs_locomo_data

DATA = LOCOMO_DATA


def test_small_talk_is_not_searched_or_embedded(store) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.encode("Hi! My name is Lina and I am allergic to peanuts.")
    calls: list[str] = []
    real = store.embedder.embed_query
    store.embedder.embed_query = lambda text: calls.append(text) or real(text)
    try:
        gated = agent.retrieve("hi!")
        asked = agent.retrieve("What am I allergic to?")
    finally:
        del store.embedder.embed_query
    assert gated.gated and gated.traces == [] and gated.intent is None
    assert not asked.gated and "peanuts" in asked.traces[0].trace.content
    assert calls == ["What am I allergic to?"]
    store.config.retrieval.query.gate = False
    assert agent.retrieve("hi!").traces  # the gate off: even "hi" searches


def test_a_prompt_for_small_talk_has_working_memory_and_reminders_only(store) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.encode("Our team deploys every Tuesday at 10 am.")
    agent.retrieve("When does our team deploy?")  # now in working memory
    agent.remind("Ask about the release notes", on_keywords="thanks")
    ctx = agent.assemble_for_prompt("ok thanks!", token_budget=400)
    assert ctx.trace_ids == ()
    assert "Ask about the release notes" in ctx.text
    assert "Tuesday" in ctx.text and ctx.sections["working_memory"] > 0
    assert ctx.sections["semantic_recall"] == 0 and ctx.sections["recent_episodic"] == 0


@needs_locomo_data
def test_no_locomo_question_with_evidence_is_gated() -> None:
    questions = [q["question"] for path in sorted(DATA.glob("*.json"))
                 for q in json.loads(path.read_text()).get("qa", []) if q.get("evidence")]
    assert len(questions) > 500
    assert [q for q in questions if skips_retrieval(q)] == []


def test_the_gate_can_be_turned_off_in_config() -> None:
    cfg = cg.CogmemConfig()
    assert cfg.retrieval.query.gate is True
    assert cg.CogmemConfig(retrieval={"query": {"gate": False}}).retrieval.query.gate is False


def test_a_prompt_shows_strong_matches_whole_weak_ones_short_and_leaves_out_the_rest(store) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.encode_many([{"content": text} for text in (
        "Our team deploys every Tuesday at 10 am. The release manager signs off the checklist first.",
        "Deploys used to happen on Fridays, which caused weekend incidents.",
        "The bakery on the corner had fresh croissants.",
        "We watched a documentary about whales last night.",
    )])
    store.config.prompt.injection.enabled = True
    query = "When does our team deploy?"
    hits = agent.retrieve(query, top_k=4, record_access=False).traces
    scores = {hit.trace.id: hit.score for hit in hits}
    content = {hit.trace.id: hit.trace.content for hit in hits}
    gate = store.config.prompt.injection
    gate.full_at = min(gate.full_at, max(scores.values()))  # the best match is a strong one, whatever the embedder
    ctx = agent.assemble_for_prompt(query, token_budget=600, top_k=4)
    assert set(ctx.left_out) == {tid for tid, s in scores.items() if s < gate.abbreviated_at}
    assert set(ctx.abbreviated) == {tid for tid, s in scores.items() if gate.abbreviated_at <= s < gate.full_at}
    assert ctx.left_out, "the unrelated memories score below the threshold"
    assert "Tuesday at 10 am. The release manager" in ctx.text  # the best match whole
    assert ctx.text.count("Our team deploys every Tuesday") == 1, "once, not again under Active Context"
    assert all(content[tid][:20] not in ctx.text for tid in ctx.left_out)
    assert all(content[tid] not in ctx.text for tid in ctx.abbreviated if len(content[tid]) > gate.abbreviated_chars)
    store.config.prompt.injection.enabled = False  # the gate off: only what lies far below the best is left out
    plain = agent.assemble_for_prompt(query, token_budget=600, top_k=4)
    floor = store.config.prompt.min_share_of_best * max(scores.values())
    assert set(plain.left_out) == {tid for tid, s in scores.items() if s < floor} and plain.abbreviated == ()
    store.config.prompt.min_share_of_best = 0.0
    assert agent.assemble_for_prompt(query, token_budget=600, top_k=4).left_out == ()
