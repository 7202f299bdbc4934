"""A skip-gram model over node ids: gensim ``Word2Vec`` with a vocabulary of the nodes that have tokens."""
from __future__ import annotations

import numpy as np

__all__ = ["new_model", "node_vectors"]


def new_model(counts: np.ndarray, dim: int, window: int, epochs: int, hs: bool, negative: int, seed: int,
              workers: int):
    """A skip-gram (``sg=1``, ``min_count=0``) whose vocabulary is the nodes with ``counts`` (n,) > 0 tokens."""
    from gensim.models import Word2Vec

    model = Word2Vec(vector_size=dim, window=window, min_count=0, sg=1, hs=int(hs), negative=negative,
                     workers=workers, seed=seed, epochs=epochs)
    model.build_vocab_from_freq({str(i): int(c) for i, c in enumerate(counts) if c > 0})
    return model


def node_vectors(model, n: int) -> np.ndarray:
    """(n, dim) float32: row ``i`` = node ``i``'s vector."""
    idx = np.fromiter((model.wv.key_to_index[str(i)] for i in range(n)), np.int64, n)
    return np.ascontiguousarray(model.wv.vectors[idx], dtype=np.float32)
