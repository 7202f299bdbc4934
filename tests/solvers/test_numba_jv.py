"""The exact Numba solver against SciPy and brute force, on random, ragged, strided and edge-case batches."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from matching_checks import check_matching, layer_like
from solvers import get_solver

pytest.importorskip("numba")


@pytest.fixture(scope="module")
def jv():
    return get_solver("numba")


@pytest.fixture(scope="module")
def ref():
    return get_solver("scipy")


def brute_force(block: np.ndarray) -> float:
    n, k = block.shape
    if n == 0 or k == 0:
        return 0.0
    if n > k:
        block, n, k = block.T, k, n
    return max(block[np.arange(n), list(p)].sum() for p in itertools.permutations(range(k), n))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("N,K", [(7, 4), (4, 7), (6, 6), (1, 9), (9, 1)])
def test_random_ragged_strided_batches_match_scipy(jv, ref, dtype, N, K):
    rng = np.random.default_rng(N * 10 + K)
    w = layer_like(rng, 5, N, 6, K, dtype)
    assert N == 1 or not w.flags.c_contiguous
    rows = rng.integers(0, N + 1, size=(5, 1))
    cols = rng.integers(1, K + 1, size=(1, 6))
    got, want = jv.solve(w, rows, cols), ref.solve(w, rows, cols)
    np.testing.assert_allclose(got.value, want.value, rtol=1e-12, atol=0)
    assert got.along == want.along and got.assignment.shape == want.assignment.shape
    check_matching(w, rows, cols, got)


def test_larger_problems_match_scipy(jv, ref):
    rng = np.random.default_rng(1)
    for shape in [(3, 40, 6, 12), (3, 12, 6, 40), (2, 30, 3, 30)]:
        w = layer_like(rng, *shape, d=4)
        got, want = jv.solve(w), ref.solve(w)
        np.testing.assert_allclose(got.value, want.value, rtol=1e-12)
        check_matching(w, None, None, got)


def test_uniform_random_and_integer_ties_match_scipy(jv, ref):
    rng = np.random.default_rng(2)
    for w in [rng.random((4, 5, 13, 9)), rng.integers(0, 3, size=(4, 5, 8, 11)).astype(np.float64),
              np.ones((2, 3, 6, 9)), rng.integers(0, 2, size=(3, 3, 10, 10)).astype(np.float32)]:
        got, want = jv.solve(w), ref.solve(w)
        np.testing.assert_allclose(got.value, want.value, rtol=1e-12)
        check_matching(w, None, None, got)


def test_brute_force_on_tiny_problems(jv):
    rng = np.random.default_rng(3)
    for _ in range(60):
        n, k = rng.integers(1, 6, size=2)
        block = rng.integers(0, 4, size=(n, k)).astype(np.float64) if rng.random() < 0.5 else rng.random((n, k))
        result = jv.solve(block)
        assert result.value == pytest.approx(brute_force(block), rel=1e-12)
        check_matching(block, None, None, result)


def test_two_and_three_dimensional_inputs(jv, ref):
    rng = np.random.default_rng(4)
    w2 = rng.random((6, 9)).astype(np.float32)
    got = jv.solve(w2)
    assert got.value.shape == () and got.assignment.shape == (6,) and got.along == "rows"
    assert float(got.value) == pytest.approx(float(ref.solve(w2).value), rel=1e-12)
    w3 = rng.random((5, 9, 4))
    lengths = np.array([9, 0, 3, 1, 5])
    got = jv.solve(w3, lengths)
    assert got.value.shape == (5,) and got.assignment.shape == (5, 4) and got.along == "cols"
    np.testing.assert_allclose(got.value, ref.solve(w3, lengths).value, rtol=1e-12)
    check_matching(w3, lengths, None, got)


def test_edge_cases(jv):
    one = jv.solve(np.array([[2.5]], dtype=np.float32))
    assert float(one.value) == 2.5 and one.assignment.tolist() == [0]
    zeros = jv.solve(np.zeros((3, 4, 5, 7)))
    assert np.all(zeros.value == 0)
    check_matching(np.zeros((3, 4, 5, 7)), None, None, zeros)
    w = np.random.default_rng(5).random((2, 3, 4, 6))
    empty = jv.solve(w, row_lengths=np.array([[0], [4]]), col_lengths=np.array([[6, 0, 2]]))
    assert empty.value[0].tolist() == [0, 0, 0] and np.all(empty.assignment[0] == -1)
    assert empty.value[1, 1] == 0 and np.all(empty.assignment[1, 1] == -1)
    check_matching(w, np.array([[0], [4]]), np.array([[6, 0, 2]]), empty)
    for shape in [(3, 0, 4), (3, 4, 0), (0, 4, 4)]:
        result = jv.solve(np.zeros(shape))
        assert result.value.shape == shape[:1] and np.all(result.value == 0)


@pytest.mark.parametrize("dtype,scale", [(np.float32, 1e30), (np.float32, 1e-30), (np.float64, 1e300),
                                         (np.float64, 1e-300)])
def test_very_large_and_small_values(jv, ref, dtype, scale):
    rng = np.random.default_rng(6)
    w = (rng.random((3, 4, 6, 9)) * scale).astype(dtype)
    got, want = jv.solve(w), ref.solve(w)
    assert np.all(np.isfinite(got.value))
    np.testing.assert_allclose(got.value, want.value, rtol=1e-9)
    check_matching(w, None, None, got)
    mixed = rng.random((2, 2, 5, 5)).astype(dtype)
    mixed[..., 0, 0] = scale
    np.testing.assert_allclose(jv.solve(mixed).value, ref.solve(mixed).value, rtol=1e-9)


def test_padding_is_never_matched(jv, ref):
    rng = np.random.default_rng(7)
    B, N, m, K = 6, 9, 4, 7
    w = layer_like(rng, B, N, m, K, np.float32)
    rows = rng.integers(1, N + 1, size=(B, 1))
    cols = rng.integers(1, K + 1, size=(1, m))
    clean = ref.solve(w, rows, cols).value
    poisoned = np.array(w, copy=True)
    for b, q in np.ndindex(B, m):
        poisoned[b, q, rows[b, 0]:, :] = 1e6
        poisoned[b, q, :, cols[0, q]:] = 1e6
    got = jv.solve(poisoned, rows, cols)
    np.testing.assert_allclose(got.value, clean, rtol=1e-6)
    assert got.value.max() < 1e5
    check_matching(poisoned, rows, cols, got)


def test_threads_option_read_only_input_and_validation(jv):
    rng = np.random.default_rng(8)
    w = layer_like(rng, 4, 8, 5, 6)
    single = get_solver("numba", threads=1).solve(w)
    np.testing.assert_array_equal(single.value, jv.solve(w).value)
    frozen = np.broadcast_to(w[:1], w.shape)
    assert not frozen.flags.writeable
    np.testing.assert_allclose(jv.solve(frozen).value, jv.solve(np.ascontiguousarray(frozen)).value)
    with pytest.raises(ValueError, match="threads"):
        get_solver("numba", threads=0)
    with pytest.raises(ValueError, match="nonnegative"):
        jv.solve(-np.ones((2, 2)))
