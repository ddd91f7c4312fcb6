"""The OpenAI Agents SDK on cogmem: `remember`, `recall` and `forget` called by a scripted
model through `Runner.run`, `CogmemSession` keeping the chat and feeding its turns to the
observer, `memory_context` putting the memory before each model call, and one user's
session and tools never seeing another's memories. On an embedded memory store, offline."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agents.memory", reason="the openai-agents extra is not installed")

from agents import Agent, RunConfig, Runner, SQLiteSession, set_tracing_disabled  # noqa: E402
from agents.items import ToolCallOutputItem  # noqa: E402
from agents.memory import Session  # noqa: E402

from cogmem_graph.integrations.openai_agents import CogmemSession, memory_context, memory_tools  # noqa: E402
from tests.integrations.scripted_agents_model import ScriptedModel, calls, says  # noqa: E402

set_tracing_disabled(True)   # no trace is exported; every model here is scripted, so no key is needed


def run(handle: Any, model: ScriptedModel, text: str, **options: Any) -> list[str]:
    """One `Runner.run` of an agent with the memory tools: the tools' answers, in order."""
    agent = Agent(name="assistant", instructions="Be brief.", tools=memory_tools(handle), model=model)
    result = asyncio.run(Runner.run(agent, text, **options))
    return [item.output for item in result.new_items if isinstance(item, ToolCallOutputItem)]


def test_the_tools_publish_strict_schemas(memory, uid) -> None:
    remember, recall, forget = memory_tools(memory.agent(f"oa-{uid}", user_id=f"u-{uid}"))
    assert [t.name for t in (remember, recall, forget)] == ["remember", "recall", "forget"]
    assert all(t.strict_json_schema and t.params_json_schema["additionalProperties"] is False and t.description
               for t in (remember, recall, forget))
    assert remember.params_json_schema["properties"]["type"]["enum"] == ["semantic", "episodic", "procedural"]
    assert recall.params_json_schema["required"] == ["query", "top_k"]
    assert recall.params_json_schema["properties"]["top_k"]["maximum"] == 50
    assert forget.params_json_schema["properties"]["ids"]["minItems"] == 1


def test_a_model_remembers_recalls_and_forgets_through_the_tools(memory, uid) -> None:
    handle = memory.agent(f"oa-{uid}", user_id=f"u-{uid}")
    [stored] = run(handle, ScriptedModel([calls("remember", content="The user's sister lives in Porto", type="semantic",
                                                tags=["family"]), says("Noted.")]), "My sister lives in Porto.")
    assert stored.startswith("Remembered (id mt_")
    sister_id = stored.removeprefix("Remembered (id ").removesuffix(").")
    assert handle.get(sister_id).trace.tags == ["family"]

    [found] = run(handle, ScriptedModel([calls("recall", query="Where does the user's sister live?", top_k=2),
                                         says("In Porto.")]), "Where does my sister live?")
    assert found.splitlines()[0].startswith(f"[{sister_id}] (score ")
    assert found.endswith("The user's sister lives in Porto")

    [gone] = run(handle, ScriptedModel([calls("forget", ids=[sister_id, "mt_unknown"]), says("Done.")]), "Forget it.")
    assert gone == "Forgot 1 memory (versions included). Not found: mt_unknown."
    assert run(handle, ScriptedModel([calls("recall", query="sister Porto", top_k=5), says("?")]), "?") == \
        ["No memory matches."]


def test_bad_arguments_come_back_to_the_model_as_the_tools_answer(memory, uid) -> None:
    handle = memory.agent(f"oa-{uid}", user_id=f"u-{uid}")
    answers = run(handle, ScriptedModel([calls("recall", query="   ", top_k=3), calls("remember", content="", tags=[]),
                                         calls("recall", query="x", top_k=500), says("Sorry.")]), "?")
    assert answers == ["query must be a non-empty string", "content: String should have at least 1 character",
                       "top_k: Input should be less than or equal to 50"]


