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
