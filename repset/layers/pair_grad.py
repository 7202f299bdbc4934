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
