"""The ``numba`` solver's dense batch kernel: every problem of a ``(P, Q, N, K)`` batch solved as it is by
:func:`~solvers.jv_kernels.solve_one`, all ``P * Q`` problems spread over threads with ``prange`` in
chunks (handed out dynamically, several per thread), each chunk owning its scratch buffers. Both float32
and float64 kernels (weights typed read-only, so writeable and read-only arrays share them) are compiled
eagerly when this module is first imported (by the solver's first call), with their cache in
:func:`solvers.runtime.cache_dir`.
"""
from __future__ import annotations

import numpy as np
from numba import prange, types

from .jv_kernels import solve_one, store_partners
from .runtime import njit

#: sha256 of jv_kernels.py, whose kernels the cached ones here compile in. Numba invalidates an on-disk
#: cache only when the cached function's own file changes, so any change to jv_kernels.py must change
#: this line too (tests/solvers/test_jv_kernels.py checks it).
JV_KERNELS_SHA256 = "a91e603f3a593e2c38b9f58367406472472d7137e2ce9663804fa8ec2f39d198"

__all__ = ["jv_kernel"]


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


jv_kernel = njit([_signature(types.float32), _signature(types.float64)],
                 parallel=True, cache=True, nogil=True)(_kernel)
