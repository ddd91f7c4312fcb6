"""Bounded work per call: an argument past a documented limit is refused at once, before any
work is done, with a `ValueError` that names the argument and the limit; anything within the
limits is accepted. The limits are listed in docs/reliability.md.

- `top_k` of `retrieve`, `multi_hop`, `assemble_for_prompt` (and `viz`): at most
  `config.retrieval.max_top_k` (1,000), the same limit the CLI applies;
- tags and entities per memory (`MAX_TAGS`, `MAX_ENTITIES`) and the size of `metadata`
  (`MAX_METADATA_CHARS`, as JSON);
- event times and other epoch-ms times: at most `MAX_EPOCH_MS` (the end of year 9999);
- `encode_many` works through its items one batch at a time (at most `MAX_ENCODE_BATCH`),
  reading a generator lazily, so a very large call never holds more than a batch of
  requests and drafts at once.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest

import cogmem_graph as cg
from cogmem_graph.model import MAX_ENTITIES, MAX_EPOCH_MS, MAX_METADATA_CHARS, MAX_TAGS
from cogmem_graph.write import encode as write_encode

HUGE_TOP_K = (1_001, 10**9, 2**63, 2**100)


@pytest.fixture
def agent(store: cg.MemoryStore) -> cg.AgentMemory:
    agent = store.agent("bounded", user_id="u1", thread_id="t1", organization_id="acme")
    agent.encode_many([{"content": f"Maya Chen met Priya Nair about Atlas, note {i}"} for i in range(5)])
    return agent


# ---------------------------------------------------------------- 4. top_k


@pytest.mark.parametrize("top_k", HUGE_TOP_K)
def test_top_k_past_the_limit_is_refused_naming_argument_and_limit(agent: cg.AgentMemory, top_k: int) -> None:
    limit = agent.store.config.retrieval.max_top_k
    assert limit == 1_000
    calls = {
        "retrieve": lambda: agent.retrieve("Atlas", top_k=top_k),
        "multi_hop": lambda: agent.multi_hop("Atlas", top_k=top_k),
        "assemble_for_prompt": lambda: agent.assemble_for_prompt("Atlas", top_k=top_k),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError, match=rf"top_k\W.*({limit:,}|{limit})") as info:
            call()
        assert "top_k" in str(info.value), name


def test_top_k_at_the_limit_is_accepted(agent: cg.AgentMemory) -> None:
    limit = agent.store.config.retrieval.max_top_k
    assert agent.retrieve("Atlas", top_k=limit).traces
    assert agent.multi_hop("Atlas", top_k=limit).traces
    assert agent.assemble_for_prompt("Atlas", top_k=limit).trace_ids


def test_the_top_k_limit_is_the_configured_one(tmp_path, clock) -> None:
    config = cg.CogmemConfig()
    config.retrieval.max_top_k = 50
    with cg.open(home=tmp_path / "h", embedder="hash", clock=clock, config=config) as store:
        agent = store.agent("a", user_id="u")
        agent.encode("Atlas moves to Kubernetes")
        assert agent.retrieve("Atlas", top_k=50).traces
        with pytest.raises(ValueError, match="top_k must be at most 50"):
            agent.retrieve("Atlas", top_k=51)
        with pytest.raises(ValueError, match="top_k must be at most 50"):
            agent.multi_hop("Atlas", top_k=51)


# ---------------------------------------------------------------- 5. tags, entities, metadata


@pytest.mark.parametrize("field, limit", [("tags", MAX_TAGS), ("entities", MAX_ENTITIES)])
def test_lists_past_their_limit_are_refused_before_their_items_are_checked(
        agent: cg.AgentMemory, field: str, limit: int) -> None:
    # 100k items, the last one invalid: the count is refused first, no item-by-item work.
    items = [f"item {i}" for i in range(100_000)] + ["bad\x00"]
    with pytest.raises(ValueError, match=rf"{field}.*at most {limit}") as info:
        agent.encode("a memory with too many names", **{field: items})
    assert "NUL" not in str(info.value)


@pytest.mark.parametrize("field, limit", [("tags", MAX_TAGS), ("entities", MAX_ENTITIES)])
def test_lists_at_their_limit_are_stored_deduplicated_in_order(
        agent: cg.AgentMemory, field: str, limit: int) -> None:
    items = [f"Name{i:04d}" for i in range(limit - 1)] + ["Name0000"]  # one repeat
    trace = agent.encode(f"a memory with {limit} {field}", **{field: items})
    stored = agent.store.graph.get_traces([trace.id], agent.visible_scope_keys)[0]
    assert getattr(stored, field)[: limit - 1] == items[: limit - 1]
    assert len(getattr(stored, field)) == len(set(getattr(stored, field)))


def test_metadata_past_its_size_is_refused_naming_it(agent: cg.AgentMemory) -> None:
    with pytest.raises(ValueError, match=rf"metadata.*{MAX_METADATA_CHARS:,}"):
        agent.encode("ten megabytes of metadata", metadata={"blob": "x" * 10_000_000})
    with pytest.raises(ValueError, match=rf"metadata.*{MAX_METADATA_CHARS:,}"):
        agent.encode_many([{"content": "many keys"}] + [
            {"content": "many small keys", "metadata": {f"k{i}": i for i in range(20_000)}}])


def test_metadata_at_its_size_is_stored_verbatim(agent: cg.AgentMemory) -> None:
    metadata = {"dia_id": "D1:3", "blob": ""}
    metadata["blob"] = "y" * (MAX_METADATA_CHARS - len(json.dumps(metadata, ensure_ascii=False)))
    assert len(json.dumps(metadata, ensure_ascii=False)) == MAX_METADATA_CHARS
    trace = agent.encode("metadata right at the limit", metadata=metadata)
    assert agent.store.graph.get_traces([trace.id], agent.visible_scope_keys)[0].metadata == metadata


# ---------------------------------------------------------------- 7. times


@pytest.mark.parametrize("value", [MAX_EPOCH_MS + 1, 10**20, 2**63])
def test_event_times_past_the_bound_are_refused(agent: cg.AgentMemory, value: int) -> None:
    with pytest.raises(ValueError, match="created_at"):
        agent.encode("from the far future", created_at=value)
    with pytest.raises(ValueError, match="created_at"):
        agent.observe("user", "a turn from the far future", created_at=value)
    with pytest.raises(ValueError, match="at must be"):
        agent.remind("a reminder in the far future", at=value)
    with pytest.raises(ValueError, match="every must be"):
        agent.remind("a reminder every eon", every=value)
    with pytest.raises(ValueError, match="created_at"):
        agent.store.encode_event("an event in the far future", [agent], created_at=value)


def test_event_times_at_the_bound_are_stored_exactly(agent: cg.AgentMemory) -> None:
    trace = agent.encode("the last millisecond of year 9999", created_at=MAX_EPOCH_MS)
    assert agent.store.graph.get_traces([trace.id], agent.visible_scope_keys)[0].created_at == MAX_EPOCH_MS
    assert agent.remind("far away", at=MAX_EPOCH_MS).trigger_at == MAX_EPOCH_MS
    assert agent.remind("yearly", every=timedelta(days=365)).interval_ms == 365 * 86_400_000


# ---------------------------------------------------------------- 6. encode_many in batches


def _trace_count(store: cg.MemoryStore) -> int:
    return store.graph.stats().total_traces


def test_a_generator_is_read_and_encoded_one_batch_at_a_time(agent: cg.AgentMemory) -> None:
    """A batch_size past the cap is served in batches of MAX_ENCODE_BATCH, and a generator
    is read lazily: when its first item of a batch is read, every batch before it is stored,
    so no more than one batch of requests is ever held."""
    cap = write_encode.MAX_ENCODE_BATCH
    start = _trace_count(agent.store)
    stored_when_read: dict[int, int] = {}

    def items():
        for i in range(2 * cap + 3):
            if i % cap == 0:
                stored_when_read[i] = _trace_count(agent.store) - start
            yield {"content": f"item number {i} of a long stream about topic {i % 7}"}

    traces = agent.encode_many(items(), batch_size=10 * cap)
    assert len(traces) == 2 * cap + 3 and len({t.id for t in traces}) == 2 * cap + 3
    assert stored_when_read == {0: 0, cap: cap, 2 * cap: 2 * cap}


def test_a_bad_item_in_a_large_list_stores_nothing_and_names_its_index(agent: cg.AgentMemory) -> None:
    cap = write_encode.MAX_ENCODE_BATCH
    before = _trace_count(agent.store)
    items = [{"content": f"fine item {i}"} for i in range(cap + 5)] + [{"content": ""}]
    with pytest.raises(ValueError, match=rf"items\[{cap + 5}\]\.content"):
        agent.encode_many(items, batch_size=cap)
    assert _trace_count(agent.store) == before


def test_a_bad_item_in_a_generator_stops_it_naming_its_index(agent: cg.AgentMemory) -> None:
    cap = write_encode.MAX_ENCODE_BATCH
    before = _trace_count(agent.store)
    items = ({"content": f"streamed item {i}"} if i != cap + 5 else {"content": "x", "tags": "not a list"}
             for i in range(cap + 10))
    with pytest.raises(ValueError, match=rf"items\[{cap + 5}\]\.tags"):
        agent.encode_many(items, batch_size=cap)
    assert _trace_count(agent.store) == before + cap, "the batch before the bad item was stored"


def test_refusals_are_immediate(agent: cg.AgentMemory) -> None:
    """Not a timing assertion on the work itself: every refusal above happens before any
    graph or vector call, so this whole set runs in well under the test's time budget even
    though each argument would have meant minutes of work (printed for the record)."""
    started = time.perf_counter()
    for call in (lambda: agent.retrieve("Atlas", top_k=10**9),
                 lambda: agent.multi_hop("Atlas", top_k=10**9),
                 lambda: agent.encode("x", tags=[str(i) for i in range(100_000)]),
                 lambda: agent.encode("x", entities=[str(i) for i in range(100_000)]),
                 lambda: agent.encode("x", metadata={"blob": "x" * 10_000_000})):
        with pytest.raises(ValueError):
            call()
    print(f"five refusals in {time.perf_counter() - started:.3f} s")
