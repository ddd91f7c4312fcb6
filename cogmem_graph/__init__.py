"""cogmem-graph: cognitive memory for LLM agents whose home is a graph database.

The public names are written once, in the `if TYPE_CHECKING:` block below: one
`from <module> import <Name> as <Name>` line each. Type checkers read the block as it is;
at run time it is the table `__all__`, `dir()` and loading on first use (PEP 562) are
read from, so a process that only needs part of the package (the `cogmem` command
talking to a server, `cg.connect`) does not pay for importing the graph and vector
drivers, and `import cogmem_graph` imports nothing else.

The modules at the package's root are the ground every layer may stand on: the data
shapes (`model.py`, `results.py`, `filters.py`, `context.py`), the errors, the clock, the
home folder and its lock, identities, redaction, and the words of a text: `text.py` (the
one tokenizer, stopword list and English stemmer) and `lexical.py` (BM25 as sparse
vectors). Those two read English but sit here rather than in `language/` because the
adapters use them too (full-text queries, the BM25 side of the vector index), and no
adapter may import `language/`. `operations.py` (the server's table of operations),
`portable.py` (export and import), `viz.py` (graph pages) and `demo.py` are single
modules of their own.
"""

from __future__ import annotations

import builtins
import importlib
import re
from typing import TYPE_CHECKING, Any

__version__: str
"""The release (`cogmem_graph._version`, also in pyproject.toml), read on first use."""

