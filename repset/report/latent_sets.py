"""Latent-set interpretability: vocabulary words nearest to hidden-set elements and centroids."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from repset.training.classifier import SetClassifier


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def most_used_hidden_sets(model: SetClassifier, count: int) -> list[int]:
    """Indices of the ``count`` hidden sets whose features carry the largest weight into the first
    layer of the classifier head (column L2 norm), largest first."""
    first = next(m for m in model.head if isinstance(m, torch.nn.Linear))
    norms = first.weight.detach().norm(dim=0).cpu().numpy()
    return [int(i) for i in np.argsort(-norms, kind="stable")[:count]]


def nearest_words(hidden_sets: Sequence[np.ndarray], vectors: np.ndarray, vocab: Sequence[str],
                  per_element: int = 1, max_words: int = 5) -> pd.DataFrame:
    """For each hidden set (|Y|, d): the distinct words nearest (cosine) to its elements, ordered by
    similarity, at most ``max_words``; and the word nearest to its centroid.

    ``vectors`` (V, d) are the word vectors of ``vocab`` (V words).
    """
    if len(vocab) != len(vectors):
        raise ValueError(f"vocab has {len(vocab)} words but vectors has {len(vectors)} rows")
    unit = _unit(np.asarray(vectors, dtype=np.float32))
    rows = []
    for k, H in enumerate(hidden_sets):
        H = np.asarray(H, dtype=np.float32)
        sims = _unit(H) @ unit.T                                    # (|Y|, V)
        top = np.argsort(-sims, axis=1)[:, :per_element]
        scored = sorted({(float(sims[e, w]), int(w)) for e in range(len(H)) for w in top[e]}, reverse=True)
        words = []
        for _, w in scored:
            if vocab[w] not in words:
                words.append(vocab[w])
            if len(words) == max_words:
                break
        centroid = int(np.argmax(_unit(H.mean(0)) @ unit.T))
        rows.append({"hidden_set": k + 1, "element_words": ", ".join(words), "centroid_word": vocab[centroid]})
    return pd.DataFrame(rows)
