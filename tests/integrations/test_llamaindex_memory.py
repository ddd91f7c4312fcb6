"""`CogmemMemoryBlock` in LlamaIndex's `Memory`, on an embedded memory store: the turns that
leave the chat window become memories, the next question is given them back as context,
a chat engine on LlamaIndex's mock LLM is prompted with it, and one user's memory never
reaches another's chat."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

pytest.importorskip("llama_index.core.memory", reason="the llamaindex extra is not installed")

from llama_index.core.chat_engine import SimpleChatEngine  # noqa: E402
from llama_index.core.llms import ChatMessage, MockLLM  # noqa: E402
from llama_index.core.memory import Memory  # noqa: E402
from pydantic import ValidationError  # noqa: E402

from cogmem_graph.integrations.llamaindex import CogmemMemoryBlock  # noqa: E402

FACT = "My sister Ana lives in Porto and works as an architect."
CHAT = [ChatMessage(role="system", content="You are a cooking assistant."),
        ChatMessage(role="user", content=FACT),
        ChatMessage(role="assistant", content="Nice, Porto is a lovely city."),
        ChatMessage(role="user", content="What should I cook tonight?"),
        ChatMessage(role="assistant", content="Try a mushroom risotto.")]
QUESTION = "Where does my sister live?"


def chat_memory(agent: Any, session_id: str, **block: Any) -> Memory:
    """A `Memory` whose window (40 tokens × 0.7) holds about one exchange: putting the second
    pushes the first out, to the blocks."""
    return Memory.from_defaults(session_id=session_id, token_limit=40,
                                memory_blocks=[CogmemMemoryBlock(agent=agent, **block)])


def chat_text(messages: list[ChatMessage]) -> str:
    return "\n".join(m.content or "" for m in messages if m.role.value != "system")


def test_turns_that_leave_the_chat_become_memories_and_come_back_as_context(memory, uid) -> None:
    agent = memory.agent(f"li-{uid}", user_id=f"u-{uid}", thread_id="chat-1")
    chat = chat_memory(agent, "chat-1")
    chat.put_messages([m.model_copy() for m in CHAT])

    history = chat.get(QUESTION)
    system = history[0]
    assert system.role.value == "system" and "<cogmem>" in system.content, system.content
    assert FACT in system.content                     # from cogmem: the chat itself no longer holds it
    assert "Porto" not in chat_text(history) and "risotto" in chat_text(history)

    stored = {record.trace.content: record.trace for record in agent.list().items}
    assert stored[FACT].scope.value == "user" and "observation" in stored[FACT].tags
    assert "The assistant said: Nice, Porto is a lovely city." in stored
    assert not [text for text in stored if "cooking assistant" in text]   # the system prompt is not a turn


def test_a_chat_engine_on_the_mock_llm_is_prompted_with_the_memory_of_an_earlier_chat(async_memory, uid) -> None:
    async def run() -> tuple[str, str]:
        first = async_memory.agent(f"li-{uid}", user_id=f"u-{uid}", thread_id="chat-1")
        await chat_memory(first, "chat-1").aput_messages([m.model_copy() for m in CHAT])
        later = async_memory.agent(f"li-{uid}", user_id=f"u-{uid}", thread_id="chat-2")   # another chat, same user
        engine = SimpleChatEngine.from_defaults(llm=MockLLM(), memory=chat_memory(later, "chat-2"))
        answer = await engine.achat(QUESTION)
        return str(answer), (await later.assemble_for_prompt(QUESTION)).text

    prompt, context = asyncio.run(run())     # the mock LLM answers with the prompt it was given
    assert FACT in context
    assert f"<cogmem>\n{context}\n</cogmem>" in prompt and prompt.rstrip().endswith(f"user: {QUESTION}\nassistant:")


def test_one_users_memory_never_reaches_anothers_chat(memory, uid) -> None:
    alice = memory.agent(f"li-{uid}", user_id=f"alice-{uid}", thread_id="chat-1")
    bob = memory.agent(f"li-{uid}", user_id=f"bob-{uid}", thread_id="chat-1")
    chat_memory(alice, "chat-1").put_messages([m.model_copy() for m in CHAT])
    assert FACT in chat_memory(alice, "chat-1").get(QUESTION)[0].content

    bobs = chat_memory(bob, "chat-1")                 # the same agent and session id, another user
    bobs.put(ChatMessage(role="user", content="Hello"))
    assert [m.role.value for m in bobs.get(QUESTION)] == ["user"]
    assert asyncio.run(bobs.memory_blocks[0].aget([ChatMessage(role="user", content=QUESTION)])) == ""
    assert bob.list().items == []


class Witness:
    """A real handle whose calls note the thread they ran on."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.threads = agent, []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.agent, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            self.threads.append(threading.current_thread())
            return method(*args, **kwargs)
        return call


def test_a_sync_handle_is_called_off_the_event_loop(memory, uid) -> None:
    witness = Witness(memory.agent(f"li-{uid}", user_id=f"u-{uid}"))
    block = CogmemMemoryBlock(agent=witness)
    asyncio.run(block.aput([ChatMessage(role="user", content=FACT)]))
    assert FACT in asyncio.run(block.aget([ChatMessage(role="user", content=QUESTION)]))
    assert len(witness.threads) == 3                  # observe, flush_observations, assemble_for_prompt
    assert threading.main_thread() not in witness.threads


def test_bad_arguments_are_refused_naming_the_argument(memory, uid) -> None:
    agent = memory.agent(f"li-{uid}", user_id=f"u-{uid}")
    with pytest.raises(ValidationError, match=r"agent\n.*agent must be a cogmem agent handle"):
        CogmemMemoryBlock(agent=object())
    with pytest.raises(ValidationError, match=r"token_budget\n.*greater than or equal to 1"):
        CogmemMemoryBlock(agent=agent, token_budget=0)

    class ServerLike:                                 # what cg.connect's handle offers: no flush
        def observe(self, role: str, text: str) -> None: ...

        def assemble_for_prompt(self, query: str, **options: Any) -> None: ...

    with pytest.raises(ValidationError, match="flush needs a handle with flush_observations"):
        CogmemMemoryBlock(agent=ServerLike())
    assert CogmemMemoryBlock(agent=ServerLike(), flush=False).flush is False
