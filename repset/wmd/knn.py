"""Word Mover's Distance kNN classification (Kusner et al., "From Word Embeddings To Document Distances", ICML 2015).

The distances (WMD, RWMD, WCD) and the document format are those of :mod:`repset.wmd`.

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
import logging
import math
import multiprocessing as mp
import os
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from repset.wmd.blocks import BLOCK, BlockStore, search_key
from repset.wmd.distance import _as_embeddings, _emd, _euclid, _sq_norms, normalize_doc

__all__ = ["METHODS", "VOTES", "knn_predict", "wmd_knn"]

log = logging.getLogger(__name__)

METHODS = ("wmd", "rwmd", "wcd")
VOTES = ("kusner", "plurality")
_TOL = 1e-9  # relative slack when comparing a lower bound with an exact distance (float rounding)


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


class _Progress:
    """Logs ``<label>: done/total queries, elapsed, ETA`` at most every ``every`` seconds, and at the end; queries
    read back from saved blocks (:meth:`resume`) count as done but not into the rate the ETA is timed at."""

    def __init__(self, total: int, label: str, every: float = 30.0) -> None:
        self.total, self.label, self.every, self.done, self.resumed = total, label, every, 0, 0
        self.start = self.last = time.perf_counter()

    def resume(self, n: int) -> None:
        self.done += n
        self.resumed += n

    def advance(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if now - self.last >= self.every or self.done == self.total:
            self.last, elapsed = now, now - self.start
            eta = elapsed * (self.total - self.done) / max(self.done - self.resumed, 1)
            log.info("%s: %d/%d queries, %.0f s, ETA %.0f s", self.label, self.done, self.total, elapsed, eta)


def _all_neighbours(queries: list, pool: _Pool, E: np.ndarray, K: int, method: str, prune: bool,
                    n_jobs: int, label: str = "WMD kNN", blocks: BlockStore | None = None,
                    phase: str = "test") -> tuple[np.ndarray, np.ndarray, int]:
    """The ``K`` nearest pool documents of every query (indices and distances, ``(n, K)`` each) and the
    exact WMDs computed. With ``blocks``, queries go in blocks of :data:`~repset.wmd.blocks.BLOCK`: the
    blocks found there are read back, each new one is saved when it finishes."""
    n = len(queries)
    if n == 0:
        return np.empty((0, K), dtype=np.int64), np.empty((0, K)), 0
    if blocks is not None:
        size = BLOCK
    else:   # one query at a time alone; small enough chunks to report progress as they finish in workers
        size = 1 if n_jobs == 1 else max(1, math.ceil(n / (16 * n_jobs)))
    bounds = [(a, min(a + size, n)) for a in range(0, n, size)]
    progress = _Progress(n, label)
    done = {} if blocks is None else {ab: saved for ab in bounds if (saved := blocks.load(phase, K, *ab)) is not None}
    if done:
        read = sum(b - a for a, b in done)
        log.info("%s: %d of %d queries read back from %s", label, read, n, blocks.folder)
        progress.resume(read)
    todo = [ab for ab in bounds if ab not in done]

    def finish(ab: tuple[int, int], part: list) -> None:
        done[ab] = (np.stack([r[0] for r in part]), np.stack([r[1] for r in part]), int(sum(r[2] for r in part)))
        if blocks is not None:
            blocks.save(phase, K, *ab, *done[ab])
        progress.advance(len(part))

    if n_jobs == 1 or len(todo) < 2:
        for a, b in todo:
            finish((a, b), [_neighbours(q, pool, E, K, method, prune) for q in queries[a:b]])
    else:
        method_name = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        with ProcessPoolExecutor(n_jobs, mp_context=mp.get_context(method_name), initializer=_init_worker,
                                 initargs=(pool, E, K, method, prune)) as ex:
            for ab, part in zip(todo, ex.map(_work, [queries[a:b] for a, b in todo])):
                finish(ab, part)
    parts = [done[ab] for ab in bounds]
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            int(sum(p[2] for p in parts)))


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
            prune: bool = True, vote: str = "kusner", final_pool: str = "train+val", n_jobs: int = 1,
            blocks_dir: str | os.PathLike | None = None, blocks_key: str = "") -> dict:
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
        blocks_dir, blocks_key: keep each finished block of queries in ``blocks_dir``
            (:mod:`repset.wmd.blocks`) and read back those saved there under the same ``blocks_key`` (what
            the documents and labels depend on, e.g. the store and split; the method, pruning and final
            pool are added here), so that a stopped search resumes. Same results as without.

    Returns a dict: ``predictions`` (test, original label values), ``k``, ``val_errors`` ({k: error}),
    ``error`` (test error in [0, 1], or None), ``runtime_seconds`` (total, of this call: a resumed search
    counts its own part) and ``phase_seconds``,
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
    blocks = None if blocks_dir is None else BlockStore(blocks_dir, search_key(blocks_key, method, prune, final_pool))

    pruning, phase_seconds = {}, {}
    val_errors: dict[int, float] = {}
    if len(k_values) > 1 or val:
        t = time.perf_counter()
        K = min(k_values[-1], len(train))
        idx, _, n_exact = _all_neighbours(val, _Pool.build(train, E), E, K, method, prune, n_jobs,
                                          label="WMD kNN, validation", blocks=blocks, phase="val")
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
    idx, dist, n_exact = _all_neighbours(test, _Pool.build(pool_docs, E), E, K, method, prune, n_jobs,
                                         label="WMD kNN, test", blocks=blocks, phase="test")
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
