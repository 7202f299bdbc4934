"""Latent-set interpretability: vocabulary words nearest to hidden-set elements and centroids, of the
trained elements (the paper's reading) and of their displacement from the initial values; how well
hidden elements align with the classes' mean-element directions."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from repset.sets import SetDataset
from repset.training.classifier import SetClassifier

__all__ = ["most_used_hidden_sets", "nearest_words", "latent_table", "class_directions", "class_alignment"]


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


def latent_table(trained: Sequence[np.ndarray], initial: Sequence[np.ndarray], vectors: np.ndarray,
                 vocab: Sequence[str]) -> pd.DataFrame:
    """:func:`nearest_words` of the trained hidden sets (``element_words``, ``centroid_word``) beside those of
    their displacement from ``initial`` (``displacement_words``, ``displacement_centroid_word``); one row
    per hidden set, the sets given as ``(|Y|, d)`` arrays in the same order."""
    if len(trained) != len(initial):
        raise ValueError(f"{len(trained)} trained hidden sets but {len(initial)} initial ones")
    words = nearest_words(trained, vectors, vocab)
    moved = nearest_words([np.asarray(t) - np.asarray(i) for t, i in zip(trained, initial)], vectors, vocab)
    words["displacement_words"] = moved["element_words"]
    words["displacement_centroid_word"] = moved["centroid_word"]
    return words


def class_directions(train: SetDataset) -> np.ndarray:
    """``(C, d)``: per class, the mean element of its training sets minus the mean element of all of them
    (elements weighted by occurrence); a class absent from ``train`` gets a zero row."""
    values = train.values.double()
    lengths = (train.offsets[1:] - train.offsets[:-1]).long()
    element_class = torch.repeat_interleave(train.labels, lengths)
    n_classes = int(train.labels.max()) + 1
    sums = torch.zeros(n_classes, values.shape[1], dtype=values.dtype).index_add_(0, element_class, values)
    counts = torch.bincount(element_class, minlength=n_classes).to(values.dtype)
    means = sums / counts.clamp_min(1)[:, None]
    return torch.where(counts[:, None] > 0, means - values.mean(0), 0).numpy()


def class_alignment(elements: np.ndarray, directions: np.ndarray) -> float:
    """Mean over the rows of ``elements`` ``(n, d)`` of their largest cosine with a class direction
    (``(C, d)``, :func:`class_directions`): 1 when every element points along some class's direction."""
    return float((_unit(np.asarray(elements, dtype=np.float64)) @ _unit(np.asarray(directions, dtype=np.float64)).T)
                 .max(axis=1).mean())
