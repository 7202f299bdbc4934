"""The LP verification solvers: Eq. 1 equals the combinatorial optimum; Eq. 2 bounds it (Proposition 1)."""
from __future__ import annotations

import builtins

import numpy as np
import pytest

pytest.importorskip("cvxpy")

from solvers import get_solver  # noqa: E402
from solvers.lp import relaxed_closed_form, relaxed_lp_value  # noqa: E402


def layer_like(rng, B, N, m, K, d=6):
    F = np.maximum(rng.normal(size=(B * N, d)) @ rng.normal(size=(d, m * K)), 0).astype(np.float32)
    return F.reshape(B, N, m, K).transpose(0, 2, 1, 3)


@pytest.fixture(scope="module")
def lp():
    return get_solver("lp")


def test_lp_equals_scipy_on_ragged_strided_batch(lp):
    rng = np.random.default_rng(0)
    w = layer_like(rng, 3, 7, 4, 5)
    rows = np.array([[7], [3], [0]])
    cols = np.array([[5, 2, 1, 4]])
    got, want = lp.solve(w, rows, cols), get_solver("scipy").solve(w, rows, cols)
    np.testing.assert_allclose(got.value, want.value, rtol=1e-9, atol=1e-12)
    r_idx, c_idx = got.pairs()
    for b, q in np.ndindex(3, 4):
        keep = r_idx[b, q] >= 0
        r, c = r_idx[b, q][keep], c_idx[b, q][keep]
        assert len(r) == min(rows[b, 0], cols[0, q])
        assert len(set(r.tolist())) == len(r) and len(set(c.tolist())) == len(c)
        assert got.value[b, q] == pytest.approx(float(np.asarray(w[b, q], dtype=np.float64)[r, c].sum()))
    assert lp.name == "lp" and lp.exact


def test_lp_on_ties_zeros_and_shapes(lp):
    rng = np.random.default_rng(1)
    scipy = get_solver("scipy")
    for w in [rng.integers(0, 3, size=(2, 2, 5, 6)).astype(np.float64), np.zeros((1, 2, 3, 4)),
              rng.random((2, 6, 3)), rng.random((4, 4))]:
        got = lp.solve(w)
        np.testing.assert_allclose(got.value, scipy.solve(w).value, rtol=1e-9, atol=1e-12)
        assert np.all((got.assignment >= 0).sum(-1) == min(w.shape[-2:]))


@pytest.mark.parametrize("shape", [(9, 4), (4, 9), (6, 6), (1, 5), (5, 1)])
def test_relaxed_lp_bounds_exact_and_equals_closed_form(shape):
    rng = np.random.default_rng(sum(shape))
    exact = get_solver("scipy")
    for _ in range(3):
        F = np.maximum(rng.normal(size=shape), 0)
        relaxed = relaxed_lp_value(F)
        assert relaxed == pytest.approx(relaxed_closed_form(F), rel=1e-7, abs=1e-9)
        assert relaxed >= float(exact.solve(F).value) - 1e-9  # Proposition 1
        for relax in ("rows", "cols"):
            assert relaxed_lp_value(F, relax) == pytest.approx(relaxed_closed_form(F, relax), rel=1e-7, abs=1e-9)
            assert relaxed_lp_value(F, relax) >= float(exact.solve(F).value) - 1e-9


def test_relaxation_is_strict_when_inputs_collide():
    F = np.array([[5.0, 4.0], [1.0, 0.0], [0.0, 1.0]])  # |X| = 3 >= |Y| = 2: both y pick x_0
    assert relaxed_lp_value(F) == pytest.approx(9.0)
    assert float(get_solver("scipy").solve(F).value) == pytest.approx(6.0)
    with pytest.raises(ValueError, match="relax"):
        relaxed_closed_form(F, "both")


def test_missing_cvxpy_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "cvxpy":
            raise ImportError("no cvxpy")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r"repset\[verify\]"):
        get_solver("lp")
    with pytest.raises(ImportError, match=r"repset\[verify\]"):
        relaxed_lp_value(np.ones((2, 2)))


EXPONENTS = [-300, -250, -200, -100, -50, -30, -20, -12, -9, -7, -5, -3, 0, 3, 7, 12, 19, 20, 30, 50, 100, 200,
             250, 300]


