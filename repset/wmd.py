"""Word Mover's Distance kNN (Kusner et al., "From Word Embeddings To Document Distances", ICML 2015).

A document is a pair ``(word ids, counts)`` against one shared embedding matrix ``E`` (n_words, d); its
normalised bag of words (nBOW) is ``w = counts / counts.sum()`` (repeated ids are merged, zero counts
dropped). Distances:

* WMD: the earth mover's distance between the two nBOWs with Euclidean word-vector costs
  ``c(i, j) = ||E_i - E_j||``, solved exactly with POT's network simplex (``ot.emd2``);
* RWMD: the relaxed lower bound of Kusner et al., the max of the two one-sided relaxations
  (every word of A moves to its nearest word of B, and vice versa), ``RWMD <= WMD``;
* WCD: the distance between the weighted word centroids, ``||E^T w_a - E^T w_b|| <= WMD``.

:func:`wmd_knn` is an *exact* WMD kNN classifier with RWMD pruning: for each query document, the RWMD to every
pool document is computed at once (vectorised), pool documents are visited in increasing RWMD order, the
exact WMD is computed for each, and the scan stops as soon as the next RWMD exceeds the current k-th
smallest WMD (k = ``max(k_values)`` on the validation split, the chosen k on the test split) by more than a
tiny relative float tolerance (1e-9); a skipped document has WMD >= its RWMD > the k-th best, so it cannot
enter the k nearest even through a tie, and the neighbours are exactly those of brute force
(``prune=False``). The WMD cost matrices are gathered from the same query-to-vocabulary distance matrix as
the RWMDs, so bound and exact distance use the same numbers. ``k`` is chosen on a validation split from
``k_values`` (Kusner et al.: 1..19); then the test documents' neighbours come from train + validation.

Tie-breaking (deterministic): neighbours are ordered by (distance, pool index), i.e. equal distances go to
the lower pool index (training documents first, in their given order, then validation documents).
Votes follow the WMD authors' ``knn_fall_back.m`` (``vote="kusner"``): the plurality label of the k
nearest, but if its count is below k/2 the vote is repeated with k-2, k-4, ... neighbours (down to 1); a
remaining tie between labels goes to the smallest label (MATLAB's ``mode``), where labels are ordered as
``np.unique`` orders them. ``vote="plurality"`` is the plain plurality vote with ties going to the tied
label whose nearest member ranks first. The chosen k is the one with the lowest validation error; ties go to
the smallest k.
"""
from __future__ import annotations

import bisect
import math
import multiprocessing as mp
import os
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

__all__ = ["wmd", "rwmd", "wcd", "wmd_knn", "knn_predict", "normalize_doc", "docs_from_ragged",
           "synthetic_docs", "METHODS", "VOTES"]

METHODS = ("wmd", "rwmd", "wcd")
VOTES = ("kusner", "plurality")
_TOL = 1e-9  # relative slack when comparing a lower bound with an exact distance (float rounding)


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