def test_a_session_keeps_the_chat_and_its_turns_become_memories(async_memory, uid) -> None:
    async def chat() -> tuple[ScriptedModel, list[Any], list[str], list[str]]:
        handle = async_memory.agent(f"oa-{uid}", user_id=f"u-{uid}", thread_id="chat-1")
        session = CogmemSession(handle)
        model = ScriptedModel([calls("recall", query="sister", top_k=5), says("Noted, Porto it is."),
                               says("You said Porto.")])
        agent = Agent(name="assistant", instructions="Be brief.", tools=memory_tools(handle), model=model)
        await Runner.run(agent, "My sister Ana lives in Porto and works as an architect.", session=session)
        await Runner.run(agent, "Remind me where Ana lives?", session=session)
        notes = [note.content for note in (await session.flush()).notes]
        later = async_memory.agent(f"oa-{uid}", user_id=f"u-{uid}", thread_id="chat-2")   # another chat, same user
        found = await later.retrieve("Ana, architect in Porto", top_k=3)
        return model, await session.get_items(), notes, [hit.trace.content for hit in found.traces]

    model, history, notes, found = asyncio.run(chat())
    assert [len(seen.input) for seen in model.seen] == [1, 3, 5]      # the second run is given the first
    assert model.seen[2].input[0] == {"role": "user",
                                      "content": "My sister Ana lives in Porto and works as an architect."}
    assert [item.get("type", "message") for item in history] == ["message", "function_call", "function_call_output",
                                                                  "message", "message", "message"]
    assert "My sister Ana lives in Porto and works as an architect." in notes
    assert not [note for note in notes if "No memory matches" in note]   # a tool's output is not a turn
    assert "My sister Ana lives in Porto and works as an architect." in found


def test_memory_context_puts_the_memory_for_the_latest_question_before_each_model_call(memory, uid) -> None:
    handle = memory.agent(f"oa-{uid}", user_id=f"u-{uid}")
    handle.encode("The user's sister lives in Porto")
    model = ScriptedModel([calls("remember", content="The user's brother lives in Lyon", tags=[]), says("Noted.")])
    run(handle, model, "Where does my sister live? And my brother lives in Lyon.",
        run_config=RunConfig(call_model_input_filter=memory_context(handle, token_budget=200)))
    first, second = (seen.instructions for seen in model.seen)
    assert first.startswith("Be brief.\n\n<memory>\n") and first.endswith("\n</memory>")
    assert "The user's sister lives in Porto" in first and "Lyon" not in first
    assert "The user's brother lives in Lyon" in second       # assembled again after the tool remembered it


def test_one_users_session_and_tools_never_see_anothers_memories(memory, uid) -> None:
    alice = memory.agent(f"oa-{uid}", user_id=f"alice-{uid}", thread_id="chat-1")
    bob = memory.agent(f"oa-{uid}", user_id=f"bob-{uid}", thread_id="chat-1")   # same agent, same session id
    run(alice, ScriptedModel([calls("remember", content="The user's sister lives in Porto", tags=[]), says("Ok.")]),
        "My sister lives in Porto.", session=CogmemSession(alice))
    asyncio.run(CogmemSession(alice).flush())

    bobs = ScriptedModel([calls("recall", query="Where does the sister live? Porto", top_k=10), says("?")])
    answers = run(bob, bobs, "Where does my sister live?", session=CogmemSession(bob),
                  run_config=RunConfig(call_model_input_filter=memory_context(bob)))
    assert answers == ["No memory matches."]
    assert [seen.instructions for seen in bobs.seen] == ["Be brief.", "Be brief."]
    assert bob.list().items == [] and len(alice.list().items) == 2     # the tool's memory and the observed turn


def test_bad_arguments_are_refused_naming_the_argument(memory, uid) -> None:
    threadless = memory.agent(f"oa-{uid}", user_id=f"u-{uid}")
    with pytest.raises(ValueError, match="agent must be a cogmem agent handle"):
        memory_tools(object())
    with pytest.raises(ValueError, match="session_id must be a non-empty string"):
        CogmemSession(threadless)
    with pytest.raises(ValueError, match="session_id 'b' is not the agent handle's thread_id 'a'"):
        CogmemSession(memory.agent(f"oa-{uid}", user_id=f"u-{uid}", thread_id="a"), session_id="b")
    with pytest.raises(ValueError, match="history is session 'other', not session_id 'chat'"):
        CogmemSession(threadless, session_id="chat", history=SQLiteSession("other"))
    with pytest.raises(ValueError, match="history must be an Agents SDK Session"):
        CogmemSession(threadless, session_id="chat", history=[])
    with pytest.raises(ValueError, match="token_budget must be a positive integer"):
        memory_context(threadless, token_budget=0)
    session = CogmemSession(threadless, session_id="chat")
    assert session.session_id == "chat" and isinstance(session, Session)   # the SDK's protocol
