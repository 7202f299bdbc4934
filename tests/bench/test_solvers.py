"""The solver benchmark on tiny shapes: columns, extrapolation, and exact solvers agreeing with SciPy."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pandas")
pytest.importorskip("numba")

from repset.bench.solvers import make_instances, solver_benchmark  # noqa: E402

COLUMNS = {"solver", "shape", "problems", "n", "k", "seconds", "speedup_vs_scipy", "max_rel_err", "threads",
           "subsample", "extrapolated", "exact"}


def test_instances_are_seeded_nonnegative_transposed_views():
    a, b = make_instances((3, 5, 4, 6), seed=1), make_instances((3, 5, 4, 6), seed=1)
    assert a.shape == (3, 4, 5, 6) and a.dtype == np.float32 and not a.flags.c_contiguous
    np.testing.assert_array_equal(a, b)
    assert a.min() >= 0 and (a > 0).mean() > 0.3
    assert not np.array_equal(a, make_instances((3, 5, 4, 6), seed=2))


def test_benchmark_on_tiny_shapes():
    shapes = {"wide": (4, 6, 3, 9), "tall": (3, 11, 4, 5)}
    table = solver_benchmark(shapes, ["numba", "auction"], repeats=2, seed=0,
                             max_problems={"scipy": {"wide": 6}, "auction": 5})
    assert COLUMNS <= set(table.columns)
    assert len(table) == 6 and table.solver.tolist()[:3] == ["scipy", "numba", "auction"]
    assert set(table["shape"]) == {"wide", "tall"}
    wide = table[table["shape"] == "wide"].set_index("solver")
    assert wide.loc["scipy", "subsample"] == 6 and wide.loc["scipy", "extrapolated"]
    assert wide.loc["numba", "subsample"] == 12 and not wide.loc["numba", "extrapolated"]
    assert wide.loc["auction", "subsample"] == 6  # whole sets: ceil(5 / 3) = 2 sets of 3 problems
    assert wide.loc["scipy", "speedup_vs_scipy"] == pytest.approx(1.0)
    assert (table.problems == [12, 12, 12, 12, 12, 12]).all()
    assert (table.seconds > 0).all() and (table.threads >= 1).all()
    exact = table[table.exact]
    assert (exact.max_rel_err <= 1e-6).all()
    assert (table[table.solver == "auction"].max_rel_err <= 1e-4).all()
