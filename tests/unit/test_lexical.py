import subprocess
import sys

import pytest
import snowballstemmer
from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.lexical import (
    K1,
    B,
    bm25_document_vector,
    bm25_query_vector,
    term_index,
)
from cogmem_graph.text import query_terms, stem


def test_stemming_joins_word_forms():
    q = bm25_query_vector("deploying")
    d = bm25_document_vector("deployment deployed")
    assert set(q.indices) <= set(d.indices)
    assert stem("deploying") == stem("deployed") == "deploy"


@given(st.one_of(st.integers(min_value=0).map(str), st.text(alphabet="0123456789", min_size=1, max_size=40),
                 st.text(min_size=1, max_size=12)))
def test_numbers_skip_the_stemmer_and_stem_as_it_would(term):
    assert stem(term) == snowballstemmer.stemmer("english").stemWord(term)


def test_bm25_term_frequency_part_matches_the_formula():
    # "docker docker compose": 3 content words, avg length 16
    # norm = 1.2 * (1 - 0.75 + 0.75 * 3 / 16) = 1.2 * 0.390625 = 0.46875
    # docker: tf 2 -> 2 * 2.2 / (2 + 0.46875) = 1.782278...
    # compose: tf 1 -> 2.2 / 1.46875 = 1.497872...
    vec = bm25_document_vector("Docker docker compose")
    weights = dict(zip(vec.indices, vec.values, strict=True))
    norm = K1 * (1 - B + B * 3 / 16)
    assert weights[term_index("docker")] == pytest.approx(2 * (K1 + 1) / (2 + norm))
    assert weights[term_index("compos")] == pytest.approx((K1 + 1) / (1 + norm))


def test_stopwords_only_give_empty_vectors():
    assert not bm25_query_vector("what is the")
    assert not bm25_document_vector("the of and")


def test_query_terms_are_distinct_and_capped():
    assert query_terms("Docker docker DOCKER compose") == ["docker", "compose"]
    assert len(query_terms(" ".join(f"w{i}x" for i in range(100)))) == 32


def test_term_index_is_stable_across_processes():
    code = "from cogmem_graph.lexical import term_index; print(term_index('caroline'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(out) == term_index("caroline")


@given(st.text(max_size=500))
def test_vectors_are_well_formed_for_any_text(text):
    for vec in (bm25_document_vector(text), bm25_query_vector(text)):
        assert vec.indices == sorted(set(vec.indices))
        assert len(vec.indices) == len(vec.values)
        assert all(0 <= i < 2**32 for i in vec.indices)
        assert all(v > 0 for v in vec.values)
