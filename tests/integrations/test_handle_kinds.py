"""Every integration on a sync handle (`cg.open`) and on an async one (`cg.open_async`), through
its sync entry points (`invoke`, `put`, `get`, ...) and its async ones (`ainvoke`, `aput`,
...): the same answers either way. A sync call on an async handle inside a running event loop
is refused with the async method to use, and does nothing."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

pytest.importorskip("langchain_core.tools", reason="the langchain extra is not installed")
pytest.importorskip("langgraph.store.base", reason="the langgraph extra is not installed")
pytest.importorskip("llama_index.core.memory", reason="the llamaindex extra is not installed")
pytest.importorskip("agents.memory", reason="the openai-agents extra is not installed")

from agents import Agent, Runner, set_tracing_disabled  # noqa: E402
from agents.items import ToolCallOutputItem  # noqa: E402
from llama_index.core.llms import ChatMessage  # noqa: E402
from llama_index.core.memory import Memory  # noqa: E402

import cogmem_graph as cg  # noqa: E402
from cogmem_graph.integrations import openai_agents  # noqa: E402
from cogmem_graph.integrations.langchain import CogmemRetriever, memory_tools  # noqa: E402
from cogmem_graph.integrations.langgraph import CogmemStore  # noqa: E402
from cogmem_graph.integrations.llamaindex import CogmemMemoryBlock  # noqa: E402
from tests.integrations.scripted_agents_model import ScriptedModel, calls, says  # noqa: E402

set_tracing_disabled(True)

FACTS = ["The build server is called Hopper", "The user's sister lives in Porto", "The office cat is named Miso",
         "The user drinks green tea every morning", "The team meets on Tuesdays"]


@pytest.fixture(params=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def stores(kind: str, memory: cg.MemoryStore, async_memory: cg.AsyncMemoryStore) -> Any:
    """The module's store as `cg.open` or as `cg.open_async` gives it."""
    return memory if kind == "sync" else async_memory


def remembered_id(answer: str) -> str:
    return answer.removeprefix("Remembered (id ").removesuffix(").")


# ---------------------------------------------------------------- LangChain


def test_the_langchain_tools_answer_the_same_through_invoke_and_ainvoke(stores, memory, uid) -> None:
    remember, recall, forget = memory_tools(stores.agent(f"lc-{uid}", user_id=f"u-{uid}"))
    tea = remembered_id(remember.invoke({"content": "The user drinks green tea every morning"}))
    assert memory.agent(f"lc-{uid}", user_id=f"u-{uid}").get(tea).trace.content.endswith("green tea every morning")
    answer = recall.invoke({"query": "what does the user drink", "top_k": 1})
    assert answer.startswith(f"[{tea}] (score ")

    async def scenario() -> tuple[str, Any, str]:
        hopper = remembered_id(await remember.ainvoke({"content": "The build server is called Hopper"}))
        found = await recall.ainvoke({"name": "recall", "args": {"query": "name of the build server", "top_k": 1},
                                      "id": "1", "type": "tool_call"})
        return hopper, found, await forget.ainvoke({"ids": [hopper]})

    hopper, found, gone = asyncio.run(scenario())
    assert found.content.startswith(f"[{hopper}] (score ") and found.artifact[0].id == hopper
    assert gone == "Forgot 1 memory (versions included)."
    assert forget.invoke({"ids": [tea, "mt_unknown"]}) == "Forgot 1 memory (versions included). Not found: mt_unknown."
    assert recall.invoke({"query": "tea or build server"}) == "No memory matches."


def test_the_retriever_answers_the_same_through_invoke_and_ainvoke(stores, uid) -> None:
    agent = stores.agent(f"lc-{uid}", user_id=f"u-{uid}")
    remember = memory_tools(agent)[0]
    ids = [remembered_id(remember.invoke({"content": fact})) for fact in FACTS]
    retriever = CogmemRetriever(agent=agent)
    documents = retriever.invoke("What is the build server called?")
    assert len(documents) == 5 and documents[0].id == ids[0]
    assert [d.id for d in retriever.invoke("What is the build server called?", k=2)] == [d.id for d in documents[:2]]
    assert len(asyncio.run(retriever.ainvoke("build server", top_k=3))) == 3
    assert [d.id for d in asyncio.run(retriever.ainvoke("office cat", k=1))] == [ids[2]]


def test_a_sync_call_on_an_async_handle_in_a_running_loop_is_refused_and_does_nothing(async_memory, memory,
                                                                                      uid) -> None:
    agent = async_memory.agent(f"lc-{uid}", user_id=f"u-{uid}")
    remember, recall, _ = memory_tools(agent)
    retriever = CogmemRetriever(agent=agent)
    lg = CogmemStore(async_memory, agent_id=f"lg-{uid}")

    async def scenario() -> list[str]:
        refused = []
        for sync_call in (lambda: remember.invoke({"content": "written from inside a loop"}),
                          lambda: recall.invoke({"query": "anything"}),
                          lambda: retriever.invoke("anything"),
                          lambda: lg.put(("notes",), "k", {"content": "written from inside a loop"})):
            with pytest.raises(RuntimeError, match="inside a running event loop") as error:
                sync_call()
            refused.append(str(error.value))
        return refused

    refused = asyncio.run(scenario())
    assert [message.rsplit("await ", 1)[1] for message in refused] == [
        "the tool's ainvoke instead", "the tool's ainvoke instead", "the retriever's ainvoke instead",
        "the store's async method (aget, aput, asearch, ...) instead"]
    assert memory.agent(f"lc-{uid}", user_id=f"u-{uid}").list().items == []
    assert memory.agent(f"lg-{uid}").list().items == []


