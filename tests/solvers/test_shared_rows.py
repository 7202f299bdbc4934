"""The Numba JV kernel on problems whose rows come from a shared table (solvers.shared_rows)."""
import numpy as np

from solvers import get_solver


def test_indexed_wide_problems_with_and_without_colliding_column_maxima():
    """Wide problems (more rows than columns) read through an index: where every column's best row
    differs the greedy answer is taken without gathering the block; where two columns want the same
    row the augmenting paths run. Both equal scipy on the gathered problems."""
    table = np.zeros((6, 2, 3))
    table[:, 0] = np.eye(6, 3) * [3.0, 2.0, 1.0]                     # problem q=0: diagonal, distinct maxima
    table[:, 1] = [[5, 4, 0], [0, 1, 0], [4, 5, 1], [0, 0, 2], [1, 1, 1], [0, 0, 0]]   # columns 0, 1 both want row 0 or 2
    index = np.array([[0, 1, 2, 3, 4, 5], [2, 0, 4, 1, 5, 3]])      # the same rows in another order
    got = get_solver("numba").solve_indexed(table, index)
    want = get_solver("scipy").solve(np.take(table, index, axis=0).transpose(0, 2, 1, 3))
    assert np.allclose(got.value, want.value) and np.allclose(got.value[:, 0], 6.0)
    assert np.allclose(got.value[:, 1], 5 + 5 + 2)
    rows, cols = got.pairs()
    assert sorted(index[1][rows[1, 0]].tolist()) == [0, 1, 2]           # the diagonal's rows, through the index
