"""DeepSets (Zaheer et al. 2017) and the NN-mean / NN-max variants used as baselines by Skianis et al. (2020).

The paper's configuration (text categorisation, reused for graphs): "3 fully-connected layers of sizes
{300, 100, 30} with tanh activations, followed by the aggregation operator, and then by 2 fully-connected
layers of sizes {30, 10} with tanh activations"; the classifier (:class:`repset.training.SetClassifier`) adds
the logits layer on top of the 10 outputs.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..sets import check_finite_output, check_set_batch, length_mask

__all__ = ["DeepSets", "NNMean", "NNMax", "AGGREGATIONS", "ACTIVATIONS", "mlp"]

AGGREGATIONS = ("sum", "mean", "max")
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def mlp(in_dim: int, dims: Sequence[int], activation: str) -> tuple[nn.Sequential, int]:
    """Fully connected layers ``in_dim -> dims[0] -> ... -> dims[-1]``, each followed by ``activation``.

    Returns the module and its output width (``in_dim`` when ``dims`` is empty: the identity).
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation={activation!r}; valid: {', '.join(ACTIVATIONS)}")
    layers: list[nn.Module] = []
    width = in_dim
    for h in dims:
        if int(h) < 1:
            raise ValueError(f"layer sizes must be >= 1, got {list(dims)}")
        layers += [nn.Linear(width, int(h)), ACTIVATIONS[activation]()]
        width = int(h)
    return nn.Sequential(*layers), width


class DeepSets(nn.Module):
    """``rho(AGG_{x in X} phi(x))`` with ``AGG`` in {sum, mean, max}; ``forward(V, lengths) -> (B, out_dim)``.

    Args:
        in_dim: element dimension d.
        aggregation: ``"sum"`` (DeepSets), ``"mean"`` (NN-mean) or ``"max"`` (NN-max, element-wise).
        phi_dims: sizes of the element-wise layers (paper: 300, 100, 30).
        rho_dims: sizes of the layers after the aggregation (paper: 30, 10); ``out_dim`` is the last one.
        activation: ``"tanh"`` (paper) or ``"relu"``, after every layer of phi and rho.

    Padding never matters: phi is applied to the valid elements only (packed), and the aggregation runs
    over them alone (sum / mean over valid elements, max with ``-inf`` at padding positions).
    """

    _aggregations: tuple[str, ...] = AGGREGATIONS

    def __init__(self, in_dim: int, aggregation: str = "sum", phi_dims: Sequence[int] = (300, 100, 30),
                 rho_dims: Sequence[int] = (30, 10), activation: str = "tanh") -> None:
        super().__init__()
        if in_dim < 1:
            raise ValueError(f"in_dim must be >= 1, got {in_dim}")
        if aggregation not in self._aggregations:
            raise ValueError(f"unknown aggregation={aggregation!r}; valid: {', '.join(self._aggregations)}")
        self.in_dim, self.aggregation, self.activation = in_dim, aggregation, activation
        self.phi, self.phi_dim = mlp(in_dim, phi_dims, activation)
        self.rho, self.out_dim = mlp(self.phi_dim, rho_dims, activation)

    def element_features(self, V: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``phi`` of the valid elements as a padded ``(B, N, phi_dim)`` tensor (zeros at padding) and the mask."""
        V, lengths = check_set_batch(V, lengths, self.in_dim, next(self.parameters()).dtype)
        mask = length_mask(lengths, V.shape[1])
        H = self.phi(V[mask])                                   # (total valid, phi_dim): padding never enters phi
        out = H.new_zeros(*mask.shape, H.shape[-1])
        out[mask] = H
        return out, mask

    def pool(self, H: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked aggregation of ``H`` (B, N, h) over the valid positions -> ``(B, h)``."""
        if self.aggregation == "max":
            return H.masked_fill(~mask[..., None], float("-inf")).amax(dim=1)
        total = (H * mask[..., None].to(H.dtype)).sum(dim=1)
        if self.aggregation == "mean":
            total = total / mask.sum(dim=1, keepdim=True).to(H.dtype)
        return total

    def forward(self, V: torch.Tensor, lengths: torch.Tensor | None = None) -> torch.Tensor:
        """Set representation ``(B, out_dim)`` for sets ``V`` (B, N, d) with ``lengths`` (B,)."""
        H, mask = self.element_features(V, lengths)
        return check_finite_output(self.rho(self.pool(H, mask)), type(self).__name__)

    def extra_repr(self) -> str:
        return f"in_dim={self.in_dim}, aggregation={self.aggregation!r}, out_dim={self.out_dim}"


class NNMean(DeepSets):
    """DeepSets with the mean instead of the sum (the paper's NN-mean)."""

    def __init__(self, in_dim: int, phi_dims: Sequence[int] = (300, 100, 30), rho_dims: Sequence[int] = (30, 10),
                 activation: str = "tanh") -> None:
        super().__init__(in_dim, "mean", phi_dims, rho_dims, activation)


class NNMax(DeepSets):
    """DeepSets with the element-wise max instead of the sum (the paper's NN-max)."""

    def __init__(self, in_dim: int, phi_dims: Sequence[int] = (300, 100, 30), rho_dims: Sequence[int] = (30, 10),
                 activation: str = "tanh") -> None:
        super().__init__(in_dim, "max", phi_dims, rho_dims, activation)
