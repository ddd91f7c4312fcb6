"""`remember`, `recall` and `forget` as LangChain tools, called by a scripted chat model, and
`CogmemRetriever`'s documents, on an embedded memory store."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core.tools", reason="the langchain extra is not installed")

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langchain_core.tools import BaseTool  # noqa: E402

from cogmem_graph.integrations.langchain import CogmemRetriever, memory_tools  # noqa: E402
from tests.integrations.scripted_model import calls, says, scripted  # noqa: E402


def run_tools(model, tools: list[BaseTool], text: str) -> list:
    """A plain tool loop: the model's tool calls run and answer it until it speaks."""
    by_name = {tool.name: tool for tool in tools}
    bound = model.bind_tools(tools)
    messages: list = [HumanMessage(text)]
    while True:
        reply: AIMessage = bound.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return messages
        messages += [by_name[call["name"]].invoke(call) for call in reply.tool_calls]


def answers(messages: list) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def test_the_tools_have_argument_schemas_a_model_can_follow(memory, uid) -> None:
    remember, recall, forget = memory_tools(memory.agent(f"a-{uid}", user_id=f"u-{uid}"))
    assert [t.name for t in (remember, recall, forget)] == ["remember", "recall", "forget"]
    schemas = {t.name: t.tool_call_schema.model_json_schema() for t in (remember, recall, forget)}
    assert schemas["remember"]["required"] == ["content"]
    assert schemas["remember"]["properties"]["type"]["enum"] == ["semantic", "episodic", "procedural"]
    assert schemas["recall"]["required"] == ["query"]
    assert schemas["recall"]["properties"]["top_k"]["maximum"] == 50
    assert schemas["forget"]["properties"]["ids"]["minItems"] == 1
    assert all(t.description for t in (remember, recall, forget))


def test_a_model_remembers_recalls_and_forgets_through_the_tools(memory, uid) -> None:
    agent = memory.agent(f"a-{uid}", user_id=f"u-{uid}")
    tools = memory_tools(agent)
    stored = run_tools(scripted([
        calls("remember", content="The user's sister lives in Porto", tags=["family"]),
        calls("remember", content="The user is allergic to peanuts", type="semantic"),
        says("Got it."),
    ]), tools, "My sister lives in Porto, and I'm allergic to peanuts.")
    assert [m.content.startswith("Remembered (id mt_") for m in answers(stored)] == [True, True]

    recalled = run_tools(scripted([calls("recall", query="Where does the user's sister live?", top_k=2),
                                   says("In Porto.")]), tools, "Where does my sister live?")
    [answer] = answers(recalled)
    first_line = answer.content.splitlines()[0]
    assert "The user's sister lives in Porto" in first_line and "(score " in first_line
    sister = answer.artifact[0]
    assert sister.id == sister.metadata["id"] and first_line.startswith(f"[{sister.id}]")
    assert agent.get(sister.id).trace.tags == ["family"]

    forgotten = run_tools(scripted([calls("forget", ids=[sister.id, "mt_unknown"]), says("Forgotten.")]),
                          tools, "Forget where my sister lives.")
    assert answers(forgotten)[0].content == "Forgot 1 memory (versions included). Not found: mt_unknown."
    assert "Porto" not in answers(run_tools(scripted([calls("recall", query="sister Porto"), says("?")]),
                                            tools, "sister?"))[0].content


def test_bad_arguments_come_back_to_the_model_as_the_tools_answer(memory, uid) -> None:
    tools = memory_tools(memory.agent(f"a-{uid}", user_id=f"u-{uid}"))
    messages = run_tools(scripted([calls("recall", query="   "), calls("remember", content=""), says("Sorry.")]),
                         tools, "?")
    assert [m.content for m in answers(messages)] == ["query must be a non-empty string",
                                                      "content: String should have at least 1 character"]
    with pytest.raises(ValueError, match="agent must be a cogmem agent handle"):
        memory_tools(object())


def test_the_tools_run_async_too(memory, uid) -> None:
    remember, recall, _ = memory_tools(memory.agent(f"a-{uid}", user_id=f"u-{uid}"))

    async def scenario() -> str:
        await remember.ainvoke({"content": "The build server is called Hopper"})
        return await recall.ainvoke({"query": "name of the build server"})

    assert "Hopper" in asyncio.run(scenario())


def test_the_retriever_returns_documents_with_ids_and_scores(memory, uid) -> None:
    agent = memory.agent(f"a-{uid}", user_id=f"u-{uid}")
    tea = agent.encode("The user drinks green tea every morning", type="semantic")
    agent.encode("The user went hiking in the Alps last summer", type="episodic")
    agent.encode("The user's laptop is a ThinkPad", type="semantic")
    retriever = CogmemRetriever(agent=agent, top_k=2)
    documents = retriever.invoke("What does the user drink in the morning?")
    assert len(documents) == 2 and documents[0].id == tea.id
    assert documents[0].page_content == tea.content
    assert documents[0].metadata["id"] == tea.id and documents[0].metadata["type"] == "semantic"
    scores = [d.metadata["score"] for d in documents]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
    episodic = CogmemRetriever(agent=agent, top_k=5, where={"type": "episodic"}).invoke("what did the user do")
    assert [d.page_content for d in episodic] == ["The user went hiking in the Alps last summer"]
    assert asyncio.run(retriever.ainvoke("green tea"))[0].id == tea.id
    with pytest.raises(ValueError, match="where"):
        CogmemRetriever(agent=agent, where={"colour": "red"})
    with pytest.raises(ValueError, match="agent must be a cogmem agent handle"):
        CogmemRetriever(agent="me")


def test_a_retriever_call_may_give_its_own_k_top_k_and_where(memory, uid) -> None:
    agent = memory.agent(f"a-{uid}", user_id=f"u-{uid}")
    hike = agent.encode("The user went hiking in the Alps last summer", type="episodic")
    for fact in ("The user drinks green tea every morning", "The user's laptop is a ThinkPad",
                 "The user's sister lives in Porto", "The user likes jazz", "The user hiked Mont Blanc"):
        agent.encode(fact, type="semantic")
    retriever = CogmemRetriever(agent=agent)
    assert len(retriever.invoke("the user")) == 5
    assert len(retriever.invoke("the user", k=1)) == 1 and len(retriever.invoke("the user", top_k=2)) == 2
    assert [d.id for d in retriever.invoke("hiking", where={"type": "episodic"})] == [hike.id]
    assert len(CogmemRetriever(agent=agent, k=3).invoke("the user")) == 3
    for bad, named in [({"k": 0}, "k must be an integer in"), ({"top_k": True}, "top_k must be an integer in"),
                       ({"k": 2, "top_k": 2}, "give k or top_k, not both"), ({"where": {"colour": "red"}}, "where"),
                       ({"limit": 2}, "per call, not limit")]:
        with pytest.raises(ValueError, match=named):
            retriever.invoke("the user", **bad)
    with pytest.raises(ValueError, match="give k or top_k, not both"):
        CogmemRetriever(agent=agent, k=2, top_k=3)
