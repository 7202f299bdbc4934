"""Word Mover's Distance and its lower bounds (Kusner et al., "From Word Embeddings To Document Distances", ICML 2015).

A document is a pair ``(word ids, counts)`` against one shared embedding matrix ``E`` (n_words, d); its
normalised bag of words (nBOW) is ``w = counts / counts.sum()`` (repeated ids are merged, zero counts
dropped). Distances:

* WMD: the earth mover's distance between the two nBOWs with Euclidean word-vector costs
  ``c(i, j) = ||E_i - E_j||``, solved exactly with POT's network simplex (``ot.emd2``);
* RWMD: the relaxed lower bound of Kusner et al., the max of the two one-sided relaxations
  (every word of A moves to its nearest word of B, and vice versa), ``RWMD <= WMD``;
* WCD: the distance between the weighted word centroids, ``||E^T w_a - E^T w_b|| <= WMD``.

The kNN classifier built on these distances (RWMD-pruned exact WMD kNN) is :mod:`repset.wmd.knn`.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["docs_from_ragged", "normalize_doc", "rwmd", "synthetic_docs", "wcd", "wmd"]


def _ot():
    try:
        import ot
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("WMD needs POT (Python Optimal Transport): pip install -c constraints.txt pot") from e
    return ot


def normalize_doc(doc, n_words: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(word ids, counts)`` -> ``(unique ids int64 ascending, nBOW weights float64 summing to 1)``.

    Repeated ids are merged (their counts add up), words with zero count are dropped. Raises ValueError
    on a malformed or empty document (no positive count) or an id outside ``[0, n_words)``.
    """
    try:
        ids, counts = doc
    except (TypeError, ValueError):
        raise ValueError("a document must be a pair (word ids, counts)") from None
    ids = np.asarray(ids).ravel()
    counts = np.asarray(counts, dtype=np.float64).ravel()
    if ids.size and not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"word ids must be integers, got {ids.dtype}")
    if ids.shape != counts.shape:
        raise ValueError(f"word ids and counts differ in length: {ids.size} != {counts.size}")
    if (counts < 0).any() or not np.isfinite(counts).all():
        raise ValueError("counts must be finite and nonnegative")
    if n_words is not None and ids.size and (ids.min() < 0 or ids.max() >= n_words):
        raise ValueError(f"word ids must lie in [0, {n_words})")
    keep = counts > 0
    uniq, inverse = np.unique(ids[keep].astype(np.int64), return_inverse=True)
    weights = np.bincount(inverse, weights=counts[keep], minlength=len(uniq))
    total = weights.sum()
    if len(uniq) == 0 or total <= 0:
        raise ValueError("empty document (no word with a positive count)")
    return uniq, weights / total


