"""Verification of the matching layer's theory on random and real instances.

For each instance F (|X| x |Y|, nonnegative): the Hungarian value (scipy), the matching LP optimum
(cvxpy/HiGHS: equal by integrality of the bipartite matching polytope), the relaxed LP of
ApproxRepSet (paper Eq. 2) and its closed form (upper bounds by Proposition 1).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from solvers import get_solver
from solvers.lp import relaxed_closed_form, relaxed_lp_value



def random_instances(count: int, seed: int = 0, max_side: int = 30, dim: int = 8) -> list[np.ndarray]:
    """ReLU(V H) for Gaussian V (n, d) and H (d, k) with n, k uniform in [1, max_side] (both n < k and n > k)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n, k = rng.integers(1, max_side + 1, 2)
        out.append(np.maximum(rng.standard_normal((n, dim)) @ rng.standard_normal((dim, k)), 0))
    return out


def set_instances(values: np.ndarray, offsets: np.ndarray, count: int, hidden_size: int = 20,
                  seed: int = 0, max_elements: int = 60) -> list[np.ndarray]:
    """ReLU(V H) for real sets V of a store (at most ``max_elements`` elements) and hidden sets H drawn
    uniformly in [-1, 1] (the layer's initialisation)."""
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(offsets) - 1, size=min(count, len(offsets) - 1), replace=False)
    out = []
    for i in picks:
        V = values[offsets[i]:offsets[i + 1]][:max_elements]
        H = rng.uniform(-1, 1, (values.shape[1], hidden_size))
        out.append(np.maximum(V @ H, 0))
    return out


def proposition_table(instances: list[np.ndarray], source: str) -> pd.DataFrame:
    """One row per instance: shape, Hungarian value, LP value, relaxed LP, relaxed closed form, ratio."""
    hungarian, lp = get_solver("scipy"), get_solver("lp")
    rows = []
    for F in instances:
        exact = float(hungarian.solve(F).value)
        relaxed = relaxed_lp_value(F)
        rows.append({"source": source, "n": F.shape[0], "k": F.shape[1], "hungarian": exact,
                     "lp": float(lp.solve(F).value), "relaxed_lp": relaxed, "relaxed_closed_form": relaxed_closed_form(F),
                     "relaxed_over_exact": relaxed / exact if exact > 0 else np.nan})
    return pd.DataFrame(rows)


def summarize(table: pd.DataFrame, tol: float = 1e-6) -> pd.DataFrame:
    """Per source: instances, max |LP - Hungarian| (relative), violations of relaxed >= exact, ratio quantiles."""
    def rel(a, b):
        return (a - b).abs() / b.abs().clip(lower=1e-12)

    g = table.assign(lp_rel_err=rel(table["lp"], table["hungarian"]),
                     closed_rel_err=rel(table["relaxed_closed_form"], table["relaxed_lp"]),
                     violation=table["relaxed_lp"] < table["hungarian"] * (1 - tol) - tol).groupby("source")
    return pd.DataFrame({"instances": g.size(), "max_lp_rel_err": g["lp_rel_err"].max(),
                         "max_closed_form_rel_err": g["closed_rel_err"].max(),
                         "relaxed_below_exact": g["violation"].sum(),
                         "ratio_median": g["relaxed_over_exact"].median(),
                         "ratio_max": g["relaxed_over_exact"].max()}).reset_index()
