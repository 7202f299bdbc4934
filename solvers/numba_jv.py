"""Exact batched solver: shortest augmenting paths (Jonker-Volgenant / Crouse 2016) in one Numba call.

Every problem is solved as it is, without padding: its smaller side plays the rows (a problem with
more rows than columns is transposed by index arithmetic), so an ``n x k`` problem costs
``O(min(n, k)^2 max(n, k))`` at worst and ``O(n k)`` when the greedy start is already optimal.

Algorithm per problem (maximisation turned into the min-cost problem ``c = -w``), reading the
caller's float32/float64 strided block directly (no copy; float64 arithmetic and duals):

1. one pass computes every row's best weight: dual start ``u_i = min_j c_ij``, ``v_j = 0`` is
   feasible (all reduced costs ``c_ij - u_i - v_j >= 0``) and keeps ``v = 0`` on free columns, as
   rectangular problems need; each row greedily takes its (tight) best column if still free;
2. each remaining free row is matched by one Dijkstra shortest augmenting path on reduced costs
   followed by the dual update, exactly as SciPy's ``linear_sum_assignment`` (Crouse 2016), but
   relaxed lazily: a scanned row first relaxes only its best and second-best columns (the second
   best found by one row scan, once per problem and row) and promises every other column a
   distance ``>= shift - second_best`` (valid since ``v <= 0``); a promised row is relaxed in full
   (smallest promise first) only when no tentative column distance beats its promise. Short paths,
   the common case after the greedy start, then cost O(1) instead of O(cols) per step. Scanned
   rows/columns, dual updates and the augmentation are Crouse's, so values are exact optima.

The first pass also validates the block: a NaN, infinite or negative weight stops the problem before
any solving and flags its value (NaN or -1), which :meth:`MatchingSolver.solve` raises as ValueError
naming the problem, so ``check_values=False`` can never crash or hang the kernel.

Blocks whose largest weight exceeds ``1e200`` are scaled by a power of two (exact) so that duals
cannot overflow. All ``P * Q`` problems are spread over threads with ``prange`` in chunks (handed
out dynamically, several per thread), each chunk owning its scratch buffers. Both float32 and
float64 kernels (weights typed read-only, so writeable and read-only arrays share them) are
compiled eagerly with ``cache=True``: a new process loads them from ``__pycache__``.
Problems whose rows come from a shared table (``solve_indexed``) have their own kernel,
:mod:`solvers.shared_rows`, built from the same pieces.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange, types

from .base import MatchingSolver

__all__ = ["NumbaJVSolver", "solve_batch", "invalid_flag", "store_partners", "solve_one", "row_best", "solve_from_best"]

_SCALE_ABOVE = 1e200


@njit(cache=True, nogil=True, inline="always")
def invalid_flag(x):
    """Value flagging a problem with a weight ``x`` outside ``[0, max float]``: NaN for a NaN or infinite
    ``x``, -1 for a negative one (read by :func:`solvers.base._raise_flagged`)."""
    return -1.0 if -np.inf < x < 0.0 else np.nan


@njit(cache=True, nogil=True, inline="always")
def _relax_row(w, i, shift, factor, v, spc, path, pen, row4col):
    """Relax every arc of row ``i`` (distance ``shift - w[i, j] * factor - v[j]``), skipping the scanned
    columns (``pen[j] = inf``); return the smallest tentative distance of an unscanned column and its
    index (ties prefer a free column, as SciPy does)."""
    lowest = np.inf
    index = -1
    for j in range(w.shape[1]):
        p = pen[j]
        r = shift - np.float64(w[i, j]) * factor - v[j] + p
        d = spc[j]
        better = r < d
        d = r if better else d
        spc[j] = d
        path[j] = i if better else path[j]
        d += p
        if d < lowest or (d == lowest and row4col[j] == -1):
            lowest = d
            index = j
    return lowest, index


@njit(cache=True, nogil=True)
def row_best(w, fb, ib):
    """Step 1 of :func:`solve_one`: ``u[i] = -`` the best weight of row i and ``col4row[i]`` its first
    argmax; return the largest weight, or :func:`invalid_flag` (NaN or -1) at the first weight not in
    ``[0, max float]``."""
    nr, nc = w.shape
    u, col4row = fb[0], ib[0]
    gmax = 0.0
    for i in range(nr):
        b1 = -np.inf
        j1 = 0
        for j in range(nc):
            x = np.float64(w[i, j])
            if not x >= 0.0:  # NaN, -inf or negative: flag, never solve
                return invalid_flag(x)
            if x > b1:
                b1 = x
                j1 = j
        if b1 == np.inf:
            return np.nan
        u[i] = -b1
        col4row[i] = j1
        if b1 > gmax:
            gmax = b1
    return gmax


@njit(cache=True, nogil=True)
def solve_one(w, fb, ib):
    """Min-cost assignment of every row of ``-w`` (2-D, any strides, rows <= cols); return the value,
    or :func:`invalid_flag` (NaN or -1, nothing solved) at the first weight not in ``[0, max float]``.

    ``fb`` (7, L) float64 and ``ib`` (8, 2 L) int64 are scratch, ``L >= cols``. On return
    ``ib[0, i]`` is the column matched to row ``i``. Reduced costs are ``-w[i, j] * factor - u[i] - v[j]``
    with duals ``u`` (rows) and ``v <= 0`` (columns, 0 on the free ones).
    """
    gmax = row_best(w, fb, ib)   # 1. best weight of every row (-> u and the greedy choice)
    if not gmax >= 0.0:
        return gmax
    return solve_from_best(w, fb, ib, gmax)


@njit(cache=True, nogil=True)
def solve_from_best(w, fb, ib, gmax):
    """Steps 2-3 of :func:`solve_one`, after step 1 (:func:`row_best`) left ``u`` and ``col4row`` in
    the scratch and returned ``gmax``."""
    nr, nc = w.shape
    u, v, spc, pen, second, dshift, dprom = fb[0], fb[1], fb[2], fb[3], fb[4], fb[5], fb[6]
    col4row, row4col, path, srows, scols, best2, touched, drows = ib[0], ib[1], ib[2], ib[3], ib[4], ib[5], ib[6], ib[7]
    factor = 1.0
    if gmax > _SCALE_ABOVE:  # exact power-of-two scaling: no overflow, every comparison unchanged
        factor = math.ldexp(1.0, -math.frexp(gmax)[1])
        for i in range(nr):
            u[i] *= factor
    # 2. greedy start on tight columns (u_i = min_j c_ij, v = 0 is dual feasible)
    for j in range(nc):
        v[j] = 0.0
        row4col[j] = -1
        spc[j] = np.inf
        pen[j] = 0.0
    for i in range(nr):
        j = col4row[i]
        best2[nr + i] = j  # argmax, kept for the lazy scans (col4row changes)
        best2[i] = -2      # second-best column: computed when first needed
        if row4col[j] == -1:
            row4col[j] = i
        else:
            col4row[i] = -1
    # 3. a Dijkstra shortest augmenting path (Crouse 2016) for every free row, relaxing lazily: a
    #    scanned row first relaxes only its two best columns and promises every other column a
    #    distance >= shift - second-best * factor (valid as v <= 0); a promised row is relaxed in
    #    full only when no tentative column distance beats its promise. Scanned columns carry
    #    ``pen[j] = inf``; ``spc`` is inf outside the touched columns between augmentations.
    for cur in range(nr):
        if col4row[cur] != -1:
            continue
        nsr = 0
        nsc = 0
        ntouch = 0
        ndr = 0
        full = False
        min_val = 0.0
        i = cur
        while True:
            srows[nsr] = i
            nsr += 1
            shift = min_val - u[i]
            if full:
                lowest, index = _relax_row(w, i, shift, factor, v, spc, path, pen, row4col)
            else:
                if best2[i] == -2:  # second-best weight of row i, once per problem
                    j1 = best2[nr + i]
                    b2 = -np.inf
                    j2 = -1
                    for j in range(nc):
                        x = np.float64(w[i, j])
                        if x > b2 and j != j1:
                            b2 = x
                            j2 = j
                    second[i] = b2
                    best2[i] = j2
                for t in range(2):
                    j = best2[nr + i] if t == 0 else best2[i]
                    if j < 0 or pen[j] != 0.0:
                        continue
                    r = shift - np.float64(w[i, j]) * factor - v[j]
                    if r < spc[j]:
                        if spc[j] == np.inf:
                            touched[ntouch] = j
                            ntouch += 1
                        spc[j] = r
                        path[j] = i
                drows[ndr] = i
                dshift[ndr] = shift
                dprom[ndr] = shift - second[i] * factor
                ndr += 1
                lowest = np.inf
                index = -1
                for t in range(ntouch):
                    j = touched[t]
                    d = spc[j] + pen[j]
                    if d < lowest or (d == lowest and row4col[j] == -1):
                        lowest = d
                        index = j
            while True:  # relax promised rows in full, smallest promise first, while one may be shorter
                tmin = -1
                pmin = np.inf
                for t in range(ndr):
                    if dprom[t] < pmin:
                        pmin = dprom[t]
                        tmin = t
                if tmin == -1 or (index != -1 and lowest <= pmin):
                    break
                full = True
                lowest, index = _relax_row(w, drows[tmin], dshift[tmin], factor, v, spc, path, pen, row4col)
                dprom[tmin] = np.inf
            if index == -1:  # defensive: unreachable with the finite weights admitted above
                index = 0
                while pen[index] != 0.0:
                    index += 1
                lowest = spc[index]
            min_val = lowest
            j = index
            scols[nsc] = j
            nsc += 1
            pen[j] = np.inf
            if row4col[j] == -1:
                break
            i = row4col[j]
        sink = j
        u[cur] += min_val
        for t in range(1, nsr):
            i = srows[t]
            u[i] += min_val - spc[col4row[i]]
        for t in range(nsc):
            j = scols[t]
            v[j] -= min_val - spc[j]
            pen[j] = 0.0
        if full:
            for j in range(nc):
                spc[j] = np.inf
        else:
            for t in range(ntouch):
                spc[touched[t]] = np.inf
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            nxt = col4row[i]
            col4row[i] = j
            j = nxt
            if i == cur:
                break
    total = 0.0
    for i in range(nr):
        total += np.float64(w[i, col4row[i]])
    return total


@njit(cache=True, inline="always")
def store_partners(assignment, p, q, partner, n, k, along_rows):  # pragma: no cover - compiled
    """Write ``partner`` (the column of each row of the problem, transposed when ``n > k``) into
    ``assignment[p, q]``, indexed by rows when ``along_rows`` else by columns."""
    trans = n > k
    for i in range(min(n, k)):
        j = partner[i]
        r, c = (j, i) if trans else (i, j)
        if along_rows:
            assignment[p, q, r] = c
        else:
            assignment[p, q, c] = r


def _kernel(weights, rows, cols, value, assignment, along_rows, nchunks):
    """Solve all problems of ``weights`` (P, Q, N, K); fill ``value`` (P, Q), ``assignment`` (P, Q, S)."""
    P, Q = rows.shape
    N, K = weights.shape[2], weights.shape[3]
    large = max(N, K)
    total = P * Q
    for chunk in prange(nchunks):
        fb = np.empty((7, large + 1), dtype=np.float64)
        ib = np.empty((8, 2 * large + 2), dtype=np.int64)
        for t in range(chunk * total // nchunks, (chunk + 1) * total // nchunks):
            p = t // Q
            q = t - p * Q
            n = rows[p, q]
            k = cols[p, q]
            if n == 0 or k == 0:
                value[p, q] = 0.0
                continue
            block = weights[p, q, :n, :k]
            value[p, q] = solve_one(block.T if n > k else block, fb, ib)
            if value[p, q] >= 0.0:  # not flagged invalid
                store_partners(assignment, p, q, ib[0], n, k, along_rows)


def _signature(dtype):
    return types.void(types.Array(dtype, 4, "A", readonly=True), types.Array(types.int64, 2, "A"),
                      types.Array(types.int64, 2, "A"), types.Array(types.float64, 2, "A"),
                      types.Array(types.int32, 3, "A"), types.boolean, types.int64)


_jv_kernel = njit([_signature(types.float32), _signature(types.float64)],
                  parallel=True, cache=True, nogil=True)(_kernel)


def n_chunks(total: int, threads: int, per_thread: int = 16) -> int:
    """Number of prange chunks: several per thread for load balance with ragged sizes."""
    return int(max(1, min(total, threads * per_thread)))


def solve_batch(kernel, weights: np.ndarray, rows: np.ndarray, cols: np.ndarray, value: np.ndarray,
                assignment: np.ndarray, along: str, threads: int | None, *extra, leading: tuple = (),
                chunks_of: int | None = None) -> None:
    """Run a compiled batch ``kernel`` with ``threads`` Numba threads (restored afterwards);
    ``leading`` arrays go between ``weights`` and ``rows`` (the indexed kernel's ``row_index``);
    ``chunks_of``: how many units the kernel splits into chunks (default: every problem)."""
    previous = numba.get_num_threads()
    use = previous if threads is None else int(threads)
    if threads is not None:
        numba.set_num_threads(use)
    chunksize = numba.set_parallel_chunksize(1)  # chunks go to whichever thread is free
    try:
        kernel(weights, *leading, rows, cols, value, assignment, along == "rows", *extra,
               n_chunks(rows.size if chunks_of is None else chunks_of, use))
    finally:
        numba.set_parallel_chunksize(chunksize)
        if threads is not None:
            numba.set_num_threads(previous)


class NumbaJVSolver(MatchingSolver):
    """Exact solver: Numba-parallel shortest augmenting paths with a greedy, dual-feasible start.

    Args:
        threads: Numba threads for the call (default: ``numba.get_num_threads()``); must not exceed
            ``numba.config.NUMBA_NUM_THREADS``.
    """

    name = "numba"
    exact = True
    checks_in_kernel = True

    def __init__(self, threads: int | None = None) -> None:
        if threads is not None and not 1 <= int(threads) <= numba.config.NUMBA_NUM_THREADS:
            raise ValueError(f"threads must lie in [1, {numba.config.NUMBA_NUM_THREADS}], got {threads}")
        self.threads = threads

    def _solve(self, weights, rows, cols, value, assignment, along):
        solve_batch(_jv_kernel, weights, rows, cols, value, assignment, along, self.threads)

    def _solve_indexed(self, table, row_index, rows, cols, value, assignment, along):
        from .shared_rows import shared_rows_kernel

        solve_batch(shared_rows_kernel, np.ascontiguousarray(table), rows, cols, value, assignment, along,
                    self.threads, leading=(np.ascontiguousarray(row_index),), chunks_of=len(row_index))
