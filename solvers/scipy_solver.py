"""Reference solver: ``scipy.optimize.linear_sum_assignment`` once per problem."""
from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from .base import MatchingSolver


class ScipySolver(MatchingSolver):
    """Exact, a Python loop over SciPy's shortest-augmenting-path solver (rectangular, unpadded)."""

    name = "scipy"

    def _solve(self, weights, rows, cols, value, assignment, along):
        P, Q = rows.shape
        for p in range(P):
            for q in range(Q):
                n, k = rows[p, q], cols[p, q]
                if n == 0 or k == 0:
                    continue
                block = weights[p, q, :n, :k]
                r, c = linear_sum_assignment(block, maximize=True)
                value[p, q] = block[r, c].sum(dtype=np.float64)
                if along == "rows":
                    assignment[p, q, r] = c
                else:
                    assignment[p, q, c] = r
