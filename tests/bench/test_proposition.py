"""Proposition check: LP = Hungarian, relaxed >= exact, on random instances."""
import numpy as np
import pytest

pytest.importorskip("cvxpy")

from repset.bench.proposition import proposition_table, random_instances, set_instances, summarize  # noqa: E402


def test_integrality_and_proposition_1():
    table = proposition_table(random_instances(12, seed=1, max_side=7), "random")
    assert len(table) == 12 and (table["n"] < table["k"]).any() and (table["n"] > table["k"]).any()
    summary = summarize(table).iloc[0]
    assert summary["max_lp_rel_err"] < 1e-6 and summary["max_closed_form_rel_err"] < 1e-6
    assert summary["relaxed_below_exact"] == 0 and summary["ratio_median"] >= 1.0


def test_set_instances_use_real_rows():
    values = np.arange(20, dtype=float).reshape(10, 2)
    inst = set_instances(values, np.array([0, 3, 10]), count=2, hidden_size=4, max_elements=5)
    assert sorted(F.shape for F in inst) == [(3, 4), (5, 4)] and all((F >= 0).all() for F in inst)
