"""Scipy reference solver against brute-force enumeration on tiny and edge-case instances."""
import numpy as np
import pytest

from solvers import get_solver


def valid_matching(result, weights, rows, cols):
    """Every matched pair lies inside the problem, no element is used twice, weights sum to value."""
    r, c = result.pairs()
    for idx in np.ndindex(result.value.shape):
        ri, ci = r[idx], c[idx]
        keep = ri >= 0
        ri, ci = ri[keep], ci[keep]
        assert (ri < rows[idx]).all() and (ci < cols[idx]).all()
        assert len(set(ri.tolist())) == len(ri) and len(set(ci.tolist())) == len(ci)
        assert len(ri) == min(rows[idx], cols[idx])
        np.testing.assert_allclose(weights[idx][ri, ci].sum(), result.value[idx], rtol=1e-6, atol=1e-9)


SHAPES = [(1, 1), (1, 4), (4, 1), (3, 3), (2, 5), (5, 2), (6, 6), (4, 7)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["random", "zeros", "ties", "integers", "huge"])
def test_equals_brute_force(shape, kind):
    rng = np.random.default_rng(hash((shape, kind)) % 2**32)
    w = {"random": lambda: rng.random((5,) + shape),
         "zeros": lambda: np.zeros((5,) + shape),
         "ties": lambda: np.ones((5,) + shape),
         "integers": lambda: rng.integers(0, 3, (5,) + shape).astype(float),
         "huge": lambda: rng.random((5,) + shape) * 1e30}[kind]().astype(np.float32)
    exact = get_solver("scipy").solve(w)
    brute = get_solver("brute").solve(w)
    np.testing.assert_allclose(exact.value, brute.value, rtol=1e-6)
    full = np.full(5, shape[0]), np.full(5, shape[1])
    valid_matching(exact, w, *full)
    valid_matching(brute, w, *full)


def test_ragged_strided_views_ignore_padding():
    rng = np.random.default_rng(3)
    base = rng.random((3, 6, 4, 5)).astype(np.float32)          # (B, N, m, K) like the layer
    rows = np.array([6, 2, 1])[:, None]
    cols = np.array([5, 3, 1, 4])[None, :]
    poisoned = base.copy()
    for b in range(3):
        for q in range(4):
            poisoned[b, rows[b, 0]:, q, :] = 1e6
            poisoned[b, :, q, cols[0, q]:] = 1e6
    view = poisoned.transpose(0, 2, 1, 3)                       # (B, m, N, K), no copy
    res = get_solver("scipy").solve(view, rows, cols)
    ref = get_solver("brute").solve(base.transpose(0, 2, 1, 3), rows, cols)
    np.testing.assert_allclose(res.value, ref.value, rtol=1e-6)
    valid_matching(res, view, np.broadcast_to(rows, (3, 4)), np.broadcast_to(cols, (3, 4)))


def test_empty_problems_have_value_zero():
    w = np.ones((2, 3, 4), dtype=np.float32)
    res = get_solver("scipy").solve(w, row_lengths=[0, 3], col_lengths=[4, 0])
    assert res.value.tolist() == [0.0, 0.0]
    assert (res.assignment == -1).all()
    assert get_solver("scipy").solve(np.zeros((0, 3, 4))).value.shape == (0,)
