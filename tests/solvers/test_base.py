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


def indexed_problems(seed=0, U=12, P=5, Q=3, N=8, K=6):
    """A table of U shared rows, an index with repeats, ragged lengths (some empty problems)."""
    rng = np.random.default_rng(seed)
    table = rng.random((U, Q, K))
    table[rng.random(table.shape) < 0.2] = 0.0                 # ties on zero weights
    index = rng.integers(0, U, (P, N))
    return table, index, rng.integers(0, N + 1, (P, Q)), rng.integers(0, K + 1, (P, Q))


@pytest.mark.parametrize("name", ["numba", "scipy", "auction", "lp"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [dict(N=8, K=6), dict(N=4, K=9)])   # more rows than columns, and fewer
def test_solve_indexed_equals_solve_on_the_gathered_problems(name, dtype, shape):
    table, index, rows, cols = indexed_problems(N=shape["N"], K=shape["K"])
    table = table.astype(dtype)
    solver = get_solver(name)
    got = solver.solve_indexed(table, index, rows, cols)
    dense = np.take(table, index, axis=0).transpose(0, 2, 1, 3)     # (P, Q, N, K)
    want = get_solver("scipy").solve(dense, rows, cols)
    tol = 1e-4 * max(1.0, float(want.value.max())) if name == "auction" else 1e-9
    assert got.along == want.along and got.assignment.shape == want.assignment.shape
    assert np.allclose(got.value, want.value, atol=tol)
    # the returned pairs are a matching of the gathered problem with the returned value
    r, c = got.pairs()
    p, q = np.indices(rows.shape)
    picked = np.where(r >= 0, dense[p[..., None], q[..., None], r.clip(0), c.clip(0)], 0.0)
    assert np.allclose(picked.sum(-1), got.value, atol=1e-5)
    assert ((r >= 0).sum(-1) == np.minimum(rows, cols)).all()


@pytest.mark.parametrize("name", ["numba", "scipy"])
def test_solve_indexed_names_bad_input(name):
    table, index, rows, cols = indexed_problems()
    solver = get_solver(name)
    with pytest.raises(ValueError, match=r"row_index must lie in \[0, 12\)"):
        solver.solve_indexed(table, index + 12)
    with pytest.raises(ValueError, match="table must have shape"):
        solver.solve_indexed(table[0], index)
    with pytest.raises(ValueError, match="row_lengths must lie"):
        solver.solve_indexed(table, index, row_lengths=9)
    bad = table.copy()
    bad[index[2, 0], 1, 0] = -1.0
    with pytest.raises(ValueError, match="nonnegative"):
        solver.solve_indexed(bad, index, check_values=False)
    bad[index[2, 0], 1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        solver.solve_indexed(bad, index, check_values=False)
