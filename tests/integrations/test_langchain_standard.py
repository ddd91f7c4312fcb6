"""LangChain's own standard suites (`langchain-tests`) run on `CogmemRetriever` and on the
`remember`, `recall` and `forget` tools, each on a sync handle (`cg.open`) and on an async one
(`cg.open_async`): what any LangChain retriever or tool is expected to do, checked as
LangChain checks its own. Their async tests run on pytest-asyncio (asyncio_mode = "auto")."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core.tools", reason="the langchain extra is not installed")
pytest.importorskip("langchain_tests", reason="langchain-tests (the dev extra) is not installed")

from langchain_core.tools import BaseTool  # noqa: E402
from langchain_tests.integration_tests import RetrieversIntegrationTests, ToolsIntegrationTests  # noqa: E402
from langchain_tests.unit_tests import ToolsUnitTests  # noqa: E402

from cogmem_graph.integrations.langchain import CogmemRetriever, memory_tools  # noqa: E402

FACTS = ["The build server is called Hopper", "The user's sister lives in Porto", "The office cat is named Miso",
         "The user drinks green tea every morning", "The team meets on Tuesdays"]
HANDLES = ["sync", "async"]


def handle_of(kind: str, memory: Any, async_memory: Any, uid: str) -> Any:
    """A fresh agent of the module's store, sync or async, whose memory holds FACTS."""
    memory.agent(f"std-{uid}", user_id=f"u-{uid}").encode_many([{"content": fact} for fact in FACTS])
    store = memory if kind == "sync" else async_memory
    return store.agent(f"std-{uid}", user_id=f"u-{uid}")


class CogmemRetrieverSuite:
    """The retriever on a handle of each kind (the autouse fixture's parameter)."""

    @pytest.fixture(autouse=True, params=HANDLES)
    def _handle(self, request: pytest.FixtureRequest, memory: Any, async_memory: Any, uid: str) -> None:
        self.handle = handle_of(request.param, memory, async_memory, uid)

    @property
    def retriever_constructor(self) -> type[CogmemRetriever]:
        return CogmemRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"agent": self.handle}

    @property
    def retriever_query_example(self) -> str:
        return "What is the build server called?"


class TestRetrieverWithK(CogmemRetrieverSuite, RetrieversIntegrationTests):
    """`k`, LangChain's name for how many documents, in the constructor and per call."""


class TestRetrieverWithTopK(CogmemRetrieverSuite, RetrieversIntegrationTests):
    """`top_k`, cogmem's name for it, in the constructor and per call."""

    @property
    def num_results_arg_name(self) -> str:
        return "top_k"


TOOL_ARGUMENTS = {"remember": {"content": "The user's dog is named Biscuit", "tags": ["pets"]},
                  "recall": {"query": "What is the build server called?", "top_k": 2},
                  "forget": {"ids": ["mt_not_there"]}}


class CogmemToolSuite:
    """Each memory tool on a handle of each kind (the autouse fixture's parameters)."""

    @pytest.fixture(autouse=True, params=[(name, kind) for name in TOOL_ARGUMENTS for kind in HANDLES],
                    ids=lambda param: "-".join(param))
    def _tool(self, request: pytest.FixtureRequest, memory: Any, async_memory: Any, uid: str) -> None:
        name, kind = request.param
        self.tool_name = name
        self.built = {t.name: t for t in memory_tools(handle_of(kind, memory, async_memory, uid))}[name]

    @property
    def tool_constructor(self) -> BaseTool:
        return self.built

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return TOOL_ARGUMENTS[self.tool_name]


class TestToolsUnit(CogmemToolSuite, ToolsUnitTests):
    """The tools' names and argument schemas, as LangChain's unit suite checks them."""


class TestToolsIntegration(CogmemToolSuite, ToolsIntegrationTests):
    """The tools called with and without a tool call, sync and async, as LangChain's integration suite calls them."""
