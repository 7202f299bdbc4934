"""CPU kernels of :mod:`~repset.layers.matched_sum` and ApproxRepSet's pair selection.

Sets reach them as rows of a table (the edge weights ``F`` (R, m, K), the elements ``E`` (R, d)) and an
``index`` (B, N): element ``i`` of set ``b`` is row ``index[b, i]``. A padded batch is the identity index;
sets drawn from one vocabulary share rows, computed once per batch.

Forward: one pass gathers the pair weights, sums them and marks pairs on zero weights inactive.
Backward, for active pairs ``(b, k, s) -> (row r, column c)`` with coefficient ``g[b, k]``:
``grad_V[b, r] += coeff * H[k, c]`` and ``grad_H[k, c] += coeff * V[b, r]``. Parallel over b for
``grad_V`` and over ranges of k for ``grad_H``, so no two threads write the same row; O(pairs x d) work and
no (pairs, d) temporaries. Torch's ``index_add_`` does the same on other devices. Every kernel runs through
:func:`solvers.runtime.run`: the thread count of the calling layer (torch's), the cache outside the source tree.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from solvers.runtime import current_threads, njit, run


@njit(parallel=True, cache=True)
def _gather_pairs(F, index, rows, cols, x, active_rows):  # pragma: no cover - compiled
    """x[b, k] = sum_s F[index[b, rows], k, cols] over valid pairs (float64 sums); active_rows = rows where
    that weight is > 0, else -1. F (R, m, K) table rows, index (B, N); rows/cols/active_rows (B, m, S)."""
    B, m, S = rows.shape
    for b in prange(B):
        for k in range(m):
            total = 0.0
            for s in range(S):
                r, c = rows[b, k, s], cols[b, k, s]
                active_rows[b, k, s] = -1
                if r >= 0 and c >= 0:
                    f = F[index[b, r], k, c]
                    if f > 0:
                        total += f
                        active_rows[b, k, s] = r
            x[b, k] = total


def gather_pairs(F: np.ndarray, index: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(x (B, m) in F's dtype, active_rows (B, m, S) int64)`` for pairs ``rows``/``cols`` (-1 = none) of the
    sets whose element ``i`` is table row ``index[b, i]`` of ``F`` (R, m, K)."""
    B, m, S = rows.shape
    x = np.empty((B, m), dtype=np.float64)
    active_rows = np.empty((B, m, S), dtype=np.int64)
    run(_gather_pairs, F, index, rows, cols, x, active_rows)
    return x.astype(F.dtype, copy=False), active_rows


@njit(parallel=True, cache=True, fastmath=False)
def _grad_inputs(hidden, rows, cols, grad, out):  # pragma: no cover - compiled
    """hidden (m, K, d), rows/cols (B, m, S) with rows -1 = skip, grad (B, m) -> out (B, N, d) accumulated."""
    B, m, S = rows.shape
    d = hidden.shape[2]
    for b in prange(B):
        for k in range(m):
            c = grad[b, k]
            if c == 0.0:
                continue
            for s in range(S):
                r, j = rows[b, k, s], cols[b, k, s]
                if r >= 0:
                    for t in range(d):
                        out[b, r, t] += c * hidden[k, j, t]


