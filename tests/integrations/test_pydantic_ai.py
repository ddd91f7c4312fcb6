"""Pydantic AI on cogmem: `remember`, `recall` and `forget` called by a scripted model
(`FunctionModel`, no network), and `CogmemMemory` carrying what a user said in one run to
the model of a later run with no message history, on a sync and on an async handle. The
conformance cases run on Pydantic AI's own way to carry a conversation over (the previous
run's messages as `message_history`) and on cogmem's, asserting the same thing: what the
scripted model was given."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.capabilities", reason="the pydantic-ai extra is not installed")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

from cogmem_graph.integrations.pydantic_ai import CogmemMemory, memory_instructions, memory_tools  # noqa: E402

FACT = "My sister Ana lives in Porto and works as an architect."
QUESTION = "Where does my sister live?"


class Scripted:
    """A `FunctionModel` that plays a script (tool calls or text), whatever it is asked, and
    notes what each request gave it: the instructions and the text of every message part."""

    def __init__(self, turns: Iterable[ModelResponse]) -> None:
        self.turns = iter(list(turns))
        self.instructions: list[str] = []
        self.messages: list[list[str]] = []
        self.tools: list[list[str]] = []
        self.model = FunctionModel(self._respond)

    def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.instructions.append(info.instructions or "")
        self.messages.append([str(getattr(part, "content", "")) for m in messages for part in m.parts])
        self.tools.append([tool.name for tool in info.function_tools])
        return next(self.turns)

    def given(self, request: int) -> str:
        """All the text request number `request` gave the model."""
        return "\n".join([self.instructions[request], *self.messages[request]])


def calls(name: str, **args: Any) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(name, args)])


def says(text: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(text)])


def tool_answers(messages: list[ModelMessage]) -> list[str]:
    return [part.content for m in messages if isinstance(m, ModelRequest)
            for part in m.parts if isinstance(part, ToolReturnPart)]


def test_the_tools_publish_their_argument_schemas(memory, uid) -> None:
    remember, recall, forget = memory_tools(memory.agent(f"pa-{uid}", user_id=f"u-{uid}"))
    assert [t.name for t in (remember, recall, forget)] == ["remember", "recall", "forget"]
    assert all(t.description for t in (remember, recall, forget))
    schema = recall.tool_def.parameters_json_schema
    assert schema["required"] == ["query"] and schema["properties"]["top_k"]["maximum"] == 50
    assert remember.tool_def.parameters_json_schema["properties"]["type"]["enum"] == \
        ["semantic", "episodic", "procedural"]


def test_a_model_remembers_recalls_and_forgets_through_the_tools(memory, uid) -> None:
    handle = memory.agent(f"pa-{uid}", user_id=f"u-{uid}")

    def run(script: list[ModelResponse], text: str) -> list[str]:
        agent = Agent(Scripted(script).model, instructions="Be brief.", tools=memory_tools(handle))
        return tool_answers(agent.run_sync(text).new_messages())

    [stored] = run([calls("remember", content="The user's sister lives in Porto", tags=["family"]), says("Noted.")],
                   "My sister lives in Porto.")
    assert stored.startswith("Remembered (id mt_")
    sister = stored.removeprefix("Remembered (id ").removesuffix(").")
    assert handle.get(sister).trace.tags == ["family"]
    [found] = run([calls("recall", query="Where does the user's sister live?", top_k=2), says("Porto.")], QUESTION)
    assert found.startswith(f"[{sister}] (score ") and found.endswith("The user's sister lives in Porto")
    assert run([calls("forget", ids=[sister, "mt_unknown"]), says("Done.")], "Forget it.") == \
        ["Forgot 1 memory (versions included). Not found: mt_unknown."]
    assert run([calls("recall", query="sister Porto"), says("?")], "?") == ["No memory matches."]


def test_bad_arguments_come_back_to_the_model_as_the_tools_answer(memory, uid) -> None:
    handle = memory.agent(f"pa-{uid}", user_id=f"u-{uid}")
    script = Scripted([calls("recall", query="   "), calls("remember", content=""),
                       calls("recall", query="x", top_k=500), says("Sorry.")])
    result = Agent(script.model, tools=memory_tools(handle)).run_sync("?")
    assert tool_answers(result.new_messages()) == [
        "query must be a non-empty string", "content: String should have at least 1 character",
        "top_k: Input should be less than or equal to 50"]


# ------------------------------------------------ conformance: Pydantic AI's history and cogmem


def history_sessions(memory: Any, user: str) -> tuple[Callable[[str], Any], Callable[[str], Scripted]]:
    """Pydantic AI's own way: the second run is given the first run's messages."""
    kept: dict[str, list[ModelMessage]] = {}

    def tell(text: str) -> None:
        kept[user] = Agent(Scripted([says("Noted.")]).model).run_sync(text).all_messages()

    def ask(text: str, who: str = user) -> Scripted:
        script = Scripted([says("...")])
        Agent(script.model, instructions="Be brief.").run_sync(text, message_history=kept.get(who))
        return script

    return tell, ask


def cogmem_sessions(memory: Any, user: str) -> tuple[Callable[[str], Any], Callable[[str], Scripted]]:
    """cogmem's: each run is a new thread with no message history; the memory carries it."""

    def tell(text: str) -> None:
        handle = memory.agent("pa-assistant", user_id=user, thread_id="session-1")
        Agent(Scripted([says("Noted.")]).model, capabilities=[CogmemMemory(agent=handle)]).run_sync(text)

    def ask(text: str, who: str = user) -> Scripted:
        script = Scripted([says("...")])
        handle = memory.agent("pa-assistant", user_id=who, thread_id="session-2")
        Agent(script.model, instructions="Be brief.", capabilities=[CogmemMemory(agent=handle)]).run_sync(text)
        return script

    return tell, ask


