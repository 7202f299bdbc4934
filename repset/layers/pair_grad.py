"""CPU kernels of :class:`~repset.layers.matched_sum.MatchedSum` and ApproxRepSet's pair selection.

Forward: one pass gathers the pair weights, sums them and marks pairs on zero weights inactive.
Backward, for active pairs ``(b, k, s) -> (row r, column c)`` with coefficient ``g[b, k]``:
``grad_V[b, r] += coeff * H[k, c]`` and ``grad_H[k, c] += coeff * V[b, r]``. Parallel over b for
``grad_V`` and over ranges of k for ``grad_H``, so no two threads write the same row; O(pairs x d) work and
no (pairs, d) temporaries. Torch's ``index_add_`` does the same on other devices.
"""
from __future__ import annotations

from repset.threads import passive_numba_pool

with passive_numba_pool():   # Numba's pool starts passive, whatever the import order (repset.threads)
    import numba
    import numpy as np
    from numba import njit, prange


@njit(parallel=True, cache=True)
def _gather_pairs(F, rows, cols, x, active_rows):  # pragma: no cover - compiled
    """x[b, k] = sum_s F[b, rows, k, cols] over valid pairs (float64 sums); active_rows = rows where
    that weight is > 0, else -1. F (B, N, m, K) any strides; rows/cols/active_rows (B, m, S)."""
    B, m, S = rows.shape
    for b in prange(B):
        for k in range(m):
            total = 0.0
            for s in range(S):
                r, c = rows[b, k, s], cols[b, k, s]
                active_rows[b, k, s] = -1
                if r >= 0 and c >= 0:
                    f = F[b, r, k, c]
                    if f > 0:
                        total += f
                        active_rows[b, k, s] = r
            x[b, k] = total


def gather_pairs(F: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(x (B, m) in F's dtype, active_rows (B, m, S) int64)`` for pairs ``rows``/``cols`` (-1 = none)."""
    B, m, S = rows.shape
    x = np.empty((B, m), dtype=np.float64)
    active_rows = np.empty((B, m, S), dtype=np.int64)
    _gather_pairs(F, rows, cols, x, active_rows)
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
def _grad_hidden(V, rows, cols, grad, out, n_chunks):  # pragma: no cover - compiled
    """V (B, N, d), rows/cols (B, m, S) with rows -1 = skip, grad (B, m) -> out (m, K, d) accumulated.

    Each of ``n_chunks`` threads owns a range of hidden sets and walks the batch set by set, so the
    rows of one input set stay in cache while all its hidden sets read them."""
    B, m, S = rows.shape
    d = V.shape[2]
    for chunk in prange(n_chunks):
        for b in range(B):
            for k in range(chunk * m // n_chunks, (chunk + 1) * m // n_chunks):
                c = grad[b, k]
                if c == 0.0:
                    continue
                for s in range(S):
                    r, j = rows[b, k, s], cols[b, k, s]
                    if r >= 0:
                        for t in range(d):
                            out[k, j, t] += c * V[b, r, t]


def pair_gradients(V: np.ndarray, hidden: np.ndarray, rows: np.ndarray, cols: np.ndarray, grad: np.ndarray,
                   need_inputs: bool = True, need_hidden: bool = True):
    """Gradients ``(grad_V (B, N, d), grad_hidden (m, K, d))`` as new arrays (None where not needed).

    ``V`` (B, N, d) and ``hidden`` (m, K, d) C-contiguous of one float dtype; ``rows``/``cols`` int64
    (B, m, S), a pair counts where ``rows >= 0`` (its column then in range); ``grad`` (B, m), same dtype.
    """
    grad_V = grad_hidden = None
    if need_inputs:
        grad_V = np.zeros(V.shape, dtype=V.dtype)
        _grad_inputs(hidden, rows, cols, grad, grad_V)
    if need_hidden:
        grad_hidden = np.zeros(hidden.shape, dtype=hidden.dtype)
        _grad_hidden(V, rows, cols, grad, grad_hidden, min(numba.get_num_threads(), hidden.shape[0]))
    return grad_V, grad_hidden


@njit(parallel=True, cache=True)
def _approx_pairs(F, lengths, sizes, paper, rows, cols):  # pragma: no cover - compiled
    """ApproxRepSet's pairs in one pass: F (B, N, m, K) >= 0; rows/cols (B, m, S) prefilled with -1.

    paper and |X| >= |Y_k|: hidden element j takes its best input row; otherwise input row i takes
    its best hidden element. Ties go to the first maximum, as torch.argmax. F is read row by row
    (contiguous ``m x K`` blocks), a running best per hidden element.
    """
    B, N, m, K = F.shape
    for b in prange(B):
        n = lengths[b]
        best = np.empty((m, K), dtype=F.dtype)
        arg = np.zeros((m, K), dtype=np.int64)
        for k in range(m):
            for j in range(K):
                best[k, j] = F[b, 0, k, j]
        for i in range(n):
            for k in range(m):
                y = sizes[k]
                if paper and n >= y:     # hidden element j keeps its best row so far (branch-free: SIMD)
                    if i > 0:
                        for j in range(K):
                            x = F[b, i, k, j]
                            arg[k, j] = i if x > best[k, j] else arg[k, j]
                            best[k, j] = max(x, best[k, j])
                else:                    # input row i takes its best hidden element
                    top, index = F[b, i, k, 0], 0
                    for j in range(1, y):
                        x = F[b, i, k, j]
                        if x > top:
                            top, index = x, j
                    rows[b, k, i] = i
                    cols[b, k, i] = index
        for k in range(m):
            if paper and n >= sizes[k]:
                for j in range(sizes[k]):
                    rows[b, k, j] = arg[k, j]
                    cols[b, k, j] = j


def approx_pairs(F: np.ndarray, lengths: np.ndarray, sizes: np.ndarray, paper: bool) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(rows, cols)`` int64 (B, m, S), S = K or max(N, K), of ApproxRepSet for C-contiguous ``F`` (B, N, m, K)."""
    B, N, m, K = F.shape
    # paper form with every |X| >= every |Y_k|: one pair per hidden element, so K slots suffice
    S = K if paper and B and lengths.min() >= sizes.max() else max(N, K)
    rows = np.full((B, m, S), -1, dtype=np.int64)
    cols = np.full((B, m, S), -1, dtype=np.int64)
    _approx_pairs(F, lengths.astype(np.int64), sizes.astype(np.int64), paper, rows, cols)
    return rows, cols
