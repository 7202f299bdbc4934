"""Reference solver: ``scipy.optimize.linear_sum_assignment`` once per problem."""
from __future__ import annotations

from scipy.optimize import linear_sum_assignment

from .base import PerProblemSolver


class ScipySolver(PerProblemSolver):
    """Exact, a Python loop over SciPy's shortest-augmenting-path solver (rectangular, unpadded)."""

    name = "scipy"

    def solve_block(self, block):
        return linear_sum_assignment(block, maximize=True)