def test_a_sync_call_on_an_async_handle_runs_off_the_callers_thread_and_awaits_on_its_loop(async_memory,
                                                                                          uid) -> None:
    """The async handle's call runs on cogmem's own loop: the caller's thread has no loop to run it."""
    agent = async_memory.agent(f"lc-{uid}", user_id=f"u-{uid}")
    threads: list[str] = []
    retrieve = agent.retrieve

    async def witnessed(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return await retrieve(*args, **kwargs)

    agent.retrieve = witnessed
    CogmemRetriever(agent=agent).invoke("anything")
    assert threads == ["cogmem-sync-calls"]


# ---------------------------------------------------------------- LangGraph


def test_the_langgraph_store_answers_the_same_through_its_sync_and_async_methods(stores, uid) -> None:
    lg = CogmemStore(stores, agent_id=f"lg-{uid}")
    lg.put(("users", f"u-{uid}", "prefs"), "drink", {"content": "green tea every morning"})
    lg.put(("notes",), "server", {"content": "the build server is called Hopper"})
    assert lg.get(("users", f"u-{uid}", "prefs"), "drink").value == {"content": "green tea every morning"}
    assert [item.key for item in lg.search(("notes",), query="build server")] == ["server"]

    async def scenario() -> tuple[Any, ...]:
        await lg.aput(("notes",), "cat", {"content": "the office cat is named Miso"})
        await asyncio.gather(*(lg.aput(("notes",), f"n{n}", {"content": f"parallel note {n}"}) for n in range(3)))
        got = await lg.aget(("notes",), "cat")
        found = await lg.asearch(("notes",), query="office cat", limit=1)
        spaces = await lg.alist_namespaces()
        receipt = await lg.aforget(("notes",), "n0")
        await lg.adelete(("notes",), "server")
        return got, found, spaces, receipt, await lg.asearch(("notes",), limit=10)

    got, found, spaces, receipt, rest = asyncio.run(scenario())
    assert got.value == {"content": "the office cat is named Miso"} and [i.key for i in found] == ["cat"]
    assert spaces == [("notes",), ("users", f"u-{uid}", "prefs")] and len(receipt.forgotten) == 1
    assert sorted(item.key for item in rest) == ["cat", "n1", "n2"]
    assert lg.get(("notes",), "server") is None and lg.get(("notes",), "cat").value == got.value


# ---------------------------------------------------------------- LlamaIndex


def test_the_llamaindex_block_answers_the_same_through_get_and_aget(stores, uid) -> None:
    chat = Memory.from_defaults(session_id=f"s-{uid}", token_limit=40,
                                memory_blocks=[CogmemMemoryBlock(agent=stores.agent(f"li-{uid}", user_id=f"u-{uid}"))])
    chat.put_messages([ChatMessage(role="user", content="My sister Ana lives in Porto and works as an architect."),
                       ChatMessage(role="assistant", content="Nice, Porto is a lovely city."),
                       ChatMessage(role="user", content="What should I cook tonight?"),
                       ChatMessage(role="assistant", content="Try a mushroom risotto.")])
    said = chat.get("Where does my sister live?")[0].content
    assert "My sister Ana lives in Porto" in said
    assert "My sister Ana lives in Porto" in asyncio.run(chat.aget("Where does my sister live?"))[0].content


# ---------------------------------------------------------------- OpenAI Agents SDK


def test_the_agents_sdk_tools_and_session_answer_the_same_through_run_sync_and_run(stores, uid) -> None:
    handle = stores.agent(f"oa-{uid}", user_id=f"u-{uid}", thread_id="chat-1")
    session = openai_agents.CogmemSession(handle)

    def agent(model: ScriptedModel) -> Agent:
        return Agent(name="assistant", instructions="Be brief.", tools=openai_agents.memory_tools(handle), model=model)

    def outputs(result: Any) -> list[str]:
        return [item.output for item in result.new_items if isinstance(item, ToolCallOutputItem)]

    first = Runner.run_sync(agent(ScriptedModel([calls("remember", content="The office cat is named Miso",
                                                       type="semantic", tags=[]), says("Noted.")])),
                            "Our office cat is Miso.", session=session)
    [stored] = outputs(first)
    later = asyncio.run(Runner.run(agent(ScriptedModel([calls("recall", query="office cat", top_k=1), says("Miso.")])),
                                   "What is the cat called?", session=session))
    assert outputs(later)[0].startswith(f"[{remembered_id(stored)}] (score ")
    notes = [note.content for note in asyncio.run(session.flush()).notes]
    assert "Our office cat is Miso." in notes
