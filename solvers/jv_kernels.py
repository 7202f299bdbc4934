"""The building blocks of the exact Numba solvers: one problem's shortest augmenting paths
(Jonker-Volgenant / Crouse 2016), its validation, and the writing of its partners.

:mod:`solvers.numba_jv` (dense batches) and :mod:`solvers.shared_rows` (rows from a shared table) compile
these into their own batch kernels, as :mod:`solvers.auction` does with :func:`invalid_flag` and
:func:`store_partners`. Numba invalidates an on-disk cache only when the cached function's own file
changes, so each of those modules carries this file's sha256 (``JV_KERNELS_SHA256``, checked by
tests/solvers/test_jv_kernels.py): a change here must change those lines too, which invalidates their caches.

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
cannot overflow.
"""
from __future__ import annotations

import math

import numpy as np

from .runtime import njit

__all__ = ["invalid_flag", "row_best", "solve_one", "solve_from_best", "store_partners"]

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
