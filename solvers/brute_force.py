"""Brute-force reference solver: enumerates every maximal matching (tiny problems only)."""
from __future__ import annotations

import itertools

import numpy as np

from .base import PerProblemSolver

MAX_SIDE = 8


class BruteForceSolver(PerProblemSolver):
    """Exact by enumeration of all injective maps from the smaller side; for tests (min(n, k) <= 8)."""

    name = "brute"

    def solve_block(self, block):
        block = np.asarray(block, dtype=np.float64)
        small = block if block.shape[0] <= block.shape[1] else block.T   # rows of `small`: the smaller side
        if small.shape[0] > MAX_SIDE:
            raise ValueError(f"brute force solver: problem {block.shape} too large (smaller side > {MAX_SIDE})")
        ids = np.arange(small.shape[0])
        best = max(itertools.permutations(range(small.shape[1]), small.shape[0]),
                   key=lambda perm: small[ids, perm].sum())
        partners = np.asarray(best)
        return (ids, partners) if small is block else (partners, ids)
