"""The Numba JV solver on problems whose rows come from a shared table (:meth:`MatchingSolver.solve_indexed`).

Problem ``(p, q)`` is ``table[row_index[p, :n], q, :k]``: the sets of a batch drawn from one vocabulary
share rows, and the table holds each distinct row once. The kernel works set by set: one pass over a
set's table rows (each ``Q x K``, contiguous) finds the column maxima of all its wide problems (more
rows than columns, solved as their transpose); a problem whose columns all want different rows takes
them, which is optimal, and is never gathered; the others are gathered into a contiguous block only
for their augmenting paths (:func:`~solvers.jv_kernels.solve_from_best`). Narrow problems are gathered
and solved as :func:`~solvers.jv_kernels.solve_one` solves a dense block. Values, assignments and the
flagging of invalid weights are those of the dense kernel.
"""
from __future__ import annotations

import numpy as np
from numba import prange, types

from .jv_kernels import row_best, solve_from_best, solve_one, store_partners
from .runtime import njit

#: sha256 of jv_kernels.py, whose kernels the cached ones here compile in. Numba invalidates an on-disk
#: cache only when the cached function's own file changes, so any change to jv_kernels.py must change
#: this line too (tests/solvers/test_jv_kernels.py checks it).
JV_KERNELS_SHA256 = "a91e603f3a593e2c38b9f58367406472472d7137e2ce9663804fa8ec2f39d198"

__all__ = ["shared_rows_kernel"]


@njit(cache=True, nogil=True)
def _column_maxima(table, row_index, p, rows, cols, wide, best, arg, bad):
    """One pass over set p's table rows (each ``Q x K``, contiguous) for every wide problem ``(p, q)``
    (``wide[q]``: more rows than columns, solved as its transpose): ``best[q, j]`` / ``arg[q, j]``, the
    largest weight of column j and its first row (ties as :func:`row_best`), and ``bad[q]``, how many
    weights are not ``>= 0`` (NaN or negative). Branch-free over j (SIMD)."""
    Q = rows.shape[1]
    n_max = 0
    for q in range(Q):
        bad[q] = 0
        if wide[q]:
            n_max = max(n_max, rows[p, q])
            for j in range(cols[p, q]):
                best[q, j] = -np.inf
                arg[q, j] = 0
    for i in range(n_max):
        r = row_index[p, i]
        for q in range(Q):
            if wide[q] and i < rows[p, q]:
                flagged = 0
                for j in range(cols[p, q]):
                    x = table[r, q, j]
                    flagged += not (x >= 0)
                    arg[q, j] = i if x > best[q, j] else arg[q, j]
                    best[q, j] = max(x, best[q, j])
                bad[q] += flagged


@njit(cache=True, nogil=True)
def _gather(table, row_index, p, q, n, k, scratch):
    """Problem ``(p, q)`` as an ``n x k`` block of ``scratch`` (one table row of k weights at a time)."""
    block = scratch[: n * k].reshape((n, k))
    for i in range(n):
        r = row_index[p, i]
        for j in range(k):
            block[i, j] = table[r, q, j]
    return block


@njit(cache=True, nogil=True)
def _solve_wide(table, row_index, p, q, n, k, best, arg, bad, stamp, scratch, fb, ib):
    """Wide problem ``(p, q)`` (``n > k``) as its ``k x n`` transpose, from its column maxima
    (:func:`_column_maxima`): when every column's best row differs, taking them is optimal (the sum of
    the row maxima bounds every matching) and the block is never gathered; else the block is gathered
    and the augmenting paths start from those maxima."""
    if bad[q]:   # NaN or negative somewhere: the row scan flags it as the dense kernel does
        return row_best(_gather(table, row_index, p, q, n, k, scratch).T, fb, ib)
    gmax = 0.0
    distinct = True
    mark = p * best.shape[0] + q + 1   # unique per problem: no clearing of stamp between problems
    for j in range(k):
        b = np.float64(best[q, j])
        if b == np.inf:
            return np.nan
        fb[0, j] = -b
        ib[0, j] = arg[q, j]
        gmax = max(gmax, b)
        if stamp[arg[q, j]] == mark:
            distinct = False
        stamp[arg[q, j]] = mark
    if distinct:   # every hidden element has its own best input element: the greedy start is optimal
        total = 0.0
        for j in range(k):
            total += np.float64(best[q, j])
        return total
    return solve_from_best(_gather(table, row_index, p, q, n, k, scratch).T, fb, ib, gmax)


def _indexed_kernel(table, row_index, rows, cols, value, assignment, along_rows, nchunks):
    """Solve problem ``(p, q)`` = ``table[row_index[p, :n], q, :k]`` for all ``(p, q)``, set by set: one
    pass over a set's table rows finds the column maxima of all its wide problems (:func:`_solve_wide`);
    a problem is gathered into a contiguous block only when its augmenting paths need it (narrow ones
    always: their row maxima come with the gather)."""
    P, Q = rows.shape
    N, K = row_index.shape[1], table.shape[2]
    large = max(N, K)
    for chunk in prange(nchunks):
        fb = np.empty((7, large + 1), dtype=np.float64)
        ib = np.empty((8, 2 * large + 2), dtype=np.int64)
        scratch = np.empty(min(N, K) * large + 1, dtype=table.dtype)
        best = np.empty((Q, K + 1), dtype=table.dtype)
        arg = np.empty((Q, K + 1), dtype=np.int64)
        bad = np.empty(Q, dtype=np.int64)
        wide = np.empty(Q, dtype=np.bool_)
        stamp = np.zeros(N + 1, dtype=np.int64)
        for p in range(chunk * P // nchunks, (chunk + 1) * P // nchunks):
            for q in range(Q):
                wide[q] = rows[p, q] > cols[p, q] > 0
            _column_maxima(table, row_index, p, rows, cols, wide, best, arg, bad)
            for q in range(Q):
                n = rows[p, q]
                k = cols[p, q]
                if n == 0 or k == 0:
                    value[p, q] = 0.0
                    continue
                if wide[q]:
                    value[p, q] = _solve_wide(table, row_index, p, q, n, k, best, arg, bad, stamp, scratch, fb, ib)
                else:
                    value[p, q] = solve_one(_gather(table, row_index, p, q, n, k, scratch), fb, ib)
                if value[p, q] >= 0.0:  # not flagged invalid
                    store_partners(assignment, p, q, ib[0], n, k, along_rows)


def _indexed_signature(dtype):
    return types.void(types.Array(dtype, 3, "C", readonly=True), types.Array(types.int64, 2, "C", readonly=True),
                      types.Array(types.int64, 2, "A"), types.Array(types.int64, 2, "A"),
                      types.Array(types.float64, 2, "A"), types.Array(types.int32, 3, "A"), types.boolean, types.int64)


shared_rows_kernel = njit([_indexed_signature(types.float32), _indexed_signature(types.float64)],
                          parallel=True, cache=True, nogil=True)(_indexed_kernel)
