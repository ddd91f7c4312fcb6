"""The whole configuration of a store: one object holding every section.

Each section keeps its own defaults (taken from the references); this model only
gathers them, plus the few settings of the write path that belong to no layer.
"""

from __future__ import annotations

from pydantic import Field

from cogmem_graph.clock import MS_PER_HOUR
from cogmem_graph.config.audit import AuditConfig
from cogmem_graph.config.consolidation import ConsolidationConfig
from cogmem_graph.config.decay import DecayConfig
from cogmem_graph.config.encoding import EncodingConfig
from cogmem_graph.config.graph import GraphConfig, _Config
from cogmem_graph.config.mechanisms import MechanismsConfig
from cogmem_graph.config.observation import ObserverConfig, ReflectorConfig
from cogmem_graph.config.perspective import PerspectiveConfig
from cogmem_graph.config.prompt import PromptConfig
from cogmem_graph.config.prospective import ProspectiveConfig
from cogmem_graph.config.retention import RetentionConfig
from cogmem_graph.config.retrieval import RetrievalConfig
from cogmem_graph.config.validity import ValidityConfig
from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.config.working_memory import WorkingMemoryConfig


class WritePathConfig(_Config):
    """How a new memory meets the ones already there: interference, near-duplicates and
    contradictions (docs/architecture.md, "One `encode`, room by room")."""

    neighbours: int = Field(5, ge=0, le=100, description="nearest existing traces checked per new trace")
    near_duplicate_similarity: float = Field(
        0.97, gt=0.0, le=1.0,
        description="cosine at or above which a new memory reinforces the existing one instead of being stored "
        "(identical content always does)",
    )
    restatement_lookup: bool = Field(
        False,
        description="also search the full-text index for older sentences a new one may restate with another "
        "value (one AND query per new memory that states a value): finds them when the embedder rates the two "
        "sentences below interference_threshold (the hash embedder); MiniLM's nearest neighbours find them "
        "without it, and it slowed a 100k-memory fill by ~1.4x",
    )
    contradiction_min_confidence: float = Field(
        0.5, ge=0.0, le=1.0,
        description="a new memory gets a CONTRADICTS edge to an old one when the offline judge is this sure",
    )
    context_vectors: bool = Field(
        True,
        description="a memory said right after another in its conversation (TEMPORAL_SEQUENCE window) is indexed "
        "with its own vector plus a share of the previous turn's index vector, so a reply is found by what it "
        "answers; near-duplicate and interference checks use the memory's own vector",
    )
    durable_sentence_vectors: bool = Field(
        True,
        description="with sentence_vectors, a sentence that carries a fact (language.memory_kind.fact_sentences: "
        "an identity, preference, instruction or plan, or one giving names, numbers or dates) inside a longer "
        "memory gets the vector "
        "of its own words (one further embedding pass over those sentences) instead of one pooled from the whole "
        "text, so a fact said in passing is found by a question about it (benchmarks/said_in_passing.py)",
    )
    sentence_vectors: bool = Field(
        True,
        description="each memory is indexed with a vector per sentence too (language.sentences), from the same "
        "embedding pass, so a question is matched against a message's best sentence "
        "(retrieval.gather.sentence_dense_weight); only embedders that give them from that pass (local)",
    )
    context_weight: float = Field(
        0.8, ge=0.0, le=4.0,
        description="the share of the previous turn's index vector in a turn's (both normalised, the sum "
        "normalised): a chain, a turn n steps back counts with weight^n; chosen on the LoCoMo tune half with "
        "MiniLM from 0.4, 0.6 and 0.8 (read path R@10 0.743, 0.766, 0.779; docs/read_path.md)",
    )
    fact_context_weight: float = Field(
        0.4, ge=0.0, le=4.0,
        description="context_weight for a memory that carries a fact of its own (a sentence that "
        "language.memory_kind.fact_sentences finds): it is asked about by what it states, and a fact said in "
        "passing after other talk is lost under that talk's share (benchmarks/said_in_passing.py; chosen from "
        "0, 0.4 and 0.8 with LoCoMo lived recall unchanged on both development halves)",
    )


