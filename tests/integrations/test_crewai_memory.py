"""CrewAI on cogmem: `CogmemCrewMemory` as a crew's memory, driven by a scripted LLM (no
network): what the user said in one kickoff reaches the model's prompt in a later kickoff of
a new crew on a new thread, on a sync and on an async handle. The conformance cases run on
CrewAI's own `Memory` (LanceDB storage, a local embedder) and on cogmem's, asserting the same
observable behaviour.

CrewAI pins packages the rest of the suite needs at other versions (mcp < 2, openai < 3,
pydantic < 2.13), so it lives in its own environment: `make test-crewai`."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import os
from typing import Any

import pytest

# Only where CrewAI is installed (its own environment), and before it is imported: set at
# collection, these reach every process the suite starts, and OTEL_SDK_DISABLED would silence
# the server's operation spans that another test checks.
if importlib.util.find_spec("crewai") is not None:
    os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")   # nothing leaves the machine
    os.environ.setdefault("OTEL_SDK_DISABLED", "true")
pytest.importorskip("crewai.memory.unified_memory", reason="the crewai extra is not installed")

from crewai import Agent, Crew, Task  # noqa: E402
from crewai.llms.base_llm import BaseLLM  # noqa: E402
from crewai.memory.storage.lancedb_storage import LanceDBStorage  # noqa: E402
from crewai.memory.unified_memory import Memory  # noqa: E402

from cogmem_graph.integrations.crewai import CogmemCrewMemory  # noqa: E402

FACT = "My sister Ana lives in Porto and works as an architect."
QUESTION = "Where does my sister live?"


class ScriptedLLM(BaseLLM):
    """Answers each call with the next line of its script, and notes the prompt it was given."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__(model="scripted")
        self._answers = iter(answers)
        self._seen: list[str] = []

    @property
    def seen(self) -> list[str]:
        return self._seen

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> str:
        texts = [messages] if isinstance(messages, str) else [str(m.get("content", "")) for m in messages]
        self._seen.append("\n".join(texts))
        return next(self._answers)

    def supports_function_calling(self) -> bool:
        return False


def final(text: str) -> str:
    return f"Thought: I now know the final answer\nFinal Answer: {text}"


def kickoff(memory: Any, llm: ScriptedLLM, message: str, *, asynchronous: bool = False) -> str:
    """One crew of one agent whose task is the user's message, on `memory`."""
    agent = Agent(role="assistant", goal="Help the user", backstory="A helpful assistant.", llm=llm)
    task = Task(description="The user says: {message}", expected_output="A short reply", agent=agent)
    crew = Crew(agents=[agent], tasks=[task], memory=memory)
    if asynchronous:
        return str(asyncio.run(crew.kickoff_async(inputs={"message": message})))
    return str(crew.kickoff(inputs={"message": message}))


@pytest.mark.parametrize(("kind", "asynchronous"), [("sync", False), ("async", False), ("async", True)])
def test_a_later_kickoff_on_a_new_thread_is_given_what_the_user_said(kind, asynchronous, memory, async_memory,
                                                                     uid) -> None:
    store = memory if kind == "sync" else async_memory
    first = ScriptedLLM([final("Noted.")])
    kickoff(CogmemCrewMemory(agent=store.agent(f"ca-{uid}", user_id=f"u-{uid}", thread_id="session-1")), first, FACT,
            asynchronous=asynchronous)
    assert "Memories from past conversations" not in first.seen[0]

    later = ScriptedLLM([final("In Porto.")])
    answer = kickoff(CogmemCrewMemory(agent=store.agent(f"ca-{uid}", user_id=f"u-{uid}", thread_id="session-2")),
                     later, QUESTION, asynchronous=asynchronous)
    assert answer == "In Porto."
    prompt = later.seen[0]
    assert "Memories from past conversations" in prompt and FACT in prompt.split("# Memories from past")[1]


