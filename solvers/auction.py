"""Approximate batched solver: Bertsekas' auction for rectangular (asymmetric) assignment, in one Numba call.

Per problem the smaller side (``nr = min(n, k)`` "persons") bids for the larger side (``nc`` "objects");
a problem with more rows than columns is transposed by index arithmetic, without a copy.

1. epsilon-scaling forward auction (Gauss-Seidel): ``eps`` starts at ``C / scaling`` (``C`` = largest
   weight of the problem) and is divided by ``scaling`` each phase down to ``eps_final``; each phase
   unassigns all persons, keeps the prices, and lets every unassigned person bid for its best object
   ``j1`` raising ``p[j1]`` by ``(best - second best value) + eps``;
2. after the last phase, reverse iterations (Bertsekas & Castanon's asymmetric fix): with
   ``lam = min`` price of an assigned object, every unassigned object priced above ``lam`` either
   drops its price to ``lam`` or bids for a person (``p_j = max(lam, second - eps)``), until all
   unassigned objects are priced ``<= lam``.

Guarantee (per problem): the result is a matching of ``min(n, k)`` pairs, and with
``eps_final = epsilon * C`` (``relative=True``, default) or ``eps_final = epsilon`` (absolute),

    OPT - min(n, k) * eps_final  <=  value  <=  OPT,

because at the end every person is within ``eps_final`` of its best net value (eps-complementary
slackness) and no unassigned object is priced above an assigned one. ``value`` is the weight of the
returned matching (summed in float64 from the input). ``eps_final`` is clamped to
``[1e-12 * C, C]`` so that price increments never vanish in float64 (a larger epsilon would not
change the bound's meaning: ``min(n, k) * C >= OPT``). Every problem is scaled internally by an exact
power of two that brings ``C`` to ``[0.5, 1)`` (at least ``2^-74`` for subnormal ``C``), so that
epsilon never underflows to 0 (which made tiny or subnormal weights loop forever) and prices
never overflow. A NaN, infinite or negative weight stops its problem before any bidding and flags
its value, raised by :meth:`MatchingSolver.solve` as ValueError naming the problem.
"""
from __future__ import annotations

import math

import numpy as np
from numba import prange, types

from .base import MatchingSolver
from .jv_kernels import invalid_flag, store_partners
from .runtime import check_threads, njit, solve_batch

#: sha256 of jv_kernels.py, whose kernels the cached ones here compile in. Numba invalidates an on-disk
#: cache only when the cached function's own file changes, so any change to jv_kernels.py must change
#: this line too (tests/solvers/test_jv_kernels.py checks it).
JV_KERNELS_SHA256 = "a91e603f3a593e2c38b9f58367406472472d7137e2ce9663804fa8ec2f39d198"

__all__ = ["AuctionSolver"]

_MIN_RELATIVE_EPS = 1e-12
_MAX_SHIFT = 1000   # largest power-of-two exponent of the internal scale (2^1000 < max float)


@njit(cache=True, nogil=True)
def _forward_phase(w, f, eps, price, owner, obj, stack):
    """Forward auction until every row (person) owns a column (object); prices only rise."""
    nr, nc = w.shape
    for j in range(nc):
        owner[j] = -1
    for i in range(nr):
        obj[i] = -1
        stack[i] = nr - 1 - i
    top = nr
    while top > 0:
        top -= 1
        i = stack[top]
        v1 = -np.inf
        v2 = -np.inf
        j1 = 0
        for j in range(nc):
            val = np.float64(w[i, j]) * f - price[j]
            if val > v2:
                if val > v1:
                    v2 = v1
                    v1 = val
                    j1 = j
                else:
                    v2 = val
        if v2 == -np.inf:  # a single object: bid the minimal increment
            v2 = v1
        price[j1] += v1 - v2 + eps
        old = owner[j1]
        owner[j1] = i
        obj[i] = j1
        if old >= 0:
            obj[old] = -1
            stack[top] = old
            top += 1


@njit(cache=True, nogil=True)
def _reverse_fix(w, f, eps, price, owner, obj, profit, stack):
    """Reverse iterations until no unassigned object is priced above ``lam`` = min assigned price."""
    nr, nc = w.shape
    lam = np.inf
    for i in range(nr):
        j = obj[i]
        profit[i] = np.float64(w[i, j]) * f - price[j]
        if price[j] < lam:
            lam = price[j]
    top = 0
    for j in range(nc):
        if owner[j] == -1 and price[j] > lam:
            stack[top] = j
            top += 1
    while top > 0:
        top -= 1
        j = stack[top]
        beta = -np.inf
        omega = -np.inf
        best = 0
        for i in range(nr):
            val = np.float64(w[i, j]) * f - profit[i]
            if val > omega:
                if val > beta:
                    omega = beta
                    beta = val
                    best = i
                else:
                    omega = val
        if lam >= beta - eps:
            price[j] = lam
            continue
        price[j] = max(lam, omega - eps)
        old = obj[best]
        owner[old] = -1
        owner[j] = best
        obj[best] = j
        profit[best] = np.float64(w[best, j]) * f - price[j]
        if price[old] > lam:
            stack[top] = old
            top += 1


