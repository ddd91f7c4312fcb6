"""The read path reads the query first: its intent and route, compound questions, HyDE and
MMR, through the public API on the embedded store."""

from __future__ import annotations

import cogmem_graph as cg
from cogmem_graph.language.query_intent import QueryIntent, classify_intent

from .fake_openai_chat import FakeOpenAIChat

FILLER = [
    "The weather was grey and rainy all afternoon.", "We watched a documentary about whales last night.",
    "The bakery on the corner had fresh croissants.", "Traffic on the ring road was slow again.",
    "I finished reading a novel about a lighthouse keeper.", "The garden needs watering after the heat.",
]


def _agent(store: cg.MemoryStore) -> cg.AgentMemory:
    return store.agent("helper", user_id="u1")


def test_each_result_says_how_the_query_was_read(store) -> None:
    agent = _agent(store)
    agent.encode_many([{"content": text} for text in FILLER])
    assert agent.retrieve("When did we watch the documentary?").intent == QueryIntent.TEMPORAL
    assert agent.retrieve("Which bakery do I like?").intent == QueryIntent.PREFERENCE
    plain = agent.retrieve("documentary", strategy="dense")
    assert plain.intent is None and plain.parts == ()
    store.config.retrieval.query.intent_routing = False
    assert agent.retrieve("When did we watch the documentary?").intent == QueryIntent.GENERAL


def test_a_compound_question_finds_what_each_part_asks_for(store) -> None:
    agent = _agent(store)
    blood = agent.encode("My blood type is O negative.")
    passport = agent.encode("My passport expires on 12 June 2031.")
    # Memories that mention both parts' words without answering either.
    agent.encode_many([{"content": f"Visit {i}: the blood donation clinic checked my passport at the door."}
                       for i in range(12)] + [{"content": text} for text in FILLER])
    query = "What is my blood type and when does my passport expire?"
    result = agent.retrieve(query, top_k=2, record_access=False)
    assert result.parts == ("What is my blood type", "when does my passport expire?")
    assert set(result.ids) == {blood.id, passport.id}
    store.config.retrieval.query.decompose = False
    unsplit = agent.retrieve(query, top_k=3, record_access=False)
    assert unsplit.parts == ()


def test_a_compound_question_reinforces_only_what_it_returned(store, clock) -> None:
    agent = _agent(store)
    a = agent.encode("My dentist is Dr. Okafor on Elm Street.")
    b = agent.encode("My manager is called Priya Raman.")
    other = agent.encode("The garden needs watering after the heat.")
    clock.advance(hours=2)
    result = agent.retrieve("Who is my dentist? Who is my manager?", top_k=2)
    assert set(result.ids) == {a.id, b.id}
    after = {t.id: t for t in store.graph.get_traces([a.id, b.id, other.id], agent.visible_scope_keys)}
    assert after[a.id].last_accessed_at == clock.now_ms() and after[b.id].last_accessed_at == clock.now_ms()
    assert after[other.id].last_accessed_at < clock.now_ms()


def test_a_preference_question_puts_the_stated_preference_first(store) -> None:
    agent = _agent(store)
    preference = agent.encode("I prefer window seats when I fly.")
    fact = agent.encode("Seats when I fly: the airline shows which seats are free when I fly.")
    agent.encode_many([{"content": text} for text in FILLER])
    query = "Which seats do I like when I fly?"
    assert agent.retrieve(query, top_k=2, record_access=False).ids[0] == preference.id
    store.config.retrieval.query.intents.preference.category_boost = 0.0
    store.config.retrieval.query.self_boost = 0.0  # the question is about the asker too
    assert agent.retrieve(query, top_k=2, record_access=False).ids[0] == fact.id


def test_a_question_about_the_asker_puts_what_they_said_about_themselves_first(store) -> None:
    agent = _agent(store)
    mine = agent.encode("My blood type is O negative.")
    theirs = agent.encode("What is your blood type? The clinic poster asks every donor about blood type.")
    agent.encode_many([{"content": text} for text in FILLER])
    assert store.graph.get_traces([mine.id], agent.visible_scope_keys)[0].category == "identity"
    query = "What is my blood type?"
    assert agent.retrieve(query, top_k=2, record_access=False).ids[0] == mine.id
    store.config.retrieval.query.self_boost = 0.0
    assert agent.retrieve(query, top_k=2, record_access=False).ids[0] == theirs.id


