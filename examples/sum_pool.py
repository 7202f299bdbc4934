"""An example set model from outside the package: a 2-layer MLP on every element, summed over the set.

Used by the pipeline through ``models.<name>.layer: examples/sum_pool.py:SumPool`` (examples/sum_pool.yaml); the
contract it keeps is in docs/your-model.md."""
import torch
from torch import nn


class SumPool(nn.Module):
    """``sum_{x in X} MLP(x)``: ``SumPool(in_dim, hidden=64, out_dim=32)``, ``forward(V, lengths) -> (B, out_dim)``."""

    def __init__(self, in_dim: int, hidden: int = 64, out_dim: int = 32) -> None:
        super().__init__()
        self.out_dim = out_dim                                   # the width the classifier's head reads
        self.phi = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, out_dim), nn.ReLU())

    def forward(self, V: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Padded sets ``V`` (B, N, in_dim), ``lengths`` (B,): set i is ``V[i, :lengths[i]]``."""
        mask = torch.arange(V.shape[1], device=V.device)[None, :] < lengths[:, None]   # (B, N): the real elements
        return (self.phi(V) * mask[..., None]).sum(dim=1)        # padding masked out: phi(0) is not 0