def docs_from_ragged(element_ids, offsets, counts=None, index=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Documents from a ragged store (``SetCollection``: ``element_ids``, ``offsets``, ``counts``), optionally
    only the rows ``index``.

    Missing ``counts`` count each element once.
    """
    element_ids, offsets = np.asarray(element_ids), np.asarray(offsets, dtype=np.int64)
    counts = np.ones(len(element_ids)) if counts is None else np.asarray(counts)
    rows = range(len(offsets) - 1) if index is None else np.asarray(index, dtype=np.int64)
    return [(element_ids[offsets[i]:offsets[i + 1]], counts[offsets[i]:offsets[i + 1]]) for i in rows]


def _sq_norms(X: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", X, X)


def _euclid(A: np.ndarray, B: np.ndarray, a_sq: np.ndarray | None = None, b_sq: np.ndarray | None = None) -> np.ndarray:
    """Pairwise Euclidean distances ``(len(A), len(B))`` (Gram form, clipped at 0)."""
    a_sq = _sq_norms(A) if a_sq is None else a_sq
    b_sq = _sq_norms(B) if b_sq is None else b_sq
    D2 = a_sq[:, None] + b_sq[None, :] - 2.0 * (A @ B.T)
    return np.sqrt(np.maximum(D2, 0.0))


def _cost(E: np.ndarray, ids_a: np.ndarray, ids_b: np.ndarray) -> np.ndarray:
    M = _euclid(E[ids_a], E[ids_b])
    M[ids_a[:, None] == ids_b[None, :]] = 0.0  # the same word costs exactly nothing
    return M


_EMD_OPTIONS: dict | None = None


def _emd(wa: np.ndarray, wb: np.ndarray, M: np.ndarray) -> float:
    """Exact EMD between the weights ``wa``, ``wb`` (each summing to 1) with costs ``M`` (network simplex)."""
    global _EMD_OPTIONS
    if len(wa) == 1 or len(wb) == 1:  # one side is a single point: all mass moves to / from it
        return float(wa @ M @ wb)
    ot = _ot()
    if _EMD_OPTIONS is None:
        import inspect

        # the marginals are normalised here; POT's own check costs about as much as a small solve
        params = inspect.signature(ot.emd2).parameters
        _EMD_OPTIONS = {"numItermax": 10_000_000, **({"check_marginals": False} if "check_marginals" in params else {})}
    return float(ot.emd2(wa, wb, np.ascontiguousarray(M), **_EMD_OPTIONS))


def _as_embeddings(embeddings) -> np.ndarray:
    E = np.asarray(embeddings, dtype=np.float64)
    if E.ndim != 2 or not np.isfinite(E).all():
        raise ValueError("embeddings must be a finite (n_words, d) matrix")
    return E


def wmd(doc_a, doc_b, embeddings) -> float:
    """Exact Word Mover's Distance between two documents (EMD of their nBOWs, Euclidean word costs)."""
    E = _as_embeddings(embeddings)
    (ia, wa), (ib, wb) = normalize_doc(doc_a, len(E)), normalize_doc(doc_b, len(E))
    return _emd(wa, wb, _cost(E, ia, ib))


def rwmd(doc_a, doc_b, embeddings) -> float:
    """Relaxed WMD (Kusner et al. 2015): max of the two one-sided relaxations; a lower bound on WMD."""
    E = _as_embeddings(embeddings)
    (ia, wa), (ib, wb) = normalize_doc(doc_a, len(E)), normalize_doc(doc_b, len(E))
    M = _cost(E, ia, ib)
    return float(max(wa @ M.min(axis=1), wb @ M.min(axis=0)))


def wcd(doc_a, doc_b, embeddings) -> float:
    """Word centroid distance ``||E^T w_a - E^T w_b||``; a lower bound on WMD (Kusner et al. 2015)."""
    E = _as_embeddings(embeddings)
    (ia, wa), (ib, wb) = normalize_doc(doc_a, len(E)), normalize_doc(doc_b, len(E))
    return float(np.linalg.norm(wa @ E[ia] - wb @ E[ib]))


def synthetic_docs(n_docs: int, n_words: int = 13243, d: int = 300, words_per_doc: int = 117, n_classes: int = 5,
                   topic_words: int = 400, topic_share: float = 0.5, topic_cluster: float = 0.5, seed: int = 0):
    """A synthetic corpus shaped like a text dataset: ``(docs, labels, embeddings)``.

    Random Gaussian word vectors of about unit norm; each class owns ``topic_words`` words (disjoint between
    classes) whose vectors lie around a class centre (``topic_cluster`` = share of the centre in their
    variance, as related words cluster in word2vec); each document has ``words_per_doc`` distinct words, about
    ``topic_share`` of them from its class's words and the rest Zipf-distributed over the whole vocabulary,
    with Zipf-like counts 1..10.
    """
    rng = np.random.default_rng(seed)
    if n_classes * topic_words > n_words:
        raise ValueError("n_classes * topic_words must not exceed n_words")
    E = rng.standard_normal((n_words, d)) / math.sqrt(d)
    perm = rng.permutation(n_words)
    topics = [perm[c * topic_words:(c + 1) * topic_words] for c in range(n_classes)]
    for t in topics:
        centre = rng.standard_normal(d) / math.sqrt(d)
        E[t] = math.sqrt(topic_cluster) * centre + math.sqrt(1.0 - topic_cluster) * E[t]
    zipf = 1.0 / np.arange(1, n_words + 1)
    zipf = zipf[np.argsort(rng.permutation(n_words))]  # word frequency rank independent of the word id
    zipf /= zipf.sum()
    labels = rng.integers(0, n_classes, n_docs)
    docs = []
    for y in labels:
        n_topic = int(rng.binomial(words_per_doc, topic_share))
        ids = dict.fromkeys(rng.choice(topics[y], min(n_topic, topic_words), replace=False).tolist())
        while len(ids) < words_per_doc:
            ids.update(dict.fromkeys(rng.choice(n_words, words_per_doc - len(ids), p=zipf).tolist()))
        ids = np.array(list(ids)[:words_per_doc], dtype=np.int64)
        docs.append((ids, np.minimum(rng.zipf(2.0, len(ids)), 10).astype(np.float64)))
    return docs, labels, E