@njit(parallel=True, cache=True, fastmath=False)
def _grad_hidden(E, index, rows, cols, grad, out, n_chunks):  # pragma: no cover - compiled
    """E (R, d) element rows, index (B, N), rows/cols (B, m, S) with rows -1 = skip, grad (B, m) -> out
    (m, K, d) accumulated.

    Each of ``n_chunks`` threads owns a range of hidden sets and walks the batch set by set, so the
    rows of one input set stay in cache while all its hidden sets read them."""
    B, m, S = rows.shape
    d = E.shape[1]
    for chunk in prange(n_chunks):
        for b in range(B):
            for k in range(chunk * m // n_chunks, (chunk + 1) * m // n_chunks):
                c = grad[b, k]
                if c == 0.0:
                    continue
                for s in range(S):
                    r, j = rows[b, k, s], cols[b, k, s]
                    if r >= 0:
                        e = index[b, r]
                        for t in range(d):
                            out[k, j, t] += c * E[e, t]


def pair_gradients(E: np.ndarray, index: np.ndarray, hidden: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                   grad: np.ndarray, need_inputs: bool = True, need_hidden: bool = True):
    """Gradients ``(grad per set position (B, N, d), grad_hidden (m, K, d))`` as new arrays (None where not
    needed); the caller adds the positions' gradients into the rows of ``E`` they came from.

    ``E`` (R, d) element rows and ``hidden`` (m, K, d) C-contiguous of one float dtype; ``index`` (B, N)
    int64 table row of each set position; ``rows``/``cols`` int64 (B, m, S), a pair counts where
    ``rows >= 0`` (its column then in range); ``grad`` (B, m), same dtype.
    """
    grad_positions = grad_hidden = None
    if need_inputs:
        grad_positions = np.zeros(index.shape + (E.shape[1],), dtype=E.dtype)
        run(_grad_inputs, hidden, rows, cols, grad, grad_positions)
    if need_hidden:
        grad_hidden = np.zeros(hidden.shape, dtype=hidden.dtype)
        run(_grad_hidden, E, index, rows, cols, grad, grad_hidden, min(current_threads(), hidden.shape[0]))
    return grad_positions, grad_hidden


@njit(parallel=True, cache=True)
def _approx_pairs(G, index, lengths, sizes, paper, rows, cols, x):  # pragma: no cover - compiled
    """ApproxRepSet in one pass over the raw products G = V H (R, m, K) of any sign (ReLU applied here):
    the pairs, their sums ``x`` (B, m) (float64, in pair order) and the active pairs (``rows`` -1 where a
    pair's weight max(0, G) is 0). rows/cols (B, m, S) prefilled with -1; set b's element i is row
    ``index[b, i]``.

    paper and |X| >= |Y_k|: hidden element j takes its best input element; otherwise input element i
    takes its best hidden element. Ties go to the first maximum, as torch.argmax (a pair whose best
    weight is <= 0 is inactive whichever it is). G is read one element row (``m x K``) at a time, with
    a running best per hidden element.
    """
    B = index.shape[0]
    m, K = G.shape[1], G.shape[2]
    for b in prange(B):
        n = lengths[b]
        best = np.empty((m, K), dtype=G.dtype)
        arg = np.zeros((m, K), dtype=np.int64)
        total = np.zeros(m, dtype=np.float64)
        first = index[b, 0]
        for k in range(m):
            for j in range(K):
                best[k, j] = G[first, k, j]
        for i in range(n):
            e = index[b, i]
            for k in range(m):
                y = sizes[k]
                if paper and n >= y:     # hidden element j keeps its best row so far (branch-free: SIMD)
                    if i > 0:
                        for j in range(K):
                            v = G[e, k, j]
                            arg[k, j] = i if v > best[k, j] else arg[k, j]
                            best[k, j] = max(v, best[k, j])
                else:                    # input element i takes its best hidden element
                    top, at = G[e, k, 0], 0
                    for j in range(1, y):
                        v = G[e, k, j]
                        if v > top:
                            top, at = v, j
                    cols[b, k, i] = at
                    if top > 0:
                        rows[b, k, i] = i
                        total[k] += top
        for k in range(m):
            if paper and n >= sizes[k]:
                for j in range(sizes[k]):
                    cols[b, k, j] = j
                    if best[k, j] > 0:
                        rows[b, k, j] = arg[k, j]
                        total[k] += best[k, j]
            x[b, k] = total[k]


def approx_pairs(G: np.ndarray, index: np.ndarray, lengths: np.ndarray, sizes: np.ndarray,
                 paper: bool, slots: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ApproxRepSet's ``(x (B, m) in G's dtype, active rows, cols)`` (int64 (B, m, S), rows -1 = no active
    pair) from the raw products ``G`` (R, m, K) (C-contiguous, any sign) of the sets whose element ``i``
    is row ``index[b, i]``. ``S = slots`` (``max(N, K)`` always suffices), default the fewest that do."""
    B, N = index.shape
    m, K = G.shape[1], G.shape[2]
    # paper form with every |X| >= every |Y_k|: one pair per hidden element, so K slots suffice
    S = slots if slots is not None else K if paper and B and lengths.min() >= sizes.max() else max(N, K)
    rows = np.full((B, m, S), -1, dtype=np.int64)
    cols = np.full((B, m, S), -1, dtype=np.int64)
    x = np.empty((B, m), dtype=np.float64)
    run(_approx_pairs, G, index, lengths.astype(np.int64), sizes.astype(np.int64), paper, rows, cols, x)
    return x.astype(G.dtype, copy=False), rows, cols
