"""Padded batches of sets: building them from ragged input, masks, and input validation."""
from __future__ import annotations

from collections.abc import Sequence

import torch

__all__ = ["pad_sets", "length_mask", "check_set_batch"]


def pad_sets(sets: Sequence[torch.Tensor], dtype: torch.dtype | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad a list of ``(n_i, d)`` tensors to ``V`` of shape ``(B, max n_i, d)`` (zeros) and ``lengths`` ``(B,)``."""
    if len(sets) == 0:
        raise ValueError("sets: need at least one set")
    dims = {tuple(s.shape[1:]) for s in sets}
    if any(s.ndim != 2 for s in sets) or len(dims) != 1:
        raise ValueError(f"sets: every set must have shape (n_i, d) with one common d, got shapes "
                         f"{sorted({tuple(s.shape) for s in sets})[:5]}")
    lengths = torch.tensor([s.shape[0] for s in sets], dtype=torch.long)
    V = torch.nn.utils.rnn.pad_sequence(list(sets), batch_first=True)
    return (V if dtype is None else V.to(dtype)), lengths


def length_mask(lengths: torch.Tensor, n: int) -> torch.Tensor:
    """Boolean ``(B, n)``: True at the valid (non-padding) elements."""
    return torch.arange(n, device=lengths.device)[None, :] < lengths[:, None]


def check_set_batch(V: torch.Tensor, lengths: torch.Tensor | None, in_dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Validate a padded batch ``V`` (B, N, d) with ``lengths`` (B,); return ``(V with zero padding, lengths)``.

    Raises ValueError naming the argument: wrong rank or feature size, lengths out of ``[1, N]``
    (empty sets are rejected: a set representation of nothing is undefined), NaN or inf in a valid
    element. Padding may hold anything; it is replaced by zeros.
    """
    if not isinstance(V, torch.Tensor) or V.ndim != 3:
        raise ValueError(f"V must be a tensor of shape (batch, set size, {in_dim}), got "
                         f"{tuple(V.shape) if isinstance(V, torch.Tensor) else type(V).__name__}")
    B, N, d = V.shape
    if d != in_dim:
        raise ValueError(f"V has feature size {d}, the layer expects in_dim={in_dim}")
    if not V.is_floating_point():
        raise ValueError(f"V must be floating point, got {V.dtype}")
    if lengths is None:
        lengths = torch.full((B,), N, dtype=torch.long, device=V.device)
    else:
        lengths = torch.as_tensor(lengths, device=V.device)
        if lengths.shape != (B,) or lengths.is_floating_point():
            raise ValueError(f"lengths must be integers of shape ({B},), got {lengths.dtype} {tuple(lengths.shape)}")
        lengths = lengths.long()
    if B == 0:
        raise ValueError("V: empty batch")
    if (lengths < 1).any():
        raise ValueError(f"lengths: empty sets are not allowed (sets {torch.nonzero(lengths < 1).flatten().tolist()[:10]})")
    if (lengths > N).any():
        raise ValueError(f"lengths: values exceed the padded set size N={N}")
    if bool((lengths < N).any()):
        mask = length_mask(lengths, N)
        V = torch.where(mask[:, :, None], V, torch.zeros((), dtype=V.dtype, device=V.device))
    # one reduction: a NaN or inf anywhere makes the sum non-finite (the exact check confirms overflow cases)
    if not torch.isfinite(V.sum()) and not torch.isfinite(V).all():
        raise ValueError("V contains NaN or infinite values in valid (non-padding) elements")
    return V, lengths
