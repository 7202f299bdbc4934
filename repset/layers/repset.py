"""RepSet: exact maximum-weight bipartite matching between the input set and each hidden set."""
from __future__ import annotations

from collections.abc import Sequence

import torch

from solvers import MatchingSolver, get_solver

from .base import HiddenSetLayer


class RepSet(HiddenSetLayer):
    """``x_k`` = weight of the maximum matching of F_k = ReLU(V H_k) (Skianis et al. 2020, Eq. 1).

    The solver runs without gradient on a detached view of F and returns assignment indices; ``x`` is
    the sum of F over the matched pairs, so autograd differentiates through ReLU as well: a pair
    matched on a zero (or negative pre-activation) weight gets no gradient, unlike the paper's
    ``V^T D`` formula. One solver call serves all ``B x m`` problems of a forward pass.

    Args (besides :class:`HiddenSetLayer`'s): solver: registry name or a solver instance.
    """

    def __init__(self, in_dim: int, n_hidden_sets: int, hidden_set_size: int | Sequence[int],
                 solver: str | MatchingSolver = "scipy", normalize: str = "none") -> None:
        super().__init__(in_dim, n_hidden_sets, hidden_set_size, normalize)
        self.solver = get_solver(solver)

    def pool(self, F: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        B, N, m, K = F.shape
        with torch.no_grad():
            problems = F.detach().cpu().numpy().transpose(0, 2, 1, 3)  # (B, m, N, K) view, no copy on CPU
            result = self.solver.solve(problems, lengths.cpu().numpy()[:, None], self.hidden_sizes.cpu().numpy()[None, :])
        partner = torch.from_numpy(result.assignment).to(F.device, torch.long)  # (B, m, S)
        matched = partner >= 0
        index = partner.clamp(min=0)
        if result.along == "cols":   # partner[b, k, j] = row of column j: gather along N
            picked = F.gather(1, index[:, None, :, :])[:, 0]                      # (B, m, K)
        else:                        # partner[b, k, i] = column of row i: gather along K
            picked = F.gather(3, index.permute(0, 2, 1)[..., None])[..., 0]       # (B, N, m)
            picked = picked.permute(0, 2, 1)                                      # (B, m, N)
        return (picked * matched.to(F.dtype)).sum(-1)

    def extra_repr(self) -> str:
        return super().extra_repr() + f", solver={self.solver.name!r}"
