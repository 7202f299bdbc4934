"""Exact batched solver: shortest augmenting paths (Jonker-Volgenant / Crouse 2016) in one Numba call.

Every problem is solved as it is, without padding: its smaller side plays the rows (a problem with
more rows than columns is transposed by index arithmetic), so an ``n x k`` problem costs
``O(min(n, k)^2 max(n, k))`` at worst and ``O(n k)`` when the greedy start is already optimal. The
per-problem algorithm, its validation of the weights and its scaling are :mod:`solvers.jv_kernels`';
the dense batch kernel is :mod:`solvers.jv_dense`'s, and problems whose rows come from a shared table
(``solve_indexed``) have their own kernel, :mod:`solvers.shared_rows`, built from the same pieces.

Importing this module and building the solver load nothing of Numba: the kernels are imported, and
compiled or loaded from their cache (:mod:`solvers.runtime`), on the first call.
"""
from __future__ import annotations

import numpy as np

from .base import MatchingSolver
from .runtime import check_threads, solve_batch

__all__ = ["NumbaJVSolver", "solve_batch"]


class NumbaJVSolver(MatchingSolver):
    """Exact solver: Numba-parallel shortest augmenting paths with a greedy, dual-feasible start.

    Args:
        threads: Numba threads for every call; default None: read at each call
            (:func:`solvers.runtime.current_threads`: inside a layer, torch's count). At most
            ``numba.config.NUMBA_NUM_THREADS``.
    """

    name = "numba"
    exact = True
    checks_in_kernel = True

    def __init__(self, threads: int | None = None) -> None:
        self.threads = check_threads(threads)

    def _solve(self, weights, rows, cols, value, assignment, along):
        from .jv_dense import jv_kernel

        solve_batch(jv_kernel, weights, rows, cols, value, assignment, along, self.threads)

    def _solve_indexed(self, table, row_index, rows, cols, value, assignment, along):
        from .shared_rows import shared_rows_kernel

        solve_batch(shared_rows_kernel, np.ascontiguousarray(table), rows, cols, value, assignment, along,
                    self.threads, leading=(np.ascontiguousarray(row_index),), chunks_of=len(row_index))