class CogmemConfig(_Config):
    graph: GraphConfig = Field(default_factory=GraphConfig)
    vectors: VectorConfig = Field(default_factory=VectorConfig)
    encoding: EncodingConfig = Field(default_factory=EncodingConfig)
    decay: DecayConfig = Field(default_factory=DecayConfig)
    retention: RetentionConfig = Field(default_factory=RetentionConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    validity: ValidityConfig = Field(default_factory=ValidityConfig)
    working_memory: WorkingMemoryConfig = Field(default_factory=WorkingMemoryConfig)
    prompt: PromptConfig = Field(default_factory=PromptConfig)
    consolidation: ConsolidationConfig = Field(default_factory=ConsolidationConfig)
    mechanisms: MechanismsConfig = Field(default_factory=MechanismsConfig)
    prospective: ProspectiveConfig = Field(default_factory=ProspectiveConfig)
    observer: ObserverConfig = Field(default_factory=ObserverConfig)
    reflector: ReflectorConfig = Field(default_factory=ReflectorConfig)
    perspective: PerspectiveConfig = Field(default_factory=PerspectiveConfig)
    write: WritePathConfig = Field(default_factory=WritePathConfig)
    audit: AuditConfig = Field(default_factory=AuditConfig)
    embedding_cache_size: int = Field(10_000, ge=0, le=10_000_000, description="LRU entries of query/text embeddings")
    local_embedder_threads: int | None = Field(
        1, ge=1, le=1024,
        description="torch threads the local MiniLM embedder runs on (None: torch's default, one per core). One "
        "holds up when other work shares the cores (the graph server, the application): on a busy 2-core machine "
        "a query embedding took ~80 ms with one thread and ~320 ms with two; see benchmarks/embedder_threads.py. "
        "torch's setting is process-wide",
    )
    async_native_calls: int = Field(
        8, ge=0, le=10_000,
        description="calls of a store opened with cg.open_async that run on the event loop itself when the "
        "graph has an asyncio client (FalkorDB, Neo4j): retrieve, assemble_for_prompt, multi_hop, encode, get, "
        "list, history, stats and neighbourhood wait for the graph (and a Qdrant server) on the loop instead of "
        "on a thread, and send only the embedded vector index and the embedder to the threads. At most this "
        "many are in progress at once: each does its Python work on the loop between round trips, and those "
        "falling due together hold the loop up together (docs/async.md). 0 runs every call on the threads",
    )
    async_workers: int = Field(
        4, ge=1, le=256,
        description="threads a store opened with cg.open_async runs its calls on (the sync store's calls, so the "
        "event loop never waits on the graph, the vectors or the embedder): at most this many calls are in "
        "progress, the others wait their turn without holding the loop. More threads overlap more graph "
        "round trips but contend for Python's interpreter lock with the loop's own thread",
    )
    pause_gc: bool = Field(
        True,
        description="pause Python's cyclic garbage collector while a batch is encoded or a retrieval runs "
        "(process-wide, one call at a time; see cogmem_graph/gc_pause.py): collections walking the heap cost "
        "~1/6 of encode_many and put 60-110 ms pauses into a retrieval's tail",
    )

    @classmethod
    def reference_preset(cls) -> CogmemConfig:
        """The references' literal retention parameters, kept to compare against the defaults
        (`benchmarks/lifecycle.py`): Ebbinghaus decay with stability 1 h · (1 + 6·S0), pruning
        that soft-deletes, every due memory reinforced, strength an additive retrieval signal
        lifted by each recall, no kind-of-memory minimums, no distinct-fact guard, candidate pools
        of top_k x 5 (so a short list is not the head of a long one)."""
        config = cls()
        config.decay.model = "ebbinghaus"
        config.decay.retrieval_strength_boost = 0.1
        config.encoding.base_stability_ms = float(MS_PER_HOUR)
        config.retrieval.scoring = "additive"
        config.retrieval.current_facts_first = False
        config.retrieval.candidate_multiplier = 5  # top_k x 5 from each source, every fused candidate ranked
        config.retrieval.rank_depth = 1
        config.retrieval.ranked_multiplier = 2 * config.retrieval.candidate_multiplier
        config.mechanisms.temporal_gist.index_original = False
        config.retention = RetentionConfig(
            forgetting="delete", min_retention_commitment_ms=0, min_retention_fact_ms=0, min_retention_other_ms=0,
            permanent_categories=[], density_stability_gain=0.0, protect_distinct_facts=False,
            reinforce_retrieved_only=False)
        return config
