"""The ``cuda`` solver's fast backend on GPUs: ``torch-linear-assignment``'s batched Triton kernel (PyPI,
Apache-2.0: one Triton program per problem, shortest augmenting paths in float64 here), wrapped to the
contract of :func:`solvers.cuda.solve_lengths` (padded problems with row and column lengths). Why it is
used and when: :mod:`solvers.cuda`'s docstring.
"""
from __future__ import annotations

import importlib.util

import torch

__all__ = ["TLA", "solve_lengths_tla", "tla_unavailable"]

TLA = "torch-linear-assignment"


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


def solve_lengths_tla(W: torch.Tensor, n: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """:func:`solvers.cuda.solve_lengths` through :data:`TLA`'s ``batch_linear_assignment`` on the padded problems, with
    weights outside ``n`` x ``k`` set to 0 (an optimum of the padded problem restricted to them is one of
    the problem, weights being >= 0); rows matched outside them take the problem's free columns."""
    from torch_linear_assignment import batch_linear_assignment

    P, R, C = W.shape
    row_ok = torch.arange(R, device=W.device) < n[:, None]
    col_ok = torch.arange(C, device=W.device) < k[:, None]
    costs = -torch.where(row_ok[:, :, None] & col_ok[:, None, :], W, 0.0).double()
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
    return torch.where(need, fill, torch.where(inside, col4row, -1))
