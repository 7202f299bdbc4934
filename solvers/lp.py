"""Verification solvers: the matching LP of the paper (Eq. 1) and ApproxRepSet's relaxed LP (Eq. 2), via cvxpy + HiGHS.

Slow (one LP per problem) and meant for checks only. Needs the ``verify`` extra
(``pip install 'repset[verify]'``: cvxpy and highspy).

* :class:`LPSolver` solves, per problem with weights ``F`` (n x k),
  ``max sum_ij z_ij F_ij  s.t.  sum_i z_ij <= 1, sum_j z_ij <= 1, z >= 0``. The bipartite matching
  polytope is integral, so a vertex optimum is a matching: pairs are read off as ``z > 0.5`` and a
  RuntimeError is raised when ``z`` is not integral within 1e-6. Rows and columns the LP leaves
  unmatched (possible only through zero weights) are paired up arbitrarily so that, like the other
  solvers, ``min(n, k)`` pairs are returned; ``value`` is the weight of the returned pairs.
* :func:`relaxed_lp_value` solves Eq. 2, the LP with one family of constraints dropped, and
  :func:`relaxed_closed_form` gives its closed-form optimum (Proposition 1's proof).

Both scale each problem by its largest absolute weight before handing it to HiGHS (whose absolute
tolerances and infinity bound of 1e20 otherwise give wrong optima on tiny weights and failures on
large ones) and scale the value back; an all-zero problem is not solved (value 0). Every solve
starts cold (``warm_start=False``), so no previous solve can influence it, and anything but an
optimal status raises RuntimeError naming the problem.
"""
from __future__ import annotations

import numpy as np

from .base import PerProblemSolver

__all__ = ["LPSolver", "relaxed_lp_value", "relaxed_closed_form"]

INTEGRALITY_TOL = 1e-6
#: HiGHS's tightest feasibility tolerances (defaults 1e-7): on problems scaled to [0, 1], a vertex
#: accepted as optimal is then within ~min(n, k) * 1e-10 relative of the optimum, even on near-ties
HIGHS_TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _cvxpy():
    """Import cvxpy and check that HiGHS is available; ImportError naming the extra otherwise."""
    hint = "the LP verification solvers need cvxpy and highspy: pip install 'repset[verify]'"
    try:
        import cvxpy as cp
    except ImportError as err:
        raise ImportError(hint) from err
    if "HIGHS" not in cp.installed_solvers():
        raise ImportError(hint + " (cvxpy is installed but HiGHS is not)")
    return cp


def _kept_constraint(n: int, k: int, relax: str) -> str:
    """Which constraint family Eq. 2 keeps: 'cols' (sum_i z_ij <= 1) or 'rows' (sum_j z_ij <= 1)."""
    if relax == "auto":  # rows are the input set X, columns the hidden set Y
        return "cols" if n >= k else "rows"
    if relax not in ("cols", "rows"):
        raise ValueError(f"relax must be 'auto', 'cols' or 'rows', got {relax!r}")
    return relax


def _scaled(F: np.ndarray) -> tuple[np.ndarray, float]:
    """``(F / C, C)`` with ``C`` the largest absolute entry of the finite float64 array ``F`` (``C = 0``:
    ``F`` itself). Entries below ``~1e-308 C`` underflow to 0, far below the solver's tolerances."""
    if not np.isfinite(F).all():
        raise ValueError("weights contain NaN or infinite entries")
    scale = float(np.abs(F).max(initial=0.0))
    return (F / scale if scale > 0 else F), scale


def _solve_cold(cp, problem, what: str) -> None:
    """Solve ``problem`` with HiGHS from scratch; RuntimeError naming ``what`` unless optimal."""
    try:
        problem.solve(solver=cp.HIGHS, warm_start=False, **HIGHS_TOLERANCES)
    except cp.error.SolverError as err:
        raise RuntimeError(f"{what}: HiGHS failed ({err})") from err
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"{what} not solved to optimality: status {problem.status}")