if TYPE_CHECKING:
    from cogmem_graph.api.agent import AgentMemory as AgentMemory
    from cogmem_graph.api.async_agent import AsyncAgentMemory as AsyncAgentMemory
    from cogmem_graph.api.async_store import AsyncMemoryStore as AsyncMemoryStore
    from cogmem_graph.api.async_store import OpeningStore as OpeningStore
    from cogmem_graph.api.async_store import open_async as open_async
    from cogmem_graph.api.governance import EraseReceipt as EraseReceipt
    from cogmem_graph.api.governance import ForgetReceipt as ForgetReceipt
    from cogmem_graph.api.governance import MemoryPage as MemoryPage
    from cogmem_graph.api.governance import MemoryRecord as MemoryRecord
    from cogmem_graph.api.store import MemoryStore as MemoryStore
    from cogmem_graph.api.store import open as open  # noqa: A004 - `cg.open()` is the entry point
    from cogmem_graph.between_turns.consolidation.result import (
        ConsolidationResult as ConsolidationResult,
    )
    from cogmem_graph.between_turns.observer import ObserveResult as ObserveResult
    from cogmem_graph.between_turns.perspective import EventEncoding as EventEncoding
    from cogmem_graph.between_turns.perspective import Witness as Witness
    from cogmem_graph.between_turns.perspective import WitnessMemory as WitnessMemory
    from cogmem_graph.between_turns.reflector import ReflectionResult as ReflectionResult
    from cogmem_graph.client.agent import RemoteAgent as RemoteAgent
    from cogmem_graph.client.agent import connect as connect
    from cogmem_graph.client.aio import AsyncRemoteAgent as AsyncRemoteAgent
    from cogmem_graph.client.aio import connect_async as connect_async
    from cogmem_graph.clock import Clock as Clock
    from cogmem_graph.clock import ManualClock as ManualClock
    from cogmem_graph.clock import SystemClock as SystemClock
    from cogmem_graph.cognition.observation import ObservationNote as ObservationNote
    from cogmem_graph.cognition.prospective import FiredReminder as FiredReminder
    from cogmem_graph.cognition.prospective import Intention as Intention
    from cogmem_graph.cognition.prospective import TriggerKind as TriggerKind
    from cogmem_graph.config import CogmemConfig as CogmemConfig
    from cogmem_graph.errors import ArchiveError as ArchiveError
    from cogmem_graph.errors import ArchiveNotFound as ArchiveNotFound
    from cogmem_graph.errors import ArchiveWriteError as ArchiveWriteError
    from cogmem_graph.errors import BackendUnavailable as BackendUnavailable
    from cogmem_graph.errors import CogmemError as CogmemError
    from cogmem_graph.errors import CypherNotFound as CypherNotFound
    from cogmem_graph.errors import EmbeddedServerError as EmbeddedServerError
    from cogmem_graph.errors import GraphQueryError as GraphQueryError
    from cogmem_graph.errors import GraphStoreUnavailable as GraphStoreUnavailable
    from cogmem_graph.errors import HomeLocked as HomeLocked
    from cogmem_graph.errors import HomeNotAccessible as HomeNotAccessible
    from cogmem_graph.errors import InvalidArgument as InvalidArgument
    from cogmem_graph.errors import MemoryNotFound as MemoryNotFound
    from cogmem_graph.errors import NamespaceScanTooLarge as NamespaceScanTooLarge
    from cogmem_graph.errors import PortableFormatError as PortableFormatError
    from cogmem_graph.errors import ProviderAuthError as ProviderAuthError
    from cogmem_graph.errors import ProviderError as ProviderError
    from cogmem_graph.errors import ProviderRequestError as ProviderRequestError
    from cogmem_graph.errors import ProviderResponseError as ProviderResponseError
    from cogmem_graph.errors import ProviderUnavailable as ProviderUnavailable
    from cogmem_graph.errors import RequestRejected as RequestRejected
    from cogmem_graph.errors import ServerError as ServerError
    from cogmem_graph.errors import ServerStartError as ServerStartError
    from cogmem_graph.errors import ServiceError as ServiceError
    from cogmem_graph.errors import ServingFailed as ServingFailed
    from cogmem_graph.errors import StoreClosed as StoreClosed
    from cogmem_graph.errors import StoreVersionTooNew as StoreVersionTooNew
    from cogmem_graph.errors import UnconfirmedWriteFailed as UnconfirmedWriteFailed
    from cogmem_graph.errors import UnsendableArgument as UnsendableArgument
    from cogmem_graph.errors import VectorStoreUnavailable as VectorStoreUnavailable
    from cogmem_graph.filters import MemoryFilter as MemoryFilter
    from cogmem_graph.filters import MemoryState as MemoryState
    from cogmem_graph.graph.port import Edge as Edge
    from cogmem_graph.graph.port import GraphStats as GraphStats
    from cogmem_graph.model import EdgeType as EdgeType
    from cogmem_graph.model import Hexaco as Hexaco
    from cogmem_graph.model import MemoryCategory as MemoryCategory
    from cogmem_graph.model import MemoryTrace as MemoryTrace
    from cogmem_graph.model import MemoryType as MemoryType
    from cogmem_graph.model import Mood as Mood
    from cogmem_graph.model import Scope as Scope
    from cogmem_graph.model import SourceType as SourceType
    from cogmem_graph.portable import PortableCounts as PortableCounts
    from cogmem_graph.results import AssembledContext as AssembledContext
    from cogmem_graph.results import RepairResult as RepairResult
    from cogmem_graph.results import RetrievalResult as RetrievalResult
    from cogmem_graph.results import ScoreComposition as ScoreComposition
    from cogmem_graph.results import ScoredTrace as ScoredTrace
    from cogmem_graph.retrieval.multihop.results import EvidencePath as EvidencePath
    from cogmem_graph.retrieval.multihop.results import MultiHopResult as MultiHopResult
    from cogmem_graph.retrieval.multihop.results import MultiHopTrace as MultiHopTrace
    from cogmem_graph.write.request import EncodeRequest as EncodeRequest

_PUBLIC = re.compile(r"^ {4}from (cogmem_graph[\w.]*) import \(?\s*(\w+) as \2\b", re.MULTILINE)
"""One line of the block (or one statement wrapped in parentheses): the module, the name."""
_where: dict[str, str] = {}


def _table() -> dict[str, str]:
    """Each public name → the module defining it, read from the block above on first use."""
    if not _where:
        with builtins.open(__file__, encoding="utf-8") as source:  # plain `open` here is `cg.open`
            _where.update((name, module) for module, name in _PUBLIC.findall(source.read()))
    return _where


if not TYPE_CHECKING:  # type checkers see the names themselves, and flag a name that is not one

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            return [*_table(), "__version__"]
        if name == "__version__":  # (read on first use, like every public name)
            from cogmem_graph._version import VERSION

            return VERSION
        module = _table().get(name)
        if module is None:
            raise AttributeError(f"module 'cogmem_graph' has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(_table()) | {"__version__"})
