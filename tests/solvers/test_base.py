"""The solver protocol: validation, result layout, pairs()."""
import numpy as np
import pytest

from solvers import MatchingResult, get_solver, prepare_problem


def test_prepare_keeps_memory_of_float_input():
    w = np.random.default_rng(0).random((3, 4, 5)).astype(np.float32)
    out, rows, cols = prepare_problem(w)
    assert np.shares_memory(out, w)
    assert rows.tolist() == [4, 4, 4] and cols.tolist() == [5, 5, 5]


@pytest.mark.parametrize("bad, match", [
    (np.zeros(3), "weights must have shape"),
    (np.array([[1.0, np.nan]]), "NaN or infinite"),
    (np.array([[1.0, np.inf]]), "NaN or infinite"),
    (np.array([[1.0, -0.5]]), "nonnegative"),
    (np.array([["a", "b"]]), "real floating"),
])
def test_bad_weights_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        prepare_problem(bad)


@pytest.mark.parametrize("kwargs, match", [
    ({"row_lengths": [1, 2]}, "row_lengths of shape"),
    ({"row_lengths": [1, 2, 5]}, r"row_lengths must lie in \[0, 4\]"),
    ({"col_lengths": [-1, 2, 3]}, "col_lengths must lie"),
    ({"col_lengths": [1.0, 2.0, 3.0]}, "col_lengths must hold integers"),
])
def test_bad_lengths_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        prepare_problem(np.ones((3, 4, 5)), **kwargs)


def test_pairs_follow_along():
    res = MatchingResult(value=np.zeros(1), assignment=np.array([[2, -1, 0]], dtype=np.int32), along="rows")
    rows, cols = res.pairs()
    assert rows.tolist() == [[0, -1, 2]] and cols.tolist() == [[2, -1, 0]]
    res = MatchingResult(value=np.zeros(1), assignment=np.array([[1, -1]], dtype=np.int32), along="cols")
    rows, cols = res.pairs()
    assert rows.tolist() == [[1, -1]] and cols.tolist() == [[0, -1]]


@pytest.mark.parametrize("shape", [(4, 5), (3, 4, 5), (2, 3, 4, 5), (2, 2, 3, 4, 5)])
def test_any_batch_shape(shape):
    w = np.random.default_rng(1).random(shape)
    res = get_solver("scipy").solve(w)
    assert res.value.shape == shape[:-2]
    assert res.assignment.shape == shape[:-2] + (min(shape[-2:]),)
    assert res.along == ("rows" if shape[-2] <= shape[-1] else "cols")


@pytest.mark.parametrize("bad, match", [
    (np.nan, r"weights of problem \(1, 2\) of the batch contain NaN or infinite entries"),
    (-np.inf, r"weights of problem \(1, 2\) of the batch contain NaN or infinite entries"),
    (-0.5, r"weights of problem \(1, 2\) of the batch must be nonnegative \(got minimum -0.5\)"),
])
def test_bad_weights_name_the_first_bad_problem(bad, match):
    w = np.ones((2, 3, 4, 5))
    w[1, 2, 3, 4] = bad
    with pytest.raises(ValueError, match=match):
        prepare_problem(w)
    with pytest.raises(ValueError, match=match):
        get_solver("scipy").solve(w)
