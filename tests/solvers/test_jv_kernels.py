"""The JV building blocks one problem at a time, and the sha256 that keeps the caches compiled from them coherent."""
from __future__ import annotations

import ast
import hashlib

import numpy as np
import pytest
from repo_paths import ROOT
from scipy.optimize import linear_sum_assignment

pytest.importorskip("numba")

from solvers import jv_kernels  # noqa: E402


def scratch(cols: int) -> tuple[np.ndarray, np.ndarray]:
    """``fb`` (7, L) float64 and ``ib`` (8, 2 L) int64 for blocks of at most ``cols`` columns."""
    return np.empty((7, cols + 1)), np.empty((8, 2 * cols + 2), dtype=np.int64)


def test_solve_one_is_the_optimum_and_leaves_each_rows_column():
    rng = np.random.default_rng(0)
    for n, k in [(1, 1), (3, 7), (5, 5), (4, 9)]:
        w = rng.random((n, k))
        fb, ib = scratch(k)
        value = jv_kernels.solve_one(w, fb, ib)
        rows, cols = linear_sum_assignment(w, maximize=True)
        assert value == pytest.approx(w[rows, cols].sum())
        partner = ib[0, :n]
        assert len(set(partner.tolist())) == n and w[np.arange(n), partner].sum() == pytest.approx(value)


def test_invalid_weights_are_flagged_before_solving():
    fb, ib = scratch(2)
    assert jv_kernels.solve_one(np.array([[1.0, -2.0]]), fb, ib) == -1.0
    assert np.isnan(jv_kernels.solve_one(np.array([[1.0, np.nan]]), fb, ib))
    assert np.isnan(jv_kernels.solve_one(np.array([[np.inf, 1.0]]), fb, ib))


def test_modules_compiling_these_kernels_name_this_file():
    """Every solvers module that imports these kernels into cached ones of its own carries jv_kernels.py's
    sha256: Numba sees only a cached function's own file, so changing jv_kernels.py fails here until those
    lines change too, which invalidates their caches."""
    digest = hashlib.sha256((ROOT / "solvers" / "jv_kernels.py").read_bytes()).hexdigest()
    users = {}
    for path in sorted((ROOT / "solvers").glob("*.py")):
        text = path.read_text()
        tree = ast.parse(text)
        if "cache=True" in text and any(isinstance(n, ast.ImportFrom) and n.module == "jv_kernels" and n.level == 1
                                        for n in ast.walk(tree)):
            users[path.stem] = [n.value.value for n in tree.body if isinstance(n, ast.Assign)
                                and [t.id for t in n.targets if isinstance(t, ast.Name)] == ["JV_KERNELS_SHA256"]]
    assert set(users) >= {"jv_dense", "shared_rows", "auction"}
    assert users == {name: [digest] for name in users}
