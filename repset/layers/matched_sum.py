"""Sum of edge weights over selected pairs, with the gradient computed from the pair indices.

Both layers reduce to ``x[b, k] = sum_s ReLU(v_{b, r_s} . h_{k, c_s})`` over pairs ``(r_s, c_s)``
chosen without gradient (a matching, or the relaxation's argmaxes). Two ways to differentiate:

- ``"sparse"`` (:class:`MatchedSum`): the forward gathers the pair weights and marks pairs on zero
  weights inactive; the backward adds ``g * h`` to the rows of the V gradient and ``g * v`` to the
  columns of the H gradient for the active pairs: O(pairs x d) work, F is not kept (Numba kernels
  on CPU, gather + index_add elsewhere).
- ``"dense"``: autograd through an index of a grad-enabled F: the backward builds a dense
  ``(B, N, m, K)`` gradient D and runs two matmuls as large as the forward one.
"""
from __future__ import annotations

import torch

GRAD_MODES = ("sparse", "dense")


def _index(rows: torch.Tensor):
    B, m, _ = rows.shape
    b = torch.arange(B, device=rows.device)[:, None, None]
    k = torch.arange(m, device=rows.device)[None, :, None]
    return b, k


def _picked(F: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
    """``F[b, rows, k, cols]`` (B, m, S), zero where ``rows`` or ``cols`` is -1."""
    b, k = _index(rows)
    valid = (rows >= 0) & (cols >= 0)
    return F[b, rows.clamp(min=0), k, cols.clamp(min=0)] * valid.to(F.dtype)


class MatchedSum(torch.autograd.Function):
    """``x = sum_s F[b, r_s, k, c_s]`` with ``F = ReLU(V W)``; gradients w.r.t. V (B, N, d) and W (d, m, K)."""

    @staticmethod
    def forward(ctx, V, W, F, rows, cols):
        if F.device.type == "cpu":   # one Numba pass: sums and active pairs, no (B, m, S) temporaries
            from .pair_grad import gather_pairs

            x, active_rows = gather_pairs(F.numpy(), rows.numpy(), cols.numpy())
            x, active_rows = torch.from_numpy(x), torch.from_numpy(active_rows)
        else:
            picked = _picked(F, rows, cols)
            x, active_rows = picked.sum(-1), torch.where(picked > 0, rows, -1)
        ctx.save_for_backward(V, W, active_rows, cols.clamp(min=0))
        return x

    @staticmethod
    def backward(ctx, grad):
        V, W, rows, cols = ctx.saved_tensors
        need_V, need_W = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        backward = _cpu_backward if V.device.type == "cpu" else _torch_backward
        grad_V, grad_W = backward(V, W, rows, cols, grad.contiguous(), need_V, need_W)
        return grad_V, grad_W, None, None, None


def _cpu_backward(V, W, rows, cols, grad, need_V, need_W):
    """Numba kernels, parallel and without (pairs, d) temporaries; ``rows`` -1 = inactive pair."""
    from .pair_grad import pair_gradients

    hidden = W.detach().permute(1, 2, 0).contiguous()                               # (m, K, d)
    grad_V, grad_hidden = pair_gradients(V.detach().contiguous().numpy(), hidden.numpy(), rows.contiguous().numpy(),
                                         cols.contiguous().numpy(), grad.numpy(), need_V, need_W)
    return (torch.from_numpy(grad_V) if need_V else None,
            torch.from_numpy(grad_hidden).permute(2, 0, 1).contiguous() if need_W else None)  # W's layout


def _torch_backward(V, W, rows, cols, grad, need_V, need_W):
    """Gather + index_add (any device); ``rows`` -1 = inactive pair."""
    B, N, d = V.shape
    _, m, K = W.shape
    b, k = _index(rows)
    coeff = (grad[:, :, None] * (rows >= 0).to(grad.dtype))[..., None]              # (B, m, S, 1)
    rows = rows.clamp(min=0)
    grad_V = grad_W = None
    if need_V:
        hidden = W.permute(1, 2, 0)[k, cols]                                        # (B, m, S, d)
        grad_V = torch.zeros(B * N, d, dtype=V.dtype, device=V.device)
        grad_V.index_add_(0, (b * N + rows).reshape(-1), (coeff * hidden).reshape(-1, d))
        grad_V = grad_V.view(B, N, d)
    if need_W:
        inputs = V[b, rows]                                                         # (B, m, S, d)
        grad_W = torch.zeros(m * K, d, dtype=W.dtype, device=W.device)
        grad_W.index_add_(0, (k * K + cols).reshape(-1), (coeff * inputs).reshape(-1, d))
        grad_W = grad_W.view(m, K, d).permute(2, 0, 1)
    return grad_V, grad_W


def matched_sum(V: torch.Tensor, W: torch.Tensor, F: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor,
                grad_mode: str = "sparse") -> torch.Tensor:
    """``(B, m)`` sums of ``F = ReLU(V W)`` over pairs ``rows``/``cols`` (B, m, S), -1 = no pair.

    ``grad_mode="sparse"``: ``F`` may be detached, gradients come from the indices.
    ``grad_mode="dense"``: ``F`` must carry the autograd graph of ``V`` and ``W``.
    """
    if grad_mode == "sparse":
        return MatchedSum.apply(V, W, F.detach(), rows, cols)
    if grad_mode == "dense":
        return _picked(F, rows, cols).sum(-1)
    raise ValueError(f"unknown grad_mode={grad_mode!r}; valid: {', '.join(GRAD_MODES)}")