def relaxed_closed_form(weights_2d, relax: str = "auto") -> float:
    """Optimum of the relaxed LP without solving it: ``sum_j max(0, max_i F_ij)`` when only column
    constraints are kept (``|X| >= |Y|`` under ``"auto"``), else ``sum_i max(0, max_j F_ij)``."""
    F = np.asarray(weights_2d, dtype=np.float64)
    if F.ndim != 2:
        raise ValueError(f"weights_2d must be 2-D (|X|, |Y|), got shape {F.shape}")
    if F.size == 0:
        return 0.0
    axis = 0 if _kept_constraint(*F.shape, relax) == "cols" else 1
    return float(np.maximum(F.max(axis=axis), 0).sum())


def relaxed_lp_value(weights_2d, relax: str = "auto") -> float:
    """Solve ApproxRepSet's relaxed LP (paper Eq. 2) for ``F`` of shape (|X|, |Y|) with cvxpy + HiGHS.

    ``relax``: ``"auto"`` keeps ``sum_i z_ij <= 1`` (each hidden element used at most once) when
    ``|X| >= |Y|`` and ``sum_j z_ij <= 1`` otherwise, as in the paper; ``"cols"`` / ``"rows"`` force one.
    Returns the optimal objective value (an upper bound on the matching value, Proposition 1).
    """
    cp = _cvxpy()
    F = np.asarray(weights_2d, dtype=np.float64)
    if F.ndim != 2:
        raise ValueError(f"weights_2d must be 2-D (|X|, |Y|), got shape {F.shape}")
    axis = 0 if _kept_constraint(*F.shape, relax) == "cols" else 1
    G, scale = _scaled(F)
    if scale == 0:
        return 0.0
    z = cp.Variable(F.shape, nonneg=True)
    problem = cp.Problem(cp.Maximize(cp.sum(cp.multiply(G, z))), [cp.sum(z, axis=axis) <= 1])
    _solve_cold(cp, problem, f"relaxed LP of a {F.shape[0]}x{F.shape[1]} problem (largest weight {scale:.3g})")
    return float(problem.value) * scale


class LPSolver(PerProblemSolver):
    """Exact but slow: the matching LP (paper Eq. 1) per problem with cvxpy + HiGHS, for verification.

    One parametrized cvxpy problem is built (and reused) per block shape ``(n, k)``; it is solved
    cold each time on the block divided by its largest weight.
    """

    name = "lp"
    exact = True

    def __init__(self) -> None:
        self._cp = _cvxpy()
        self._problems: dict[tuple[int, int], tuple] = {}

    def _problem(self, n: int, k: int):
        if (n, k) not in self._problems:
            cp = self._cp
            F = cp.Parameter((n, k), nonneg=True)
            z = cp.Variable((n, k), nonneg=True)
            problem = cp.Problem(cp.Maximize(cp.sum(cp.multiply(F, z))),
                                 [cp.sum(z, axis=0) <= 1, cp.sum(z, axis=1) <= 1])
            self._problems[(n, k)] = (problem, F, z)
        return self._problems[(n, k)]

    def solve_block(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Matched ``(rows, cols)`` (int arrays of length ``min(n, k)``) of one ``n x k`` block."""
        n, k = block.shape
        G, scale = _scaled(np.asarray(block, dtype=np.float64))
        r = c = np.zeros(0, dtype=np.int64)
        if scale > 0:  # else an all-zero block: any matching (paired up below) is optimal
            what = f"matching LP of a {n}x{k} problem (largest weight {scale:.3g})"
            problem, F, z = self._problem(n, k)
            F.value = G
            _solve_cold(self._cp, problem, what)
            Z = np.asarray(z.value, dtype=np.float64)
            gap = np.abs(Z - np.round(Z)).max()
            if gap > INTEGRALITY_TOL:
                raise RuntimeError(f"{what}: solution is not integral (max distance to an integer {gap:.3g})")
            r, c = np.nonzero(Z > 0.5)
            if len(np.unique(r)) != len(r) or len(np.unique(c)) != len(c):
                raise RuntimeError(f"{what}: solution is not a matching")
        free_r = np.setdiff1d(np.arange(n), r)[: min(n, k) - len(r)]
        free_c = np.setdiff1d(np.arange(k), c)[: len(free_r)]
        return np.concatenate([r, free_r]), np.concatenate([c, free_c])
