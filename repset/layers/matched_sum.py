"""Sum of edge weights over selected pairs, with the gradient computed from the pair indices.

Both layers reduce to ``x[b, k] = sum_s ReLU(e_{index[b, r_s]} . h_{k, c_s})`` over pairs ``(r_s, c_s)``
chosen without gradient (a matching, or the relaxation's argmaxes). The sets come as an element table
``E`` (R, d) and an ``index`` (B, N): element ``i`` of set ``b`` is row ``index[b, i]`` (a padded batch
is ``E = V.reshape(B N, d)`` with the identity index); edge weights are table rows ``F`` (R, m, K).

The values ``x`` and the active pairs (those on a positive weight) are computed first, without
gradient (:func:`.ops.pair_values`, or a layer's operator: :mod:`.ops`); :func:`attach_gradient` then
attaches the gradient, in one of two ways:

- ``"sparse"`` (:class:`PairGradient`): the backward adds ``g * h`` to the set positions' gradients
  and ``g * e`` to the columns of the H gradient for the active pairs: O(pairs x d) work, F is not
  kept (Numba kernels on CPU, gather + index_add elsewhere and for a double backward).
- ``"dense"``: autograd through an index of a grad-enabled F: the backward builds a dense
  ``(R, m, K)`` gradient and runs two matmuls as large as the forward one.
"""
from __future__ import annotations

import torch

from .ops import pair_grads, pair_index, pair_values, picked, tracing

GRAD_MODES = ("sparse", "dense")


class PairGradient(torch.autograd.Function):
    """Returns ``x`` (B, m), computed beforehand, with its gradient w.r.t. the element rows ``E`` (R, d)
    and the hidden sets ``W`` (d, m, K) from the active pairs (``active_rows`` -1 = inactive). A traced or
    transformed forward uses :class:`FuncPairGradient`."""

    @staticmethod
    def forward(ctx, E, W, index, x, active_rows, cols):
        ctx.save_for_backward(E, W, index, active_rows, cols)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        E, W, index, rows, cols = ctx.saved_tensors
        need_E, need_W = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        # create_graph (double backward): torch's gather + index_add, differentiable in E, W and grad;
        # the pairs stay fixed, so the gradient is bilinear in (E or W, grad) and its own gradient exact
        graph = torch.is_grad_enabled() and (grad.requires_grad or E.requires_grad or W.requires_grad)
        backward = _cpu_backward if E.device.type == "cpu" and not graph else _torch_backward
        grad_positions, grad_W = backward(E, W, index, rows, cols.clamp(min=0), grad.contiguous(), need_E, need_W)
        grad_E = None
        if need_E:   # each set position's gradient goes to the table row it came from (out of place: vmap)
            grad_E = torch.zeros_like(E).index_add(0, index.reshape(-1), grad_positions.reshape(-1, E.shape[1]))
        return grad_E, grad_W, None, None, None, None


class FuncPairGradient(PairGradient):
    """:class:`PairGradient` with forward and context apart, as ``torch.func`` (vmap, grad, jacrev)
    requires; vmap runs the forward as it is. (Torch binds the signature of such a Function's forward at
    each call, about 0.1 ms: eager calls keep :class:`PairGradient`.)"""

    generate_vmap_rule = True

    @staticmethod
    def forward(E, W, index, x, active_rows, cols):
        return x.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        E, W, index, _, active_rows, cols = inputs
        ctx.save_for_backward(E, W, index, active_rows, cols)


def _cpu_backward(E, W, index, rows, cols, grad, need_E, need_W):
    """Numba kernels (:func:`.ops.pair_grads`), parallel and without (pairs, d) temporaries; ``rows`` -1 =
    inactive pair."""
    hidden = W.detach().permute(1, 2, 0)                                            # (m, K, d)
    grad_positions, grad_hidden = pair_grads(E.detach(), index, hidden, rows, cols, grad.detach(), need_E, need_W)
    return (grad_positions if need_E else None,
            grad_hidden.permute(2, 0, 1).contiguous() if need_W else None)          # W's layout


def _torch_backward(E, W, index, rows, cols, grad, need_E, need_W):
    """Gather + index_add (any device); ``rows`` -1 = inactive pair."""
    B, N = index.shape
    d, m, K = W.shape
    b, k = pair_index(rows)
    coeff = (grad[:, :, None] * (rows >= 0).to(grad.dtype))[..., None]              # (B, m, S, 1)
    rows = rows.clamp(min=0)
    grad_positions = grad_W = None
    if need_E:
        hidden = W.permute(1, 2, 0)[k, cols]                                        # (B, m, S, d)
        grad_positions = torch.zeros(B * N, d, dtype=E.dtype, device=E.device).index_add(
            0, (b * N + rows).reshape(-1), (coeff * hidden).reshape(-1, d)).view(B, N, d)
    if need_W:
        inputs = E[index[b, rows]]                                                  # (B, m, S, d)
        grad_W = torch.zeros(m * K, d, dtype=W.dtype, device=W.device).index_add(
            0, (k * K + cols).reshape(-1), (coeff * inputs).reshape(-1, d)).view(m, K, d).permute(2, 0, 1)
    return grad_positions, grad_W


def attach_gradient(E: torch.Tensor, W: torch.Tensor, F: torch.Tensor | None, index: torch.Tensor, x: torch.Tensor,
                    active_rows: torch.Tensor, cols: torch.Tensor, grad_mode: str = "sparse") -> torch.Tensor:
    """``x`` (B, m) with the gradient of ``sum over active pairs of F[index[b, r], k, c]`` attached.

    ``grad_mode="sparse"``: from the indices (``F`` unused, may be None). ``"dense"``: ``F`` (R, m, K) must carry the
    autograd graph of ``E`` and ``W``; equal to ``ReLU(E W)`` at the active pairs (the raw product
    ``E W`` serves: it is positive there).
    """
    if grad_mode == "sparse":
        return (FuncPairGradient if tracing() else PairGradient).apply(E, W, index, x, active_rows, cols)
    if grad_mode == "dense":
        return picked(F, index, active_rows, cols).sum(-1)
    raise ValueError(f"unknown grad_mode={grad_mode!r}; valid: {', '.join(GRAD_MODES)}")


def matched_sum(E: torch.Tensor, W: torch.Tensor, F: torch.Tensor, index: torch.Tensor, rows: torch.Tensor,
                cols: torch.Tensor, grad_mode: str = "sparse") -> torch.Tensor:
    """``(B, m)`` sums of ``F = ReLU(E W)`` (R, m, K) over pairs ``rows``/``cols`` (B, m, S), -1 = no pair,
    of the sets whose element ``i`` is row ``index[b, i]``.

    ``grad_mode="sparse"``: ``F`` may be detached, gradients come from the indices.
    ``grad_mode="dense"``: ``F`` must carry the autograd graph of ``E`` and ``W``.
    """
    if grad_mode not in GRAD_MODES:
        raise ValueError(f"unknown grad_mode={grad_mode!r}; valid: {', '.join(GRAD_MODES)}")
    if grad_mode == "dense":   # autograd alone: a pair on a zero weight adds 0 and, through the ReLU, no gradient
        return picked(F, index, rows, cols).sum(-1)
    x, active_rows = pair_values(F.detach(), index, rows, cols)
    return attach_gradient(E, W, F, index, x, active_rows, cols, grad_mode)
