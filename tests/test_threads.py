"""Threads and processes: the layers' Numba kernels follow torch's thread count, read at each call; the
layers never change torch's count; a process that used them can fork (children, DataLoader workers)."""
import os
import subprocess
import sys

import pytest
import torch
from repo_paths import ROOT

import solvers.runtime
from repset.layers import ApproxRepSet, RepSet
from repset.threads import kernel_threads, set_threads

pytest.importorskip("numba")


def _child(code: str, timeout: float = 300) -> str:
    """stdout of ``code`` in a fresh interpreter (the user's environment, no thread settings of ours)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_THREADING", "OMP_"))}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=timeout)
    assert out.returncode == 0, f"child exited with {out.returncode}\n{out.stderr[-3000:]}"
    return out.stdout


@pytest.fixture
def torch_threads():
    """torch's thread count, restored after the test."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@pytest.fixture
def kernel_counts(monkeypatch):
    """The thread count of every Numba kernel call (the layers' and the solvers')."""
    seen = []
    original = solvers.runtime.run

    def spy(kernel, *args, threads=None, chunksize=None):
        seen.append(solvers.runtime.current_threads(threads))
        return original(kernel, *args, threads=threads, chunksize=chunksize)

    monkeypatch.setattr(solvers.runtime, "run", spy)
    monkeypatch.setattr("repset.layers.pair_grad.run", spy)
    return seen


@pytest.mark.parametrize("count", [1, 2])
def test_kernels_follow_torchs_count_read_at_each_call(count, torch_threads, kernel_counts):
    numba = solvers.runtime.load()
    layers = [RepSet(4, 3, 2, solver="numba"), ApproxRepSet(4, 3, 2)]   # built before the count is set
    torch.set_num_threads(count)
    for layer in layers:
        layer(torch.randn(6, 5, 4)).sum().backward()
    assert kernel_counts and set(kernel_counts) == {min(count, numba.config.NUMBA_NUM_THREADS)}
    assert torch.get_num_threads() == count


def test_a_solvers_own_count_wins(torch_threads, kernel_counts):
    torch.set_num_threads(2)
    RepSet(4, 3, 2, solver=solvers.get_solver("numba", threads=1))(torch.randn(6, 5, 4))
    assert kernel_counts[0] == 1                                # the solver's call; the layer's kernels follow torch


def test_kernel_threads_is_torchs_count_for_this_block_only(torch_threads):
    torch.set_num_threads(1)
    with kernel_threads():
        assert solvers.runtime.current_threads() == 1
    assert getattr(solvers.runtime._state, "threads", None) is None


def test_set_threads_pins_torch_and_numba(torch_threads):
    counts = set_threads(1)
    assert counts == {"torch": 1, "numba": 1} and torch.get_num_threads() == 1


LAYER_STEP = """
import torch
from repset import ApproxRepSet, RepSet
torch.manual_seed(0)
V = torch.randn(8, 6, 4)
layers = [RepSet(4, 3, 2, solver="numba"), ApproxRepSet(4, 3, 2)]
def step():
    out = []
    for layer in layers:
        layer.zero_grad()
        layer(V).pow(2).sum().backward()
        out.append(layer.weight.grad.clone())
    return out
"""


def test_the_layers_never_change_torchs_thread_count():
    """In a fresh process (Numba's pool starts there): was 2 after RepSet's constructor on 2 cores."""
    out = _child("import torch\ntorch.set_num_threads(1)\n" + LAYER_STEP
                 + "step()\nprint(torch.get_num_threads())")
    assert out.split()[-1] == "1"


def test_fork_children_and_dataloader_workers_run_the_layers_after_the_parent():
    """A process that ran the layers forks: a child (multiprocessing, fork) and DataLoader workers run them
    too (were killed: "fork() called from a process already using GNU OpenMP"). The children use one torch
    thread, as DataLoader workers do (a forked GNU OpenMP pool of torch's own hangs otherwise)."""
    code = LAYER_STEP + """
import multiprocessing as mp
parent = step()
def child(queue):
    torch.set_num_threads(1)
    queue.put([grad.tolist() for grad in step()])
ctx = mp.get_context("fork")
queue = ctx.Queue()
process = ctx.Process(target=child, args=(queue,))
process.start()
process.join(120)
if process.exitcode is None:
    process.kill()
assert process.exitcode == 0, f"fork child exit code {process.exitcode}"
assert all(torch.allclose(torch.tensor(a), b) for a, b in zip(queue.get(timeout=5), parent))

class Sets(torch.utils.data.Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        with torch.no_grad():
            return layers[i % 2](V[i:i + 2])
loader = torch.utils.data.DataLoader(Sets(), num_workers=2, multiprocessing_context="fork", timeout=120)
got = torch.cat([x[0] for x in loader])
with torch.no_grad():
    want = torch.cat([layers[i % 2](V[i:i + 2]) for i in range(4)])
assert torch.allclose(got, want)
print("OK")
"""
    assert _child(code).split()[-1] == "OK"
