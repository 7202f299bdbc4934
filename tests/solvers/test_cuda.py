"""The batched torch solver (``cuda``): SciPy's values on CPU tensors in CI, the same on a GPU when present."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from matching_checks import check_matching, layer_like
from solvers import available_solvers, get_solver
import solvers.cuda as cuda_module
from solvers.cuda import CudaSolver, _solve_flat, solve_lengths

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


def assert_equals_scipy(w, rows=None, cols=None, solver=None):
    """The cuda solver's result on ``w`` is a valid matching worth SciPy's optimum."""
    got = (solver or CudaSolver("cpu")).solve(w, rows, cols)
    best = get_solver("scipy").solve(w, rows, cols).value
    np.testing.assert_allclose(got.value, best, rtol=1e-12, atol=1e-300)
    check_matching(w, rows, cols, got)
    return got


def test_registered_and_flagged():
    assert "cuda" in available_solvers()
    solver = get_solver("cuda")
    assert solver.name == "cuda" and solver.exact and solver.accepts_tensors
    assert solver.device.type == ("cuda" if torch.cuda.is_available() else "cpu")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("N,K", [(9, 4), (4, 9), (7, 7), (1, 6), (6, 1), (30, 20), (10, 20)])
def test_relu_problems_of_both_orientations_with_ragged_lengths(dtype, N, K):
    rng = np.random.default_rng(N * 10 + K)
    w = layer_like(rng, 5, N, 6, K, dtype)
    assert_equals_scipy(w)
    rows = rng.integers(0, N + 1, size=(5, 1))      # ragged sets: both orientations in one batch
    cols = rng.integers(1, K + 1, size=(1, 6))      # ragged hidden sets
    assert_equals_scipy(w, rows, cols)


@pytest.mark.parametrize("kind", ["ties", "zeros", "integers", "sparse", "quarters", "low_rank"])
def test_ties_and_zeros(kind):
    rng = np.random.default_rng(len(kind))
    shape = (4, 5, 8, 11)
    w = {"ties": lambda: np.ones(shape),
         "zeros": lambda: np.zeros(shape, dtype=np.float32),
         "integers": lambda: rng.integers(0, 3, shape).astype(np.float64),
         "sparse": lambda: rng.random(shape) * (rng.random(shape) < 0.2),
         "quarters": lambda: np.round(rng.random(shape) * 4) / 4,
         "low_rank": lambda: layer_like(rng, 4, 8, 5, 11, d=1)}[kind]()
    assert_equals_scipy(w, rng.integers(0, 9, size=(4, 1)), rng.integers(0, 12, size=(1, 5)))
    assert_equals_scipy(np.swapaxes(w, -1, -2))


def test_equals_brute_force_on_tiny_problems():
    rng = np.random.default_rng(5)
    for n, k in [(1, 1), (2, 5), (5, 2), (4, 4), (3, 6)]:
        w = rng.integers(0, 3, (20, n, k)).astype(np.float64)
        np.testing.assert_allclose(CudaSolver("cpu").solve(w).value, get_solver("brute").solve(w).value)


def test_degenerate_and_empty_problems():
    solver = CudaSolver("cpu")
    one = solver.solve(np.array([[3.0]]))
    assert float(one.value) == 3.0 and one.assignment.tolist() == [0]
    rng = np.random.default_rng(6)
    assert_equals_scipy(rng.random((7, 1, 9)))
    assert_equals_scipy(rng.random((7, 9, 1)))
    empty = solver.solve(np.ones((2, 3, 4)), row_lengths=[0, 3], col_lengths=[4, 0])
    assert empty.value.tolist() == [0.0, 0.0] and (empty.assignment == -1).all()
    for shape in [(3, 0, 4), (3, 4, 0), (0, 3, 4)]:
        assert np.all(solver.solve(np.zeros(shape)).value == 0)


def test_indexed_form_equals_gathered_problems():
    rng = np.random.default_rng(7)
    table = np.maximum(rng.normal(size=(30, 5, 7)), 0).astype(np.float32)   # rows shared by the sets
    index = rng.integers(0, 30, size=(6, 12))
    rows, cols = rng.integers(0, 13, size=(6, 1)), rng.integers(1, 8, size=(1, 5))
    got = CudaSolver("cpu").solve_indexed(table, index, rows, cols)
    gathered = table[index].transpose(0, 2, 1, 3)
    np.testing.assert_allclose(got.value, get_solver("scipy").solve(gathered, rows, cols).value, rtol=1e-12)
    check_matching(gathered, rows, cols, got)
    tensors = CudaSolver("cpu").solve_indexed_tensors(torch.from_numpy(table), torch.from_numpy(index),
                                                      torch.from_numpy(rows), torch.from_numpy(cols))
    assert torch.equal(tensors.value, torch.from_numpy(got.value))
    assert torch.equal(tensors.assignment, torch.from_numpy(got.assignment).long())


def test_tensor_form_returns_tensors_on_the_input_device():
    rng = np.random.default_rng(8)
    w = layer_like(rng, 3, 9, 4, 5)
    result = CudaSolver("cpu").solve_tensors(torch.from_numpy(np.ascontiguousarray(w)), torch.tensor([[9], [3], [0]]))
    assert isinstance(result.value, torch.Tensor) and result.value.shape == (3, 4)
    rows, cols = result.pairs()
    assert rows.dtype == cols.dtype == torch.long and rows.shape == (3, 4, 5)
    expected = get_solver("scipy").solve(w, np.array([[9], [3], [0]])).value
    np.testing.assert_allclose(result.value.numpy(), expected, rtol=1e-12)


def test_solve_lengths_matches_every_row_of_a_wide_problem():
    W = torch.rand(6, 4, 9, dtype=torch.float64)
    col4row = solve_lengths(W, torch.full((6,), 4), torch.full((6,), 9))
    assert (col4row >= 0).all() and all(len(set(r.tolist())) == 4 for r in col4row)


def test_fewer_checks_give_the_same_matchings():
    """Steps past a problem's end are no-ops: checking every 5 steps changes nothing."""
    rng = np.random.default_rng(10)
    w = layer_like(rng, 6, 12, 5, 9)
    rows = rng.integers(0, 13, size=(6, 1))
    once, fifth = CudaSolver("cpu").solve(w, rows), CudaSolver("cpu", check_every=5).solve(w, rows)
    assert np.array_equal(once.value, fifth.value) and np.array_equal(once.assignment, fifth.assignment)