@njit(cache=True, nogil=True)
def _auction_one(w, epsilon, relative, scaling, fb, ib):
    """Auction on ``w`` (2-D, any strides, rows <= cols); ``ib[0, i]`` = column of row ``i``; returns the value,
    or :func:`invalid_flag` (NaN or -1, nothing solved) at the first weight not in ``[0, max float]``."""
    nr, nc = w.shape
    price, profit = fb[0], fb[1]
    obj, owner, stack = ib[0], ib[1], ib[2]
    C = 0.0
    for i in range(nr):
        for j in range(nc):
            x = np.float64(w[i, j])
            if not x >= 0.0:  # NaN, -inf or negative: flag, never solve
                return invalid_flag(x)
            if x > C:
                C = x
    if C == np.inf:
        return np.nan
    if C == 0.0:  # all weights zero: any matching is optimal
        for i in range(nr):
            obj[i] = i
        return 0.0
    # exact power-of-two scaling to Cs in [0.5, 1) (Cs >= 2^-74 for subnormal C, whose inverse
    # scale would overflow): prices and eps stay normal floats, so eps never rounds to 0
    f = math.ldexp(1.0, min(-math.frexp(C)[1], _MAX_SHIFT))
    Cs = C * f
    eps_final = epsilon * Cs if relative else epsilon * f
    eps_final = min(max(eps_final, _MIN_RELATIVE_EPS * Cs), Cs)
    for j in range(nc):
        price[j] = 0.0
    eps = max(Cs / scaling, eps_final)
    while True:
        _forward_phase(w, f, eps, price, owner, obj, stack)
        if eps <= eps_final:
            break
        eps = max(eps / scaling, eps_final)
    _reverse_fix(w, f, eps_final, price, owner, obj, profit, stack)
    total = 0.0
    for i in range(nr):
        total += np.float64(w[i, obj[i]])
    return total


def _kernel(weights, rows, cols, value, assignment, along_rows, epsilon, relative, scaling, nchunks):
    """Auction on all problems of ``weights`` (P, Q, N, K); fill ``value`` (P, Q), ``assignment`` (P, Q, S)."""
    P, Q = rows.shape
    large = max(weights.shape[2], weights.shape[3])
    total = P * Q
    for chunk in prange(nchunks):
        fb = np.empty((2, large + 1), dtype=np.float64)
        ib = np.empty((3, large + 1), dtype=np.int64)
        for t in range(chunk * total // nchunks, (chunk + 1) * total // nchunks):
            p = t // Q
            q = t - p * Q
            n = rows[p, q]
            k = cols[p, q]
            if n == 0 or k == 0:
                value[p, q] = 0.0
                continue
            block = weights[p, q, :n, :k]
            value[p, q] = _auction_one(block.T if n > k else block, epsilon, relative, scaling, fb, ib)
            if value[p, q] >= 0.0:  # not flagged invalid
                store_partners(assignment, p, q, ib[0], n, k, along_rows)


def _signature(dtype):
    return types.void(types.Array(dtype, 4, "A", readonly=True), types.Array(types.int64, 2, "A"),
                      types.Array(types.int64, 2, "A"), types.Array(types.float64, 2, "A"),
                      types.Array(types.int32, 3, "A"), types.boolean, types.float64, types.boolean,
                      types.float64, types.int64)


_auction_kernel = njit([_signature(types.float32), _signature(types.float64)],
                       parallel=True, cache=True, nogil=True)(_kernel)


class AuctionSolver(MatchingSolver):
    """Epsilon-scaling auction (Bertsekas): a valid matching within ``min(n, k) * eps_final`` of the optimum.

    Args:
        epsilon: final epsilon; relative to each problem's largest weight ``C`` when ``relative``
            (``eps_final = epsilon * C``), else absolute. Clamped to ``[1e-12 * C, C]``.
        scaling: factor ``> 1`` dividing epsilon between phases (first phase: ``C / scaling``).
        relative: whether ``epsilon`` is relative to ``C``.
        threads: Numba threads for the call (default: :func:`solvers.runtime.current_threads`, e.g. torch's
            count inside a layer).
    """

    name = "auction"
    exact = False
    checks_in_kernel = True

    def __init__(self, epsilon: float = 1e-6, scaling: float = 5.0, relative: bool = True,
                 threads: int | None = None) -> None:
        if not (np.isfinite(epsilon) and epsilon > 0):
            raise ValueError(f"epsilon must be a positive finite number, got {epsilon}")
        if not (np.isfinite(scaling) and scaling > 1):
            raise ValueError(f"scaling must be a finite number > 1, got {scaling}")
        self.epsilon, self.scaling = float(epsilon), float(scaling)
        self.relative, self.threads = bool(relative), check_threads(threads)

    def bound(self, weights, row_lengths=None, col_lengths=None) -> np.ndarray:
        """The guaranteed gap ``min(n, k) * eps_final`` of every problem, float64 of the batch shape."""
        w = np.asarray(weights, dtype=np.float64)
        n = np.broadcast_to(w.shape[-2] if row_lengths is None else row_lengths, w.shape[:-2])
        k = np.broadcast_to(w.shape[-1] if col_lengths is None else col_lengths, w.shape[:-2])
        rows_ok = np.arange(w.shape[-2]) < np.asarray(n)[..., None]
        cols_ok = np.arange(w.shape[-1]) < np.asarray(k)[..., None]
        C = np.where(rows_ok[..., :, None] & cols_ok[..., None, :], w, 0).max(axis=(-2, -1), initial=0.0)
        eps = np.minimum(np.maximum(self.epsilon * C if self.relative else self.epsilon, _MIN_RELATIVE_EPS * C), C)
        return np.minimum(n, k) * eps

    def _solve(self, weights, rows, cols, value, assignment, along):
        solve_batch(_auction_kernel, weights, rows, cols, value, assignment, along, self.threads,
                    self.epsilon, self.relative, self.scaling)
