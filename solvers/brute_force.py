"""Brute-force reference solver: enumerates every maximal matching (tiny problems only)."""
from __future__ import annotations

import itertools

import numpy as np

from .base import MatchingSolver

MAX_SIDE = 8


class BruteForceSolver(MatchingSolver):
    """Exact by enumeration of all injective maps from the smaller side; for tests (min(n, k) <= 8)."""

    name = "brute"

    def _solve(self, weights, rows, cols, value, assignment, along):
        P, Q = rows.shape
        for p in range(P):
            for q in range(Q):
                n, k = int(rows[p, q]), int(cols[p, q])
                if n == 0 or k == 0:
                    continue
                block = np.asarray(weights[p, q, :n, :k], dtype=np.float64)
                small = block if n <= k else block.T          # rows of `small` are the smaller side
                if small.shape[0] > MAX_SIDE:
                    raise ValueError(f"brute force solver: problem {small.shape} too large (smaller side > {MAX_SIDE})")
                ids = np.arange(small.shape[0])
                best, best_perm = -1.0, None
                for perm in itertools.permutations(range(small.shape[1]), small.shape[0]):
                    total = small[ids, perm].sum()
                    if total > best:
                        best, best_perm = total, perm
                value[p, q] = best
                partners = np.asarray(best_perm, dtype=np.int32)
                if (n <= k) == (along == "rows"):
                    assignment[p, q, : len(partners)] = partners
                else:                                            # smaller problem side is not the indexed side
                    assignment[p, q, partners] = ids
