"""The epsilon-scaling auction: valid matchings, value within min(n, k) * eps_final of SciPy's optimum."""
from __future__ import annotations

import numpy as np
import pytest

from matching_checks import check_matching, layer_like
from solvers import get_solver

pytest.importorskip("numba")


def assert_within_bound(solver, w, rows=None, cols=None):
    got = solver.solve(w, rows, cols)
    best = get_solver("scipy").solve(w, rows, cols).value
    gap = best - got.value
    bound = solver.bound(w, rows, cols)
    tol = 1e-9 * np.maximum(best, 1e-300)
    assert np.all(gap >= -tol), "auction beat the optimum"
    assert np.all(gap <= bound + tol), (gap.max(), bound.max())
    check_matching(w, rows, cols, got)
    return gap, bound


def test_flags():
    solver = get_solver("auction")
    assert solver.name == "auction" and solver.exact is False


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("N,K", [(9, 4), (4, 9), (7, 7), (1, 6), (6, 1)])
def test_default_epsilon_is_near_exact_on_ragged_strided_batches(dtype, N, K):
    rng = np.random.default_rng(N * 10 + K)
    w = layer_like(rng, 5, N, 6, K, dtype)
    rows = rng.integers(0, N + 1, size=(5, 1))
    cols = rng.integers(1, K + 1, size=(1, 6))
    gap, _ = assert_within_bound(get_solver("auction"), w, rows, cols)
    best = get_solver("scipy").solve(w, rows, cols).value
    assert np.all(gap <= 1e-5 * np.maximum(best, 1e-30) * min(N, K))


@pytest.mark.parametrize("epsilon,scaling", [(0.2, 2.0), (0.05, 5.0), (0.01, 10.0), (1e-3, 3.0)])
def test_coarse_epsilon_stays_within_its_bound(epsilon, scaling):
    rng = np.random.default_rng(int(epsilon * 1000) + int(scaling))
    solver = get_solver("auction", epsilon=epsilon, scaling=scaling)
    for w in [rng.random((6, 5, 12, 8)), rng.random((6, 5, 8, 30)), layer_like(rng, 4, 20, 5, 20, d=3),
              rng.integers(0, 4, size=(4, 4, 9, 9)).astype(np.float64)]:
        assert_within_bound(solver, w)


def test_absolute_epsilon():
    rng = np.random.default_rng(11)
    w = rng.random((4, 4, 10, 14)) * 100
    solver = get_solver("auction", epsilon=0.5, relative=False)
    _, bound = assert_within_bound(solver, w)
    np.testing.assert_allclose(bound, 10 * 0.5)


def test_inputs_of_two_and_three_dimensions_and_edge_cases():
    solver = get_solver("auction")
    rng = np.random.default_rng(12)
    assert_within_bound(solver, rng.random((5, 8)))
    assert_within_bound(solver, rng.random((4, 8, 5)), np.array([8, 0, 2, 5]))
    one = solver.solve(np.array([[3.0]]))
    assert float(one.value) == 3.0 and one.assignment.tolist() == [0]
    zeros = solver.solve(np.zeros((2, 3, 4, 6), dtype=np.float32))
    assert np.all(zeros.value == 0)
    check_matching(np.zeros((2, 3, 4, 6)), None, None, zeros)
    ties = np.ones((3, 2, 5, 7))
    assert_within_bound(solver, ties)
    for shape in [(3, 0, 4), (3, 4, 0)]:
        assert np.all(solver.solve(np.zeros(shape)).value == 0)


@pytest.mark.parametrize("dtype,scale", [(np.float32, 1e30), (np.float64, 1e300), (np.float64, 1e-300)])
def test_extreme_magnitudes(dtype, scale):
    rng = np.random.default_rng(13)
    w = (rng.random((3, 3, 6, 9)) * scale).astype(dtype)
    got = get_solver("auction").solve(w)
    assert np.all(np.isfinite(got.value))
    assert_within_bound(get_solver("auction"), w)


def test_padding_is_never_matched():
    rng = np.random.default_rng(14)
    B, N, m, K = 5, 8, 4, 6
    w = layer_like(rng, B, N, m, K)
    rows = rng.integers(1, N + 1, size=(B, 1))
    cols = rng.integers(1, K + 1, size=(1, m))
    poisoned = np.array(w, copy=True)
    for b, q in np.ndindex(B, m):
        poisoned[b, q, rows[b, 0]:, :] = 1e6
        poisoned[b, q, :, cols[0, q]:] = 1e6
    got = get_solver("auction").solve(poisoned, rows, cols)
    assert got.value.max() < 1e5
    check_matching(poisoned, rows, cols, got)


def test_option_validation():
    for bad in [dict(epsilon=0), dict(epsilon=-1), dict(scaling=1.0), dict(threads=0)]:
        with pytest.raises(ValueError):
            get_solver("auction", **bad)


#: child code: auction, numba and scipy values and the auction's bound on extreme magnitudes
EXTREMES = """
import json
import numpy as np
from solvers import get_solver

rng = np.random.default_rng(15)
cases = {"2x2 of 1e-320": np.full((2, 2), 1e-320), "3x5 of 5e-324": np.full((3, 5), 5e-324),
         "subnormal": rng.random((4, 6, 7)) * 1e-310, "deep subnormal": rng.random((4, 7, 6)) * 1e-318,
         "tiny": rng.random((3, 5, 5)) * 1e-300, "huge": rng.random((4, 6, 7)) * 1e300,
         "near max": rng.random((3, 1, 5)) * 1.7e308, "ties 1e300": np.full((2, 4, 4), 1e300),
         "float32 subnormal": (rng.random((3, 5, 6)) * 1e-40).astype(np.float32),
         "float32 huge": (rng.random((3, 6, 5)) * 3e38).astype(np.float32)}
mixed = rng.random((3, 5, 5)) * 1e-320
mixed[:, 0, 0] = 1e-300
cases["mixed"] = mixed
auction = get_solver("auction")
out = {key: {"auction": auction.solve(w).value.tolist(), "bound": auction.bound(w).tolist(),
             "numba": get_solver("numba").solve(w).value.tolist(), "scipy": get_solver("scipy").solve(w).value.tolist()}
       for key, w in cases.items()}
print(json.dumps(out))
"""


def test_terminates_within_its_bound_on_subnormal_tiny_and_huge_weights(run_isolated):
    """eps_final used to round to 0 below ~2.5e-318, looping forever; now every problem is scaled
    by a power of two (C in [0.5, 1)). Run in a child process so that a hang fails, not blocks."""
    out = run_isolated(EXTREMES)
    for key, got in out.items():
        best = np.asarray(got["scipy"])
        gap = best - np.asarray(got["auction"])
        tol = 1e-9 * best
        assert np.all(np.isfinite(got["auction"])) and np.all(best > 0), key
        assert np.all(gap >= -tol) and np.all(gap <= np.asarray(got["bound"]) + tol), (key, gap, got["bound"])
        np.testing.assert_allclose(got["numba"], best, rtol=1e-12, atol=0, err_msg=key)
    assert out["2x2 of 1e-320"]["auction"] == 2e-320
    assert out["3x5 of 5e-324"]["auction"] == 3 * 5e-324


def test_bound_clamps_epsilon_to_the_largest_weight():
    solver = get_solver("auction", epsilon=10.0, relative=False)
    w = np.random.default_rng(16).random((3, 4, 5))
    _, bound = assert_within_bound(solver, w)
    np.testing.assert_allclose(bound, 4 * w.max(axis=(-2, -1)))
