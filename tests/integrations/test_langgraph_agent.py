"""A LangGraph agent on `CogmemStore`: it stores a fact with LangMem's memory tool in one
conversation thread and finds it, through cogmem's retrieval, in another; another user's
run finds nothing. The chat model plays a script (no network)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("langgraph.prebuilt", reason="the langgraph extra is not installed")
langmem = pytest.importorskip("langmem", reason="langmem (dev extra) is not installed")

from langchain_core.messages import HumanMessage, ToolMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode, tools_condition  # noqa: E402

from cogmem_graph.integrations.langgraph import CogmemStore  # noqa: E402
from tests.integrations.scripted_model import calls, says, scripted  # noqa: E402


def agent_graph(model, tools, store):
    """The smallest tool-calling agent: the model, then its tools, until it answers."""
    bound = model.bind_tools(tools)

    def call_model(state: MessagesState) -> dict:
        return {"messages": [bound.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile(store=store, checkpointer=InMemorySaver())


def tool_answers(state: dict) -> list[str]:
    return [m.content for m in state["messages"] if isinstance(m, ToolMessage)]


def test_a_fact_stored_in_one_thread_is_found_in_another(memory, uid) -> None:
    user, other = f"alice-{uid}", f"bob-{uid}"
    store = CogmemStore(memory, agent_id=f"assistant-{uid}")
    namespace = ("memories", "{langgraph_user_id}")
    tools = [langmem.create_manage_memory_tool(namespace=namespace),
             langmem.create_search_memory_tool(namespace=namespace)]
    model = scripted([
        calls("manage_memory", content="User's dog is named Biscuit", action="create"), says("Noted."),
        calls("search_memory", query="What is the name of the user's dog?"), says("Your dog is Biscuit."),
        calls("search_memory", query="What is the name of the user's dog?"), says("I don't know."),
    ])
    graph = agent_graph(model, tools, store)

    def run(thread: str, who: str, text: str) -> dict:
        config = {"configurable": {"thread_id": thread, "langgraph_user_id": who}}
        return graph.invoke({"messages": [HumanMessage(text)]}, config)

    first = run("thread-1", user, "Remember that my dog is called Biscuit.")
    assert tool_answers(first)[0].startswith("created memory ")

    second = run("thread-2", user, "What's my dog's name?")
    [found] = tool_answers(second)
    hits = json.loads(found)
    assert hits and hits[0]["value"] == {"content": "User's dog is named Biscuit"}
    assert hits[0]["namespace"] == ["memories", user] and hits[0]["score"] > 0
    assert second["messages"][-1].content == "Your dog is Biscuit."
    assert len(second["messages"]) == 4, "thread 2 starts empty: the fact came from the store, not the thread"

    third = run("thread-3", other, "What's my dog's name?")
    assert json.loads(tool_answers(third)[0]) == [], "another user's run finds nothing of alice's"

    recalled = memory.agent("any-agent", user_id=user).retrieve("dog's name", top_k=3).traces
    assert [t.trace.content for t in recalled] == ["User's dog is named Biscuit"], \
        "the fact is a memory of alice's user scope"