@dataclass
class _Pool:
    """Pool (reference) documents flattened for vectorised RWMD / WCD."""

    docs: list[tuple[np.ndarray, np.ndarray]]
    vocab: np.ndarray          # sorted unique word ids of the pool
    vocab_vectors: np.ndarray  # E[vocab]
    vocab_sq: np.ndarray       # squared norms of vocab_vectors
    flat_local: np.ndarray     # per pool element: position in vocab
    flat_w: np.ndarray         # per pool element: nBOW weight
    flat_doc: np.ndarray       # per pool element: pool document index
    offsets: np.ndarray        # (n + 1,)
    centroids: np.ndarray      # (n, d)

    @classmethod
    def build(cls, docs: list[tuple[np.ndarray, np.ndarray]], E: np.ndarray) -> "_Pool":
        ids = np.concatenate([i for i, _ in docs])
        w = np.concatenate([w for _, w in docs])
        lens = np.array([len(i) for i, _ in docs])
        vocab, local = np.unique(ids, return_inverse=True)
        V = E[vocab]
        centroids = np.stack([wd @ E[idd] for idd, wd in docs])
        return cls(docs, vocab, V, _sq_norms(V), local, w, np.repeat(np.arange(len(docs)), lens),
                   np.concatenate([[0], np.cumsum(lens)]), centroids)

    def __len__(self) -> int:
        return len(self.docs)

    def distances(self, ids: np.ndarray, E: np.ndarray) -> np.ndarray:
        """Euclidean distances ``(n_q, |vocab|)`` from the query words to the pool vocabulary (0 for the same word)."""
        D = _euclid(E[ids], self.vocab_vectors, b_sq=self.vocab_sq)
        pos = np.searchsorted(self.vocab, ids)
        hit = (pos < len(self.vocab)) & (self.vocab[np.minimum(pos, len(self.vocab) - 1)] == ids)
        D[np.nonzero(hit)[0], pos[hit]] = 0.0
        return D

    def cost(self, D: np.ndarray, j: int) -> np.ndarray:
        """The WMD cost matrix between the query (rows of ``D``) and pool document ``j``: a gather from ``D``."""
        return D[:, self.flat_local[self.offsets[j]:self.offsets[j + 1]]]

    def rwmd(self, D: np.ndarray, w: np.ndarray, max_block: int = 4_000_000) -> np.ndarray:
        """RWMD from one normalised query document (weights ``w``, distances ``D`` from :meth:`distances`)
        to every pool document, ``(n,)``."""
        # pool side: each pool word moves to its nearest query word
        to_query = np.bincount(self.flat_doc, weights=self.flat_w * D.min(axis=0)[self.flat_local],
                               minlength=len(self))
        # query side: each query word moves to its nearest word of each pool document (blocks of documents)
        from_query = np.empty(len(self))
        step = max(1, max_block // max(len(w), 1))
        start = 0
        while start < len(self):
            stop = int(np.searchsorted(self.offsets, self.offsets[start] + step, side="right")) - 1
            stop = min(max(stop, start + 1), len(self))
            lo, hi = self.offsets[start], self.offsets[stop]
            block = D[:, self.flat_local[lo:hi]]
            mins = np.minimum.reduceat(block, self.offsets[start:stop] - lo, axis=1)   # (n_q, stop - start)
            from_query[start:stop] = w @ mins
            start = stop
        return np.maximum(to_query, from_query)

    def wcd(self, ids: np.ndarray, w: np.ndarray, E: np.ndarray) -> np.ndarray:
        return np.linalg.norm(self.centroids - w @ E[ids], axis=1)


def _neighbours(query, pool: _Pool, E: np.ndarray, K: int, method: str,
                prune: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """The K nearest pool documents of ``query`` in (distance, index) order, their distances, and the
    number of exact WMDs computed."""
    ids, w = query
    n = len(pool)
    if method == "wcd":
        dist = pool.wcd(ids, w, E)
        order = np.lexsort((np.arange(n), dist))[:K]
        return order, dist[order], 0
    D = pool.distances(ids, E)
    if method == "rwmd" or not prune:
        dist = pool.rwmd(D, w) if method == "rwmd" else np.array([_emd(w, pool.docs[j][1], pool.cost(D, j))
                                                                   for j in range(n)])
        order = np.lexsort((np.arange(n), dist))[:K]
        return order, dist[order], 0 if method == "rwmd" else n
    dist = pool.rwmd(D, w)
    best: list[tuple[float, int]] = []   # sorted (wmd, index), at most K
    n_exact = 0
    for j in np.lexsort((np.arange(n), dist)):
        if len(best) == K and dist[j] > best[-1][0] + _TOL * (1.0 + best[-1][0]):
            break                            # every remaining lower bound exceeds the k-th best WMD
        d = _emd(w, pool.docs[j][1], pool.cost(D, j))
        n_exact += 1
        item = (d, int(j))
        if len(best) < K or item < best[-1]:
            bisect.insort(best, item)
            del best[K:]
    return np.array([j for _, j in best], dtype=np.int64), np.array([d for d, _ in best]), n_exact


# -- process pool plumbing (state handed to the workers once) --------------------------------------------
_WORKER: dict = {}


def _init_worker(pool: _Pool, E: np.ndarray, K: int, method: str, prune: bool) -> None:
    _WORKER.update(pool=pool, E=E, K=K, method=method, prune=prune)


def _work(queries: list) -> list:
    s = _WORKER
    return [_neighbours(q, s["pool"], s["E"], s["K"], s["method"], s["prune"]) for q in queries]


def _all_neighbours(queries: list, pool: _Pool, E: np.ndarray, K: int, method: str, prune: bool,
                    n_jobs: int) -> tuple[np.ndarray, np.ndarray, int]:
    if n_jobs == 1 or len(queries) < 2:
        results = [_neighbours(q, pool, E, K, method, prune) for q in queries]
    else:
        n_chunks = min(len(queries), 4 * n_jobs)
        bounds = np.linspace(0, len(queries), n_chunks + 1).astype(int)
        chunks = [queries[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        method_name = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        with ProcessPoolExecutor(n_jobs, mp_context=mp.get_context(method_name), initializer=_init_worker,
                                 initargs=(pool, E, K, method, prune)) as ex:
            results = [r for part in ex.map(_work, chunks) for r in part]
    idx = np.stack([r[0] for r in results])
    dist = np.stack([r[1] for r in results])
    return idx, dist, int(sum(r[2] for r in results))


def knn_predict(neighbour_labels: np.ndarray, k: int, vote: str = "kusner") -> np.ndarray:
    """Predicted labels ``(n_queries,)`` from the labels of the nearest neighbours ``(n_queries, >= k)``
    (nearest first, integer labels >= 0); tie rules in the module docstring."""
    if vote not in VOTES:
        raise ValueError(f"unknown vote={vote!r}; valid: {', '.join(VOTES)}")
    L = np.asarray(neighbour_labels)
    if L.ndim != 2 or not 1 <= k <= L.shape[1]:
        raise ValueError(f"need 1 <= k <= {L.shape[1] if L.ndim == 2 else '?'} neighbours, got k={k}")
    n_labels = int(L.max()) + 1
    out = np.empty(len(L), dtype=np.int64)
    for q, row in enumerate(L):
        if vote == "plurality":
            counts = np.bincount(row[:k], minlength=n_labels)
            tied = np.flatnonzero(counts == counts.max())
            first_rank = [int(np.argmax(row[:k] == c)) for c in tied]
            out[q] = tied[int(np.argmin(first_rank))]
            continue
        kk = k
        while True:
            counts = np.bincount(row[:kk], minlength=n_labels)
            winner = int(np.argmax(counts))                    # smallest label among the most frequent
            if counts[winner] >= kk / 2 or kk == 1:
                out[q] = winner
                break
            kk = max(kk - 2, 1)
    return out


def _prepare(docs: Sequence, E: np.ndarray, name: str) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    for i, d in enumerate(docs):
        try:
            out.append(normalize_doc(d, len(E)))
        except ValueError as e:
            raise ValueError(f"{name}[{i}]: {e}") from None
    return out


def wmd_knn(train_docs: Sequence, train_labels, test_docs: Sequence, embeddings, k_values: Iterable[int] = range(1, 20),
            val_docs: Sequence | None = None, val_labels=None, test_labels=None, method: str = "wmd",
            prune: bool = True, vote: str = "kusner", final_pool: str = "train+val", n_jobs: int = 1) -> dict:
    """kNN classification of documents by WMD (or RWMD / WCD), ``k`` chosen on a validation split.

    Args:
        train_docs, val_docs, test_docs: sequences of ``(word ids, counts)`` against ``embeddings`` (n_words, d).
        train_labels, val_labels, test_labels: labels (any sortable values); ``test_labels`` only to report the error.
        k_values: candidate k (Kusner et al.: 1..19). With several, ``val_docs``/``val_labels`` are required.
        method: ``"wmd"`` (exact), ``"rwmd"`` or ``"wcd"`` (the lower bounds used as distances).
        prune: RWMD pruning for ``"wmd"`` (same neighbours as brute force, far fewer exact WMDs).
        vote: ``"kusner"`` or ``"plurality"`` (see the module docstring).
        final_pool: neighbours of the test documents come from ``"train+val"`` (default: tune k on the
            held-out part, then use all labelled documents, as Kusner et al.) or ``"train"`` only.
        n_jobs: worker processes over query documents (``-1``: all cores).

    Returns a dict: ``predictions`` (test, original label values), ``k``, ``val_errors`` ({k: error}),
    ``error`` (test error in [0, 1], or None), ``runtime_seconds`` (total) and ``phase_seconds``,
    ``test_neighbours`` / ``test_distances`` (the chosen k nearest, pool indices: train first then val),
    ``n_pairs``, ``n_exact``, ``fraction_exact``, ``fraction_pruned`` (exact WMDs over all query-pool
    pairs, validation and test phases together; per phase in ``pruning``), and the settings.
    """
    start = time.perf_counter()
    if method not in METHODS:
        raise ValueError(f"unknown method={method!r}; valid: {', '.join(METHODS)}")
    if vote not in VOTES:
        raise ValueError(f"unknown vote={vote!r}; valid: {', '.join(VOTES)}")
    if final_pool not in ("train", "train+val"):
        raise ValueError(f"final_pool must be 'train' or 'train+val', got {final_pool!r}")
    k_values = sorted({int(k) for k in k_values})
    if not k_values or k_values[0] < 1:
        raise ValueError(f"k_values must be positive integers, got {k_values}")
    n_jobs = (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be >= 1 or -1, got {n_jobs}")
    if (val_docs is None) != (val_labels is None):
        raise ValueError("give both val_docs and val_labels, or neither")
    if val_docs is None and len(k_values) > 1:
        raise ValueError("choosing k needs a validation split: pass val_docs and val_labels (or a single k)")
    E = _as_embeddings(embeddings)
    train = _prepare(train_docs, E, "train_docs")
    test = _prepare(test_docs, E, "test_docs")
    val = _prepare(val_docs, E, "val_docs") if val_docs is not None else []
    y_train = np.asarray(train_labels)
    y_val = np.asarray(val_labels) if val_labels is not None else y_train[:0]
    if len(y_train) != len(train) or len(y_val) != len(val):
        raise ValueError("labels and documents differ in length")
    if test_labels is not None and len(test_labels) != len(test):
        raise ValueError("test_labels and test_docs differ in length")
    classes, codes = np.unique(np.concatenate([y_train, y_val]), return_inverse=True)
    c_train, c_val = codes[: len(train)], codes[len(train):]

    pruning, phase_seconds = {}, {}
    val_errors: dict[int, float] = {}
    if len(k_values) > 1 or val:
        t = time.perf_counter()
        K = min(k_values[-1], len(train))
        idx, _, n_exact = _all_neighbours(val, _Pool.build(train, E), E, K, method, prune, n_jobs)
        for k in k_values:
            if k <= K:
                val_errors[k] = float(np.mean(knn_predict(c_train[idx], k, vote) != c_val))
        if not val_errors:
            raise ValueError(f"every k in {k_values} exceeds the {len(train)} training documents")
        pruning["val"] = {"n_pairs": len(val) * len(train), "n_exact": n_exact}
        phase_seconds["val"] = time.perf_counter() - t
        best_k = min(val_errors, key=lambda k: (val_errors[k], k))
    else:
        best_k = k_values[0]

    t = time.perf_counter()
    pool_docs, pool_codes = (train + val, codes) if final_pool == "train+val" else (train, c_train)
    K = min(best_k, len(pool_docs))   # only the chosen k is needed: a smaller K prunes more
    idx, dist, n_exact = _all_neighbours(test, _Pool.build(pool_docs, E), E, K, method, prune, n_jobs)
    pred = classes[knn_predict(pool_codes[idx], K, vote)]
    pruning["test"] = {"n_pairs": len(test) * len(pool_docs), "n_exact": n_exact}
    phase_seconds["test"] = time.perf_counter() - t
    for part in pruning.values():
        part["fraction_exact"] = part["n_exact"] / part["n_pairs"] if part["n_pairs"] else math.nan
    n_pairs = sum(p["n_pairs"] for p in pruning.values())
    n_exact = sum(p["n_exact"] for p in pruning.values())
    error = float(np.mean(pred != np.asarray(test_labels))) if test_labels is not None else None
    return {
        "predictions": pred, "k": int(best_k), "val_errors": val_errors, "error": error,
        "runtime_seconds": time.perf_counter() - start, "phase_seconds": phase_seconds,
        "test_neighbours": idx, "test_distances": dist,
        "n_pairs": n_pairs, "n_exact": n_exact,
        "fraction_exact": n_exact / n_pairs if n_pairs else math.nan,
        "fraction_pruned": 1.0 - n_exact / n_pairs if n_pairs and method == "wmd" else math.nan,
        "pruning": pruning, "method": method, "prune": prune, "vote": vote, "final_pool": final_pool,
        "n_jobs": n_jobs,
    }


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
