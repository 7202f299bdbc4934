"""RepSet: exact maximum-weight bipartite matching between the input set and each hidden set."""
from __future__ import annotations

from collections.abc import Sequence
from importlib.util import find_spec

import numpy as np
import torch

from solvers import MatchingSolver, get_solver

from .base import HiddenSetLayer

#: the layer's default solver: the fast exact one where Numba is installed, scipy's (same values) otherwise
DEFAULT_SOLVER = "numba" if find_spec("numba") is not None else "scipy"


class RepSet(HiddenSetLayer):
    """``x_k`` = weight of the maximum matching of F_k = ReLU(V H_k) (Skianis et al. 2020, Eq. 1).

    The solver runs without gradient on a view of F and returns assignment indices; ``x`` is the sum
    of F over the matched pairs and its gradient passes through the ReLU: a pair matched on a zero
    (or negative pre-activation) weight gets no gradient, unlike the paper's ``V^T D`` formula.
    One solver call serves all ``B x m`` problems of a forward pass.

    Args (besides :class:`HiddenSetLayer`'s): solver: registry name or a solver instance; default
    ``"numba"`` (exact, several times faster than scipy) where Numba is installed, else ``"scipy"``
    (same values), as :data:`DEFAULT_SOLVER` says.
    """

    def __init__(self, in_dim: int, n_hidden_sets: int, hidden_set_size: int | Sequence[int],
                 solver: str | MatchingSolver = DEFAULT_SOLVER, normalize: str = "none",
                 grad_mode: str = "sparse", init: str = "uniform") -> None:
        super().__init__(in_dim, n_hidden_sets, hidden_set_size, normalize, grad_mode, init)
        self.solver = get_solver(solver)   # loads nothing of Numba: its kernels load on the first forward

    def select_pairs(self, F: torch.Tensor, index: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if not torch.isfinite(F.sum()):   # F = ReLU(V H) >= 0: only an overflow can make it non-finite
            raise ValueError("edge weights ReLU(V H) overflow to inf: rescale the input sets")
        # problem (b, k) = F[index[b, :n_b], k, :|Y_k|]: the solver reads the rows through the index
        if getattr(self.solver, "accepts_tensors", False):   # a device solver: F and the pairs stay on F's device
            result = self.solver.solve_indexed_tensors(F, index, lengths[:, None], self.hidden_sizes[None, :],
                                                       check_values=False)
            return result.pairs()
        rows, cols = self._host_pairs(F.cpu(), index.cpu(), lengths.cpu())
        return rows.to(F.device, torch.long), cols.to(F.device, torch.long)

    @torch.compiler.disable   # NumPy and the solver's kernels: torch.compile runs it eagerly (a graph break)
    def _host_pairs(self, F: torch.Tensor, index: torch.Tensor,
                    lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The matched ``(rows, cols)`` (B, m, S) int32 of the CPU tensors by the solver, through NumPy."""
        result = self.solver.solve_indexed(F.numpy(), index.numpy(), lengths.numpy()[:, None],
                                           np.asarray(self._sizes, dtype=np.int64)[None, :], check_values=False)
        rows, cols = result.pairs()
        return torch.from_numpy(rows), torch.from_numpy(cols)

    def options_repr(self) -> str:
        return super().options_repr() + f", solver={self.solver.name!r}"
