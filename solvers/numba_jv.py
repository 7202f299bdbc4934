"""Exact batched solver: shortest augmenting paths (Jonker-Volgenant / Crouse 2016) in one Numba call.

Every problem is solved as it is, without padding: its smaller side plays the rows (a problem with
more rows than columns is transposed by index arithmetic), so an ``n x k`` problem costs
``O(min(n, k)^2 max(n, k))`` at worst and ``O(n k)`` when the greedy start is already optimal. The
per-problem algorithm, its validation of the weights and its scaling are :mod:`solvers.jv_kernels`'.

All ``P * Q`` problems are spread over threads with ``prange`` in chunks (handed
out dynamically, several per thread), each chunk owning its scratch buffers. Both float32 and
float64 kernels (weights typed read-only, so writeable and read-only arrays share them) are
compiled eagerly with ``cache=True``: a new process loads them from ``__pycache__``.
Problems whose rows come from a shared table (``solve_indexed``) have their own kernel,
:mod:`solvers.shared_rows`, built from the same pieces.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange, types

from .base import MatchingSolver
# row_best, solve_from_best and invalid_flag are re-exported for callers that took them from here
from .jv_kernels import invalid_flag, row_best, solve_from_best, solve_one, store_partners

#: sha256 of jv_kernels.py, whose kernels the cached ones here compile in. Numba invalidates an on-disk
#: cache only when the cached function's own file changes, so any change to jv_kernels.py must change
#: this line too (tests/solvers/test_jv_kernels.py checks it).
JV_KERNELS_SHA256 = "a0c7b491825c366ccd028a3df93bfe9173bb7bddb38652b1a00ed743d0a5f021"

__all__ = ["NumbaJVSolver", "solve_batch", "invalid_flag", "store_partners", "solve_one", "row_best", "solve_from_best"]


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
