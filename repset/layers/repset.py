"""RepSet: exact maximum-weight bipartite matching between the input set and each hidden set."""
from __future__ import annotations

from collections.abc import Sequence
from importlib.util import find_spec

import torch

from solvers import MatchingSolver, get_solver

from .base import HiddenSetLayer
from .matched_sum import attach_gradient
from .ops import match_products, match_values, solver_key

#: the layer's default solver: the fast exact one where Numba is installed, scipy's (same values) otherwise
DEFAULT_SOLVER = "numba" if find_spec("numba") is not None else "scipy"


class RepSet(HiddenSetLayer):
    """``x_k`` = weight of the maximum matching of F_k = ReLU(V H_k) (Skianis et al. 2020, Eq. 1).

    The solver runs without gradient on a view of F and returns assignment indices; ``x`` is the sum
    of F over the matched pairs and its gradient passes through the ReLU: a pair matched on a zero
    (or negative pre-activation) weight gets no gradient, unlike the paper's ``V^T D`` formula.
    One solver call (the operator :func:`.ops.match_values`) serves all ``B x m`` problems of a forward pass.

    Args (besides :class:`HiddenSetLayer`'s): solver: registry name or a solver instance; default
    ``"numba"`` (exact, several times faster than scipy) where Numba is installed, else ``"scipy"``
    (same values), as :data:`DEFAULT_SOLVER` says.
    """

    def __init__(self, in_dim: int, n_hidden_sets: int, hidden_set_size: int | Sequence[int],
                 solver: str | MatchingSolver = DEFAULT_SOLVER, normalize: str = "none",
                 grad_mode: str = "sparse", init: str = "uniform") -> None:
        super().__init__(in_dim, n_hidden_sets, hidden_set_size, normalize, grad_mode, init)
        self.solver = solver   # loads nothing of Numba: its kernels load on the first forward

    @property
    def solver(self) -> MatchingSolver:
        """The matching solver (set it by registry name or instance); the matching operator finds it by key."""
        return self._solver

    @solver.setter
    def solver(self, solver: str | MatchingSolver) -> None:
        self._solver = get_solver(solver)
        self._solver_key = solver_key(self._solver)

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the copy's solver gets its own key."""
        super().__setstate__(state)
        self._solver_key = solver_key(self._solver)

    products_in_operator = True

    def set_values(self, E: torch.Tensor, G: torch.Tensor | None, index: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        # the matching and its sums in one operator: problem (b, k) = F[index[b, :n_b], k, :|Y_k|]
        W = self._compute_weight()
        if G is None:   # traced, sparse, CPU: products, ReLU and matching in one operator
            mask = None if self._equal_sizes else self.hidden_mask.to(E.dtype)
            x, rows, cols = match_products(E.detach(), W.detach(), mask, index, lengths, self.hidden_sizes,
                                           self._solver_key)
            return attach_gradient(E, W, None, index, x, rows, cols)
        F = self._edge_rows(E, G)
        x, rows, cols = match_values(F.detach(), index, lengths, self.hidden_sizes, self._solver_key)
        return attach_gradient(E, W, F, index, x, rows, cols, self.grad_mode)

    def select_pairs(self, F: torch.Tensor, index: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        _, rows, cols = match_values(F, index, lengths, self.hidden_sizes, self._solver_key)
        return rows, cols

    def options_repr(self) -> str:
        return super().options_repr() + f", solver={self.solver.name!r}"