@pytest.fixture(params=["pydantic-ai history", "cogmem"])
def sessions(request: pytest.FixtureRequest, memory: Any, uid: str) -> Any:
    make = history_sessions if request.param == "pydantic-ai history" else cogmem_sessions
    return lambda user: make(memory, f"{user}-{uid}")


def test_conformance_what_the_user_said_reaches_the_next_sessions_model(sessions) -> None:
    tell, ask = sessions("alice")
    tell(FACT)
    script = ask(QUESTION)
    assert FACT in script.given(0)
    assert script.messages[0][-1] == QUESTION         # the new question is what the model answers


def test_conformance_another_users_session_is_not_given_it(sessions, uid) -> None:
    tell, ask = sessions("alice")
    tell(FACT)
    script = ask(QUESTION, f"bob-{uid}")
    assert "Porto" not in script.given(0)
    assert script.instructions == ["Be brief."]


# ------------------------------------------------ two sessions on a sync and an async handle


@pytest.mark.parametrize(("kind", "entry"), [("sync", "run_sync"), ("sync", "run"), ("async", "run"),
                                           ("async", "run_sync")])
def test_a_later_run_in_a_new_thread_is_given_what_the_user_said(kind, entry, memory, async_memory, uid) -> None:
    """`cg.open` or `cg.open_async`, through `Agent.run_sync` or `Agent.run`."""
    store = memory if kind == "sync" else async_memory

    def session(thread: str, script: Scripted, text: str) -> Any:
        handle = store.agent(f"pa-{uid}", user_id=f"u-{uid}", thread_id=thread)
        agent = Agent(script.model, instructions="Be brief.", capabilities=[CogmemMemory(agent=handle)])
        return agent.run_sync(text) if entry == "run_sync" else asyncio.run(agent.run(text))

    first = Scripted([says("Nice, Porto is a lovely city.")])
    session("session-1", first, FACT)
    assert first.instructions == ["Be brief."]                     # nothing was remembered before

    later = Scripted([says("In Porto.")])
    result = session("session-2", later, QUESTION)
    assert later.messages == [[QUESTION]]                          # no history: the fact comes from memory
    assert later.instructions[0].startswith("Be brief.\n\n<memory>\n") and FACT in later.instructions[0]
    kept = [r.trace.content for r in memory.agent(f"pa-{uid}", user_id=f"u-{uid}").list(limit=50).items]
    assert "The assistant said: Nice, Porto is a lovely city." in kept  # the model's reply is remembered too
    assert result.output == "In Porto."


def test_the_memory_is_assembled_again_after_a_tool_call(memory, uid) -> None:
    handle = memory.agent(f"pa-{uid}", user_id=f"u-{uid}", thread_id="t")
    handle.encode("The user's sister lives in Porto")
    script = Scripted([calls("remember", content="The user's brother lives in Lyon"), says("Noted.")])
    Agent(script.model, capabilities=[CogmemMemory(agent=handle, tools=True, token_budget=200)]).run_sync(
        "Where does my sister live? And my brother lives in Lyon.")
    assert script.tools[0] == ["remember", "recall", "forget"]
    first, second = script.instructions
    assert "The user's sister lives in Porto" in first and "Lyon" not in first
    assert "The user's brother lives in Lyon" in second


class Observed:
    """A real handle that notes the turns it is given to observe."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.turns = agent, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)

    def observe(self, role: str, text: str) -> Any:
        self.turns.append((role, text))
        return self.agent.observe(role, text)


def test_only_what_the_user_and_the_model_said_is_observed(memory, uid) -> None:
    handle = Observed(memory.agent(f"pa-{uid}", user_id=f"u-{uid}", thread_id="t"))
    script = Scripted([calls("recall", query="sister"), says("Porto suits an architect well.")])
    Agent(script.model, system_prompt="You are a travel assistant.",
          capabilities=[CogmemMemory(agent=handle, tools=True)]).run_sync(FACT)
    assert handle.turns == [("user", FACT), ("assistant", "Porto suits an architect well.")]
    assert [record.trace.content for record in handle.list().items] == [FACT]   # the observer kept the fact


def test_bad_arguments_are_refused_naming_the_argument(memory, uid) -> None:
    handle = memory.agent(f"pa-{uid}", user_id=f"u-{uid}")
    with pytest.raises(ValueError, match="agent must be a cogmem agent handle"):
        memory_tools(object())
    with pytest.raises(ValueError, match="agent must be a cogmem agent handle"):
        CogmemMemory(agent=object())
    with pytest.raises(ValueError, match="token_budget must be a positive integer"):
        memory_instructions(handle, token_budget=0)
    with pytest.raises(ValueError, match="top_k must be a positive integer"):
        CogmemMemory(agent=handle, top_k=0)

    class ServerLike:                                 # what cg.connect's handle offers: no flush
        def observe(self, role: str, text: str) -> None: ...

        def assemble_for_prompt(self, query: str, **options: Any) -> None: ...

    with pytest.raises(ValueError, match="flush needs a handle with flush_observations"):
        CogmemMemory(agent=ServerLike())
    assert CogmemMemory(agent=ServerLike(), flush=False).flush is False