def test_another_users_crew_is_not_given_it(memory, uid) -> None:
    kickoff(CogmemCrewMemory(agent=memory.agent(f"ca-{uid}", user_id=f"alice-{uid}")), ScriptedLLM([final("Ok.")]),
            FACT)
    bobs = ScriptedLLM([final("I do not know.")])
    kickoff(CogmemCrewMemory(agent=memory.agent(f"ca-{uid}", user_id=f"bob-{uid}")), bobs, QUESTION)
    assert "Porto" not in bobs.seen[0] and "Memories from past conversations" not in bobs.seen[0]


# ------------------------------------------------ conformance: CrewAI's Memory and cogmem's


def embed(texts: list[str]) -> list[list[float]]:
    """A local embedder for CrewAI's own memory (no network): hashed word counts."""
    vectors = []
    for text in texts:
        vector = [0.0] * 64
        for word in text.lower().replace(".", " ").replace("?", " ").split():
            vector[int(hashlib.sha1(word.encode()).hexdigest(), 16) % 64] += 1.0
        vectors.append(vector)
    return vectors


@pytest.fixture(params=["crewai", "cogmem"])
def crew_memories(request: pytest.FixtureRequest, memory: Any, tmp_path: Any, uid: str) -> Any:
    """`make(user)`: one user's memory, CrewAI's own (one LanceDB table, a root scope per user)
    or cogmem's (a handle per user)."""
    if request.param == "crewai":
        storage = LanceDBStorage(path=str(tmp_path / "lancedb"))

        def make(user: str) -> Any:
            return Memory(storage=storage, embedder=embed, llm=ScriptedLLM([]), root_scope=f"/user/{user}")
        return make
    return lambda user: CogmemCrewMemory(agent=memory.agent(f"ca-{uid}", user_id=f"{user}-{uid}"))


def remember(memory: Any, content: str, categories: list[str]) -> Any:
    """Every field given, so CrewAI's own memory asks no LLM to infer them."""
    return memory.remember(content, scope="/facts", categories=categories, importance=0.5, metadata={})


def test_conformance_what_is_remembered_is_recalled_best_first(crew_memories) -> None:
    alice = crew_memories("alice")
    sister = remember(alice, "The user's sister Ana lives in Porto", ["family"])
    remember(alice, "The user's car is a red bicycle", ["things"])
    found = alice.recall("Where does the user's sister Ana live?", limit=2, depth="shallow")
    assert found[0].record.id == sister.id and found[0].record.content == "The user's sister Ana lives in Porto"
    assert found[0].record.categories == ["family"] and len(found) <= 2
    assert "The user's sister Ana lives in Porto" in found[0].format()


def test_conformance_forgotten_memories_are_not_recalled(crew_memories) -> None:
    alice = crew_memories("alice")
    sister = remember(alice, "The user's sister Ana lives in Porto", ["family"])
    assert alice.forget(record_ids=[sister.id]) == 1
    assert [m.record.id for m in alice.recall("sister Ana Porto", limit=5, depth="shallow")] == []


def test_conformance_one_users_memory_is_not_recalled_for_another(crew_memories) -> None:
    remember(crew_memories("alice"), "The user's sister Ana lives in Porto", ["family"])
    assert crew_memories("bob").recall("sister Ana Porto", limit=5, depth="shallow") == []


def test_conformance_a_read_only_memory_stores_nothing(crew_memories) -> None:
    alice = crew_memories("alice")
    alice.read_only = True
    assert alice.remember("The user's sister Ana lives in Porto") is None
    assert alice.recall("sister Ana Porto", limit=5, depth="shallow") == []


def test_bad_arguments_are_refused_naming_the_argument(memory, uid) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="agent must be a cogmem agent handle"):
        CogmemCrewMemory(agent=object())
    handle = CogmemCrewMemory(agent=memory.agent(f"ca-{uid}", user_id=f"u-{uid}"))
    with pytest.raises(ValueError, match="takes record_ids only"):
        handle.forget(categories=["family"])
    with pytest.raises(ValueError, match="does not reset"):
        handle.reset()
