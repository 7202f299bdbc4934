"""The ``cuda`` solver's fast backend on GPUs: ``torch-linear-assignment``'s batched Triton kernel (PyPI,
Apache-2.0: one Triton program per problem, shortest augmenting paths in float64 here), wrapped to the
contract of :func:`solvers.cuda.solve_lengths` (padded problems with row and column lengths). Why it is
used and when: :mod:`solvers.cuda`'s docstring.
"""
from __future__ import annotations

import importlib.util

import torch

__all__ = ["TLA", "KERNEL_ELEMENTS", "compiled_size", "solve_lengths_tla", "tla_unavailable"]

TLA = "torch-linear-assignment"
#: most cost elements one kernel call is given: the kernel addresses its cost tensor with 32-bit offsets
#: (on an H200, 9,000 problems of 56 x 4,096 solved; 18,000 of them, 4.1e9 elements, were an illegal
#: memory access: REDDIT-BINARY's validation batch at m = 100, |Y| = 50)
KERNEL_ELEMENTS = 2**31 - 1


def compiled_size(size: int) -> int:
    """The size a problem dimension is padded to before :data:`TLA`'s kernel: at least 8, else ``size``
    rounded up to a multiple of a quarter of its power of two (at most 25 % more). The kernel takes its row
    and column counts as Triton compile-time constants, so each new padded shape compiles a kernel (seconds,
    more on a loaded host); ragged batches of sets of hundreds of sizes (REDDIT-BINARY) otherwise compile
    one per batch. Four sizes per octave bound that to about 40 shapes per hidden-set size."""
    if size <= 8:
        return 8
    step = 1 << (size.bit_length() - 3)          # a quarter of the power of two at or below size
    return -(-size // step) * step


def tla_unavailable(device: torch.device) -> str | None:
    """Why :data:`TLA`'s Triton kernel cannot solve problems on ``device`` (None: it can). Its own rule:
    Linux, CUDA, compute capability 8.0+, Triton importable."""
    if importlib.util.find_spec("torch_linear_assignment") is None:
        return f"{TLA} is not installed (pip install {TLA})"
    if device.type != "cuda":
        return f"{TLA} runs SciPy on {device.type} tensors, not its kernel"
    if importlib.util.find_spec("triton") is None:
        return "Triton is not installed"
    if torch.cuda.get_device_capability(device) < (8, 0):
        return f"compute capability {torch.cuda.get_device_capability(device)} < (8, 0)"
    return None


def solve_lengths_tla(W: torch.Tensor, n: torch.Tensor, k: torch.Tensor,
                      max_elements: int = KERNEL_ELEMENTS) -> torch.Tensor:
    """:func:`solvers.cuda.solve_lengths` through :data:`TLA`'s ``batch_linear_assignment`` on the padded
    problems, each dimension padded to :func:`compiled_size`, with weights outside ``n`` x ``k`` set to 0 (an
    optimum of the padded problem restricted to them is one of the problem, weights being >= 0); rows matched
    outside them take the problem's free columns. ``W`` (P, R0, C0), ``n``, ``k`` (P,): col4row (P, R0).
    The problems go to the kernel in calls of at most ``max_elements`` padded costs each."""
    P, R0, C0 = W.shape
    R, C = compiled_size(R0), compiled_size(C0)
    per_call = max(1, max_elements // (R * C))
    if P <= per_call:
        return _solve_padded(W, n, k, R, C)
    return torch.cat([_solve_padded(W[i:i + per_call], n[i:i + per_call], k[i:i + per_call], R, C)
                      for i in range(0, P, per_call)])


def _solve_padded(W: torch.Tensor, n: torch.Tensor, k: torch.Tensor, R: int, C: int) -> torch.Tensor:
    """One kernel call on ``W`` (P, R0, C0) padded to (P, R, C): col4row (P, R0)."""
    from torch_linear_assignment import batch_linear_assignment

    P, R0, C0 = W.shape
    row_ok = torch.arange(R, device=W.device) < n[:, None]
    col_ok = torch.arange(C, device=W.device) < k[:, None]
    costs = torch.zeros((P, R, C), dtype=torch.float64, device=W.device)      # 0 outside every problem
    costs[:, :R0, :C0] = -torch.where(row_ok[:, :R0, None] & col_ok[:, None, :C0], W, 0.0)
    col4row = batch_linear_assignment(costs)                                  # (P, R): column or -1
    inside = row_ok & (col4row >= 0) & (col4row < k[:, None])
    # a row of the problem matched outside it (or not at all) weighs 0 on every column left free (else the
    # matching would not be optimal): give it the free columns in order, so that min(n, k) pairs remain
    need = row_ok & ~inside
    taken = torch.zeros((P, C + 1), dtype=torch.bool, device=W.device)
    taken.scatter_(1, torch.where(inside, col4row, C), True)
    free = col_ok & ~taken[:, :C]
    by_rank = torch.full((P, C + 1), -1, dtype=torch.long, device=W.device)
    by_rank.scatter_(1, torch.where(free, free.long().cumsum(1) - 1, C), torch.arange(C, device=W.device).expand(P, C))
    fill = by_rank.gather(1, (need.long().cumsum(1) - 1).clamp(min=0))
    return torch.where(need, fill, torch.where(inside, col4row, -1))[:, :R0]