def test_lp_equals_scipy_on_every_magnitude(lp):
    """HiGHS's absolute tolerances and 1e20 infinity used to give wrong optima below ~1e-5 and
    SolverError / unpack failures above ~1e19: each problem is now solved scaled by its largest weight."""
    rng = np.random.default_rng(71)
    scipy = get_solver("scipy")
    base = [rng.random((2, 3, 3)), rng.random((2, 4, 6)), rng.random((2, 6, 4)), rng.random((7, 7)),
            layer_like(rng, 2, 5, 2, 3).astype(np.float64)]
    for exponent in EXPONENTS:
        for w in base:
            scaled = w * 10.0 ** exponent
            got, want = lp.solve(scaled), scipy.solve(scaled)
            np.testing.assert_allclose(got.value, want.value, rtol=1e-9, atol=0, err_msg=f"1e{exponent}")
            assert np.all((got.assignment >= 0).sum(-1) == min(w.shape[-2:]))
    for c in [1e-300, 1e-30, 1e-7, 1.0, 1e19, 1e30, 1e300]:
        constant = np.full((60, 60), c)
        assert float(lp.solve(constant).value) == pytest.approx(60 * c, rel=1e-9)


def test_lp_known_failures_of_unscaled_highs(lp):
    small = np.random.default_rng(71).random((3, 3)) * 1e-7
    assert float(lp.solve(small).value) == pytest.approx(float(get_solver("scipy").solve(small).value), rel=1e-9)
    rng = np.random.default_rng(1)
    for w in [rng.random((4, 5)) * 1e19, np.full((3, 3), 1e30)]:  # SolverError / "Cannot unpack invalid solution"
        assert float(lp.solve(w).value) == pytest.approx(float(get_solver("scipy").solve(w).value), rel=1e-9)


def test_lp_result_does_not_depend_on_previous_solves():
    w = np.random.default_rng(71).random((3, 3)) * 1e-7
    fresh = get_solver("lp").solve(w)
    used = get_solver("lp")
    for other in [np.random.default_rng(5).random((3, 3)), np.full((3, 3), 1e-30), np.eye(3)]:
        used.solve(other)
        again = used.solve(w)
        assert float(again.value) == float(fresh.value)
        np.testing.assert_array_equal(again.assignment, fresh.assignment)


def test_lp_all_zero_problem_is_not_solved(lp, monkeypatch):
    monkeypatch.setattr(lp, "_problem", None)  # would raise if an LP were built
    got = lp.solve(np.zeros((2, 4, 3)))
    assert got.value.tolist() == [0.0, 0.0]
    assert np.all((got.assignment >= 0).sum(-1) == 3)


def test_lp_solver_failure_is_named(monkeypatch):
    import cvxpy as cp

    def fail(self, *args, **kwargs):
        raise cp.error.SolverError("Solver 'HIGHS' failed.")

    monkeypatch.setattr(cp.Problem, "solve", fail)
    with pytest.raises(RuntimeError, match=r"matching LP of a 3x4 problem \(largest weight 2\).*HiGHS failed"):
        get_solver("lp").solve(np.full((3, 4), 2.0))
    with pytest.raises(RuntimeError, match=r"relaxed LP of a 2x2 problem"):
        relaxed_lp_value(np.ones((2, 2)))


def test_lp_non_optimal_status_is_named(monkeypatch):
    import cvxpy as cp

    def unbounded(self, *args, **kwargs):
        self._status = cp.UNBOUNDED

    monkeypatch.setattr(cp.Problem, "solve", unbounded)
    with pytest.raises(RuntimeError, match=r"matching LP of a 2x2 problem .* status unbounded"):
        get_solver("lp").solve(np.eye(2))


@pytest.mark.parametrize("shape", [(9, 4), (4, 9), (6, 6)])
def test_relaxed_lp_on_every_magnitude_equals_closed_form_and_scales_linearly(shape):
    rng = np.random.default_rng(sum(shape) + 7)
    F = np.maximum(rng.normal(size=shape), 0)
    unit = relaxed_lp_value(F)
    for exponent in [-300, -200, -30, -12, -7, 0, 12, 19, 30, 200, 300]:
        s = 10.0 ** exponent
        for relax in ("auto", "rows", "cols"):
            value = relaxed_lp_value(F * s, relax)
            assert value == pytest.approx(relaxed_closed_form(F * s, relax), rel=1e-9), (exponent, relax)
        assert relaxed_lp_value(F * s) == pytest.approx(unit * s, rel=1e-9), exponent
    assert relaxed_lp_value(np.zeros(shape)) == 0.0
    with pytest.raises(ValueError, match="NaN or infinite"):
        relaxed_lp_value(np.full(shape, np.inf))


def test_lp_is_exact_on_near_ties(lp):
    """HiGHS's default 1e-7 tolerances accepted vertices ~6e-9 relative below the optimum."""
    rng = np.random.default_rng(0)
    scipy = get_solver("scipy")
    for _ in range(10):
        n, k = rng.integers(3, 15, size=2)
        w = (1 + 1e-8 * rng.random((2, n, k))) * 10.0 ** rng.integers(-300, 300)
        np.testing.assert_allclose(lp.solve(w).value, scipy.solve(w).value, rtol=1e-9, atol=0)
