"""The cuda solver's ``tla`` backend: torch-linear-assignment's contract, wrapped to padded ragged problems.

CI has no GPU and need not have the package: a stand-in with its documented contract (costs (B, W, T) ->
each worker's task or -1, minimum total cost), solved by SciPy and preferring the padding on ties, checks
the wrapper's masking, orientation and repair on CPU tensors; the device run checks the real kernel."""
from __future__ import annotations

import importlib.machinery
import sys
import types

import numpy as np
import pytest
import torch
from scipy.optimize import linear_sum_assignment

from matching_checks import check_matching, layer_like
from solvers import get_solver
from solvers.cuda import CudaSolver
from solvers.tla import compiled_size, solve_lengths_tla, tla_unavailable


def _stand_in(cost: torch.Tensor) -> torch.Tensor:
    B, W, T = cost.shape
    out = torch.full((B, W), -1, dtype=torch.long)
    tilt = 1e-9 * torch.arange(T, dtype=torch.float64) / T       # ties go to the last (padding) columns
    for b in range(B):
        r, c = linear_sum_assignment((cost[b].double() - tilt).numpy())
        out[b, torch.from_numpy(r)] = torch.from_numpy(c)
    return out


@pytest.fixture
def stand_in(monkeypatch):
    module = types.ModuleType("torch_linear_assignment")
    module.__spec__ = importlib.machinery.ModuleSpec("torch_linear_assignment", None)
    module.batch_linear_assignment = _stand_in
    monkeypatch.setitem(sys.modules, "torch_linear_assignment", module)
    return module


def assert_equals_scipy(w, rows=None, cols=None):
    got = CudaSolver("cpu", backend="tla").solve(w, rows, cols)
    np.testing.assert_allclose(got.value, get_solver("scipy").solve(w, rows, cols).value, rtol=1e-12, atol=1e-300)
    check_matching(w, rows, cols, got)


@pytest.mark.parametrize("N,K", [(9, 4), (4, 9), (7, 7), (1, 6), (30, 20), (10, 20)])
def test_ragged_relu_problems_of_both_orientations(stand_in, N, K):
    rng = np.random.default_rng(N * 7 + K)
    w = layer_like(rng, 5, N, 6, K, np.float32)
    assert_equals_scipy(w)
    assert_equals_scipy(w, rng.integers(0, N + 1, size=(5, 1)), rng.integers(1, K + 1, size=(1, 6)))


@pytest.mark.parametrize("kind", ["zeros", "ties", "sparse"])
def test_rows_matched_into_the_padding_take_free_columns(stand_in, kind):
    """On zeros and ties the stand-in puts rows on padding columns; the wrapper still returns min(n, k)
    pairs inside each problem, worth the optimum."""
    rng = np.random.default_rng(3)
    shape = (4, 5, 8, 11)
    w = {"zeros": np.zeros(shape), "ties": np.ones(shape),
         "sparse": rng.random(shape) * (rng.random(shape) < 0.2)}[kind]
    assert_equals_scipy(w, rng.integers(0, 9, size=(4, 1)), rng.integers(0, 12, size=(1, 5)))
    n, k = torch.tensor([4, 2, 0, 3]), torch.tensor([5, 6, 3, 3])
    col4row = solve_lengths_tla(torch.zeros(4, 4, 6), n, k)           # the stand-in picks padding column 5
    for p in range(4):
        matched = col4row[p, : n[p]]
        assert bool((matched >= 0).all() and (matched < k[p]).all()) and len(set(matched.tolist())) == n[p]
        assert bool((col4row[p, n[p]:] == -1).all())


def test_indexed_form_equals_gathered_problems(stand_in):
    rng = np.random.default_rng(8)
    table = np.maximum(rng.normal(size=(30, 5, 7)), 0).astype(np.float32)   # rows shared by the sets
    index = rng.integers(0, 30, size=(6, 12))
    rows, cols = rng.integers(0, 13, size=(6, 1)), rng.integers(1, 8, size=(1, 5))
    got = CudaSolver("cpu", backend="tla").solve_indexed(table, index, rows, cols)
    gathered = table[index].transpose(0, 2, 1, 3)
    np.testing.assert_allclose(got.value, get_solver("scipy").solve(gathered, rows, cols).value, rtol=1e-12)
    check_matching(gathered, rows, cols, got)


def test_backend_choice_is_stated_and_never_falls_back_silently(stand_in, monkeypatch):
    assert CudaSolver("cpu").backend_for("cpu") == "lockstep"            # auto: the kernel is for CUDA tensors
    assert CudaSolver("cpu", backend="tla").backend_for("cpu") == "tla"  # asked for: its SciPy path, on CPU
    assert "not its kernel" in tla_unavailable(torch.device("cpu"))
    monkeypatch.delitem(sys.modules, "torch_linear_assignment")
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    with pytest.raises(ValueError, match="backend='tla' on cpu: torch-linear-assignment is not installed"):
        CudaSolver("cpu", backend="tla").solve(np.ones((1, 2, 2)))
    with pytest.raises(ValueError, match="backend must be one of auto, lockstep, tla"):
        CudaSolver("cpu", backend="fast")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_the_kernel_on_the_gpu_equals_scipy():
    """On a GPU (with the package installed) auto picks the kernel; values are SciPy's, on the device."""
    if tla_unavailable(torch.device("cuda")):
        pytest.skip(tla_unavailable(torch.device("cuda")))
    solver = CudaSolver("cuda")
    assert solver.backend_for("cuda") == "tla"
    rng = np.random.default_rng(12)
    for N, K in [(117, 20), (10, 20), (430, 50), (7, 7)]:
        w = layer_like(rng, 8, N, 6, K)
        rows, cols = rng.integers(0, N + 1, size=(8, 1)), rng.integers(1, K + 1, size=(1, 6))
        result = solver.solve_tensors(torch.from_numpy(np.ascontiguousarray(w)).cuda(), torch.from_numpy(rows).cuda(),
                                      torch.from_numpy(cols).cuda())
        assert result.value.is_cuda and result.assignment.is_cuda
        np.testing.assert_allclose(result.value.cpu().numpy(), get_solver("scipy").solve(w, rows, cols).value, rtol=1e-12)
        check_matching(w, rows, cols, solver.solve(w, rows, cols))