def test_errors_name_the_argument():
    solver = CudaSolver("cpu")
    with pytest.raises(TypeError, match="weights must be a torch tensor, got a numpy array"):
        solver.solve_tensors(np.ones((2, 3)))
    with pytest.raises(TypeError, match="row_index must be a torch tensor"):
        solver.solve_indexed_tensors(torch.ones(4, 2, 3), np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="row_lengths must lie in"):
        solver.solve_tensors(torch.ones(2, 3, 4), torch.tensor([4, 1]))
    with pytest.raises(ValueError, match="col_lengths must hold integers"):
        solver.solve_tensors(torch.ones(2, 3, 4), None, torch.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="nonnegative"):
        solver.solve_tensors(-torch.ones(2, 3, 4))
    with pytest.raises(ValueError, match="check_every must be an integer >= 1"):
        CudaSolver("cpu", check_every=0)
    with pytest.raises(ValueError, match="problem \\(1,\\) of the batch"):   # the numpy protocol's own check
        solver.solve(np.array([np.ones((3, 4)), np.full((3, 4), np.nan)]))


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA device is present")
def test_cuda_device_without_cuda_is_refused():
    with pytest.raises(ValueError, match="device='cuda' requested but CUDA is not available"):
        get_solver("cuda", device="cuda")


@needs_cuda
def test_on_the_gpu_equals_scipy_and_stays_there():
    rng = np.random.default_rng(9)
    for N, K in [(117, 20), (10, 20), (430, 50), (7, 7)]:
        w = layer_like(rng, 8, N, 6, K)
        rows = rng.integers(0, N + 1, size=(8, 1))
        result = CudaSolver("cuda").solve_tensors(torch.from_numpy(np.ascontiguousarray(w)).cuda(),
                                                  torch.from_numpy(rows).cuda())
        assert result.value.is_cuda and result.assignment.is_cuda
        best = get_solver("scipy").solve(w, rows).value
        np.testing.assert_allclose(result.value.cpu().numpy(), best, rtol=1e-12)
        assert_equals_scipy(w, rows, solver=CudaSolver("cuda"))


@needs_cuda
def test_compiled_step_on_the_gpu_equals_scipy():
    rng = np.random.default_rng(11)
    w = layer_like(rng, 8, 40, 6, 20)
    compiled = CudaSolver("cuda", compile=True).solve_tensors(torch.from_numpy(np.ascontiguousarray(w)).cuda())
    np.testing.assert_allclose(compiled.value.cpu().numpy(), get_solver("scipy").solve(w).value, rtol=1e-12)
    assert_equals_scipy(w, solver=CudaSolver("cuda", compile=True))


def test_large_batches_are_solved_in_steps_of_bounded_size(monkeypatch):
    """A batch over ``max_elements`` padded weights is gathered and solved in steps under it: the same matchings."""
    rng = np.random.default_rng(11)
    P, N, K = 23, 9, 6
    W = torch.from_numpy(layer_like(rng, P, N, 1, K)[:, 0].copy())     # (P, N, K), ReLU zeros and ties
    n, k = torch.from_numpy(rng.integers(0, N + 1, size=P)), torch.from_numpy(rng.integers(0, K + 1, size=P))
    asked = []

    def fetch(ids):
        asked.append(len(ids))
        return W[ids]

    whole = _solve_flat(lambda ids: W[ids], n, k, N, K)
    steps = _solve_flat(fetch, n, k, N, K, max_elements=4 * N * K + 1)
    assert max(asked) <= 4 and sum(asked) == int(((n > 0) & (k > 0)).sum()) and len(asked) > 2
    assert all(torch.equal(a, b) for a, b in zip(whole[:2], steps[:2])) and whole[2] == steps[2]
    table = torch.from_numpy(np.maximum(rng.normal(size=(30, 5, 7)), 0))
    index, rows = torch.from_numpy(rng.integers(0, 30, size=(6, 12))), torch.from_numpy(rng.integers(0, 13, (6, 1)))
    default = CudaSolver("cpu").solve_indexed_tensors(table, index, rows)
    monkeypatch.setattr(cuda_module, "SOLVE_ELEMENTS", 1)     # one problem a step
    one_by_one = CudaSolver("cpu").solve_indexed_tensors(table, index, rows)
    assert torch.equal(default.value, one_by_one.value) and torch.equal(default.assignment, one_by_one.assignment)
