"""An LRU cache in front of any embedder.

Agents ask the same questions and re-encode the same lines; embedding is the
slowest (and, with a paid API, the only billed) step of a retrieval, so a text
is embedded once and served from memory afterwards.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from cogmem_graph import aio_bridge
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.providers.embedders import Embedder, embed_queries, embed_with_sentences


class CachedEmbedder:
    """Wraps an Embedder; repeated texts are served from a thread-safe LRU.

    Only the misses of a call go to the wrapped embedder, in one batch, so
    batching benefits are kept. Documents and queries are cached apart because
    some models embed them differently. The lock is not held while the wrapped
    embedder runs: two threads missing the same text may both embed it, which
    costs a little work but never blocks readers behind a slow remote call.
    """

    def __init__(self, inner: Embedder, max_size: int = 10_000) -> None:
        if max_size < 1:
            raise InvalidArgument(f"max_size must be >= 1, got {max_size}", argument="max_size")
        self.inner = inner
        self.max_size = max_size
        self._entries: OrderedDict[tuple[str, str], tuple[float, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, max_size={self.max_size})"

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = 0
            self.misses = 0

    def _lookup(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], tuple[float, ...]]:
        found: dict[tuple[str, str], tuple[float, ...]] = {}
        with self._lock:
            for key in keys:
                vector = self._entries.get(key)
                if vector is not None:
                    self._entries.move_to_end(key)
                    found[key] = vector
        return found

    def _store(self, items: dict[tuple[str, str], tuple[float, ...]]) -> None:
        with self._lock:
            for key, vector in items.items():
                self._entries[key] = vector
                self._entries.move_to_end(key)
            while len(self._entries) > self.max_size:
                self._entries.popitem(last=False)

    def _get(self, kind: str, texts: list[str]) -> list[list[float]]:
        keys = [(kind, t) for t in texts]
        found = self._lookup(list(dict.fromkeys(keys)))
        missing = [key for key in dict.fromkeys(keys) if key not in found]
        with self._lock:
            # A text repeated within one call is embedded once: the repeats count as hits.
            self.hits += len(keys) - len(missing)
            self.misses += len(missing)
        if missing:
            if kind == "q":
                computed = aio_bridge.blocking(embed_queries, self.inner, [t for _, t in missing])
            else:
                computed = aio_bridge.blocking(self.inner.embed, [t for _, t in missing])
            if len(computed) != len(missing):
                raise RuntimeError(
                    f"{self.inner.name} returned {len(computed)} vectors for {len(missing)} texts"
                )
            fresh = {key: tuple(v) for key, v in zip(missing, computed, strict=True)}
            self._store(fresh)
            found.update(fresh)
        # Copies: a caller mutating its vector must not corrupt the cache.
        return [list(found[key]) for key in keys]

    def embed(self, texts: list[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of texts; use embed_query() for one text")
        return self._get("d", list(texts))

    @property
    def gives_sentences(self) -> bool:
        return bool(getattr(self.inner, "gives_sentences", False))

    def embed_with_sentences(self, texts: list[str], spans: Sequence[Sequence[tuple[int, int]]]
                             ) -> tuple[list[list[float]], list[list[list[float]]] | None]:
        """The inner embedder's texts and sentences in one pass (`embedders.embed_with_sentences`),
        the texts' vectors kept in the cache; None for sentences when the inner embedder gives none."""
        if isinstance(texts, str):
            raise TypeError("embed_with_sentences() takes a list of texts")
        if not self.gives_sentences:
            return self.embed(texts), None
        vectors, sentences = aio_bridge.blocking(embed_with_sentences, self.inner, list(texts), spans)
        self._store({("d", t): tuple(v) for t, v in zip(texts, vectors, strict=True)})
        return vectors, sentences

    def embed_query(self, text: str) -> list[float]:
        return self._get("q", [text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Several queries; the ones not cached are embedded together (`embedders.embed_queries`)."""
        if isinstance(texts, str):
            raise TypeError("embed_queries() takes a list of texts; use embed_query() for one text")
        return self._get("q", list(texts))
