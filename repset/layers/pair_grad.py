"""CPU kernels for the sparse backward of :class:`~repset.layers.matched_sum.MatchedSum`.

For pairs ``(b, k, s) -> (row r, column c)`` with coefficient ``g[b, k] * [F > 0]``:
``grad_V[b, r] += coeff * H[k, c]`` and ``grad_H[k, c] += coeff * V[b, r]``. Parallel over b for
``grad_V`` and over k for ``grad_H``, so no two threads write the same row; O(pairs x d) work and
no (pairs, d) temporaries. Torch's ``index_add_`` does the same on other devices.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True, fastmath=False)
def _grad_inputs(hidden, rows, cols, coeff, out):  # pragma: no cover - compiled
    """hidden (m, K, d), rows/cols (B, m, S), coeff (B, m, S) -> out (B, N, d) accumulated."""
    B, m, S = rows.shape
    d = hidden.shape[2]
    for b in prange(B):
        for k in range(m):
            for s in range(S):
                c = coeff[b, k, s]
                if c != 0.0:
                    r, j = rows[b, k, s], cols[b, k, s]
                    for t in range(d):
                        out[b, r, t] += c * hidden[k, j, t]


@njit(parallel=True, cache=True, fastmath=False)
def _grad_hidden(V, rows, cols, coeff, out):  # pragma: no cover - compiled
    """V (B, N, d), rows/cols (B, m, S), coeff (B, m, S) -> out (m, K, d) accumulated."""
    B, m, S = rows.shape
    d = V.shape[2]
    for k in prange(m):
        for b in range(B):
            for s in range(S):
                c = coeff[b, k, s]
                if c != 0.0:
                    r, j = rows[b, k, s], cols[b, k, s]
                    for t in range(d):
                        out[k, j, t] += c * V[b, r, t]


def pair_gradients(V: np.ndarray, hidden: np.ndarray, rows: np.ndarray, cols: np.ndarray, coeff: np.ndarray,
                   need_inputs: bool = True, need_hidden: bool = True):
    """Gradients ``(grad_V (B, N, d), grad_hidden (m, K, d))`` as new arrays (None where not needed).

    ``V`` (B, N, d) and ``hidden`` (m, K, d) C-contiguous of one float dtype; ``rows``/``cols`` int64
    (B, m, S) in range wherever ``coeff`` (B, m, S, same dtype) is nonzero.
    """
    grad_V = grad_hidden = None
    if need_inputs:
        grad_V = np.zeros(V.shape, dtype=V.dtype)
        _grad_inputs(hidden, rows, cols, coeff, grad_V)
    if need_hidden:
        grad_hidden = np.zeros(hidden.shape, dtype=hidden.dtype)
        _grad_hidden(V, rows, cols, coeff, grad_hidden)
    return grad_V, grad_hidden


@njit(parallel=True, cache=True)
def _approx_pairs(F, lengths, sizes, paper, rows, cols):  # pragma: no cover - compiled
    """ApproxRepSet's pairs in one pass: F (B, N, m, K) >= 0; rows/cols (B, m, S) prefilled with -1.

    paper and |X| >= |Y_k|: hidden element j takes its best input row; otherwise input row i takes
    its best hidden element. Ties go to the first maximum, as torch.argmax.
    """
    B = F.shape[0]
    m = F.shape[2]
    for b in prange(B):
        n = lengths[b]
        for k in range(m):
            y = sizes[k]
            if paper and n >= y:
                for j in range(y):
                    best, arg = F[b, 0, k, j], 0
                    for i in range(1, n):
                        if F[b, i, k, j] > best:
                            best, arg = F[b, i, k, j], i
                    rows[b, k, j] = arg
                    cols[b, k, j] = j
            else:
                for i in range(n):
                    best, arg = F[b, i, k, 0], 0
                    for j in range(1, y):
                        if F[b, i, k, j] > best:
                            best, arg = F[b, i, k, j], j
                    rows[b, k, i] = i
                    cols[b, k, i] = arg


def approx_pairs(F: np.ndarray, lengths: np.ndarray, sizes: np.ndarray, paper: bool) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(rows, cols)`` int64 (B, m, max(N, K)) of ApproxRepSet for C-contiguous ``F`` (B, N, m, K)."""
    B, N, m, K = F.shape
    rows = np.full((B, m, max(N, K)), -1, dtype=np.int64)
    cols = np.full((B, m, max(N, K)), -1, dtype=np.int64)
    _approx_pairs(F, lengths.astype(np.int64), sizes.astype(np.int64), paper, rows, cols)
    return rows, cols