def test_the_backend_is_looked_up_once_per_device(monkeypatch):
    """Choosing the backend asks importlib and the driver: once per device, not once per batch."""
    import solvers.cuda as cuda

    calls = []
    monkeypatch.setattr(cuda, "tla_unavailable", lambda device: calls.append(device) or "not here")
    solver = CudaSolver("cpu")
    for _ in range(3):
        solver.solve(np.ones((2, 3, 4)))
    assert len(calls) == 1 and solver.backend_for("cpu") == "lockstep"


def test_compiled_size_rounds_up_by_at_most_a_quarter():
    sizes = [compiled_size(x) for x in range(1, 4097)]
    assert all(s >= x for x, s in zip(range(1, 4097), sizes)) and sizes == sorted(sizes)
    assert all(s <= max(8, 1.25 * x) for x, s in zip(range(1, 4097), sizes))
    assert len(set(sizes)) == 37 and compiled_size(430) == 448 and compiled_size(3648) == 4096


def test_ragged_batches_of_many_sizes_reach_the_kernel_in_few_shapes(stand_in, monkeypatch):
    """The kernel compiles once per padded shape: problems padded to 1..120 columns (rows <= columns, as
    solve_lengths orients them) reach it in the 17 shapes of compiled_size, with the unpadded values."""
    shapes = []
    monkeypatch.setattr(stand_in, "batch_linear_assignment", lambda cost: shapes.append(tuple(cost.shape[1:]))
                        or _stand_in(cost))
    rng = np.random.default_rng(11)
    for C in range(1, 121):
        W = torch.from_numpy(np.maximum(rng.normal(size=(3, 5, C)), 0))
        k = torch.tensor([C, max(C - 1, 0), C // 2])
        n = torch.minimum(torch.tensor([5, 4, 2]), k)
        col4row = solve_lengths_tla(W, n, k)
        assert col4row.shape == (3, 5)
        for p in range(3):
            got = col4row[p, : n[p]]
            assert bool((got >= 0).all() and (got < k[p]).all()) and bool((col4row[p, n[p]:] == -1).all())
            r, c = linear_sum_assignment(-W[p, : n[p], : k[p]].numpy())
            assert float(W[p, torch.arange(int(n[p])), got].sum()) == pytest.approx(float(W[p, r, c].sum()), rel=1e-12)
    assert {r for r, _ in shapes} == {8}
    assert len(set(shapes)) == len({compiled_size(C) for C in range(1, 121)}) == 17


def test_kernel_calls_stay_under_the_element_bound_with_the_same_matchings(stand_in, monkeypatch):
    """Problems whose padded costs pass the bound go to the kernel in several calls, each within it (the
    real kernel's 32-bit offsets fail past 2**31 elements), and give the matchings of one call."""
    calls = []
    monkeypatch.setattr(stand_in, "batch_linear_assignment", lambda cost: calls.append(cost.numel()) or _stand_in(cost))
    rng = np.random.default_rng(5)
    W = torch.from_numpy(np.maximum(rng.normal(size=(11, 5, 9)), 0))
    each = compiled_size(5) * compiled_size(9)                               # 8 x 10 padded costs a problem
    n, k = torch.from_numpy(rng.integers(0, 6, 11)), torch.from_numpy(rng.integers(5, 10, 11))
    whole = solve_lengths_tla(W, n, k)
    assert each == 80 and calls == [11 * each]
    calls.clear()
    split = solve_lengths_tla(W, n, k, max_elements=4 * each + each - 1)    # 4 problems a call: 4 + 4 + 3
    assert calls == [4 * each, 4 * each, 3 * each] and torch.equal(split, whole)
    calls.clear()
    assert torch.equal(solve_lengths_tla(W, n, k, max_elements=1), whole) and calls == [each] * 11


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_the_kernel_in_several_calls_gives_one_calls_matchings():
    if tla_unavailable(torch.device("cuda")):
        pytest.skip(tla_unavailable(torch.device("cuda")))
    g = torch.Generator(device="cuda").manual_seed(0)
    W = torch.rand((300, 50, 430), device="cuda", dtype=torch.float64, generator=g)
    n = torch.full((300,), 50, device="cuda")
    k = torch.randint(50, 431, (300,), device="cuda", generator=g)
    each = compiled_size(50) * compiled_size(430)
    assert torch.equal(solve_lengths_tla(W, n, k, max_elements=64 * each), solve_lengths_tla(W, n, k))