def test_mmr_makes_room_for_a_different_fact(store) -> None:
    agent = _agent(store)
    wordings = [agent.encode(text) for text in (
        "The deploy runs every Tuesday at 10 am.", "Every Tuesday at 10 am the deploy runs.",
        "Deploy: Tuesday, 10 am, every week, it runs.")]
    other = agent.encode("The deploy needs approval from the release manager.")
    agent.encode_many([{"content": text} for text in FILLER])
    query = "When does the deploy run?"
    store.config.retrieval.query.mmr_lambda = 1.0
    assert other.id not in agent.retrieve(query, top_k=2, record_access=False).ids
    store.config.retrieval.query.mmr_lambda = 0.5
    diverse = agent.retrieve(query, top_k=2, record_access=False).ids
    assert other.id in diverse and len(set(diverse) & {w.id for w in wordings}) == 1


def test_hyde_searches_with_the_hypothetical_answers(store) -> None:
    agent = _agent(store)
    agent.encode_many([{"content": text} for text in FILLER])
    store.config.retrieval.query.intents.temporal.hyde = True
    calls: list[list[str]] = []
    embed = store.embedder.embed

    def counting(texts):
        calls.append(list(texts))
        return embed(texts)

    store.embedder.embed = counting  # a real embedder, watched: which texts does the search embed?
    try:
        agent.retrieve("When did we watch the documentary?", record_access=False)
    finally:
        del store.embedder.embed
    assert ["we watch the documentary yesterday.", "we watch the documentary last week."] in calls


def test_a_why_question_walks_caused_by_to_the_cause(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="ops")
    cause = agent.encode("The server ran out of disk space on Sunday.")
    clock.advance(seconds=60)
    effect = agent.encode("That's why the nightly backup failed.")
    edges = store.graph.get_edges([effect.id], agent.visible_scope_keys)
    assert any(e.type == cg.EdgeType.CAUSED_BY and (e.src, e.dst) == (effect.id, cause.id) for e in edges)
    agent.encode_many([{"content": text} for text in FILLER])
    result = agent.retrieve("Why did the nightly backup fail?", top_k=3, record_access=False)
    assert result.intent == QueryIntent.CAUSAL
    found = {hit.trace.id: hit for hit in result.traces}
    assert cause.id in found and "causal" in found[cause.id].sources
    store.config.retrieval.query.intents.causal.causal_hops = 0
    plain = {hit.trace.id: hit for hit in agent.retrieve("Why did the nightly backup fail?", top_k=3,
                                                         record_access=False).traces}
    assert cause.id not in plain or "causal" not in plain[cause.id].sources


def test_the_llm_reads_the_intent_and_writes_the_hypothetical_answer(tmp_path, clock) -> None:
    """With an LLM configured (the real OpenAI client against a local server speaking its API),
    the intent and the HyDE answer come from it; a reply that names no intent, or a failing
    LLM, falls back to the keyword rules and the templates."""
    asked: list[tuple[str, str]] = []
    answers = {"intent": "temporal", "hyde": "We watched the whale documentary on Sunday evening."}

    def respond(system: str, user: str) -> str:
        asked.append((system, user))
        if "Classify" in system:
            return answers["intent"]
        return answers["hyde"]

    with FakeOpenAIChat(respond) as api, \
            cg.open(home=tmp_path / "h", embedder="hash", clock=clock, llm=api.chat()) as store:
        query = store.config.retrieval.query
        query.classifier, query.hyde = "llm", "llm"
        query.intents.temporal.hyde = True
        agent = _agent(store)
        agent.encode_many([{"content": text} for text in FILLER])
        embedded: list[list[str]] = []
        real = store.embedder.embed
        store.embedder.embed = lambda texts: embedded.append(list(texts)) or real(texts)
        try:
            result = agent.retrieve("Tell me about the documentary", record_access=False)
        finally:
            del store.embedder.embed
        assert classify_intent("Tell me about the documentary") == QueryIntent.ENTITY_PROFILE
        assert result.intent == QueryIntent.TEMPORAL, "the LLM's reading, not the rules'"
        assert [answers["hyde"]] in embedded, "the dense search used the LLM's hypothetical answer"
        assert {user for _, user in asked} == {"Tell me about the documentary"}
        answers["intent"] = "no idea"
        assert agent.retrieve("Tell me about the documentary", record_access=False).intent == \
            QueryIntent.ENTITY_PROFILE, "an answer that names no intent: the rules"
        api.responder = lambda system, user: 1 / 0  # the LLM fails: rules and templates answer
        failing = agent.retrieve("When did we watch the documentary?", record_access=False)
        assert failing.intent == QueryIntent.TEMPORAL and failing.traces
