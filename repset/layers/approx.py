"""ApproxRepSet: the relaxation of the matching where one side's constraint is dropped."""
from __future__ import annotations

from collections.abc import Sequence

import torch

from ..sets import length_mask
from .base import HiddenSetLayer
from .matched_sum import attach_gradient
from .ops import approx_pairs, approx_products, tracing

FORMS = ("paper", "official")


class ApproxRepSet(HiddenSetLayer):
    """Relaxed matching value per hidden set, pure torch (runs wherever its tensors live).

    ``form="paper"`` (Skianis et al. 2020, Eq. 2): per input set X and hidden set Y, if |X| >= |Y|
    every hidden element takes its best input element, ``sum_j max_i F_ij``; otherwise every input
    element takes its best hidden element, ``sum_i max_j F_ij``. This upper-bounds the exact
    matching (Proposition 1). ``form="official"``: always ``sum_i max_j F_ij`` (the authors' code).
    """

    def __init__(self, in_dim: int, n_hidden_sets: int, hidden_set_size: int | Sequence[int],
                 form: str = "paper", normalize: str = "none", grad_mode: str = "sparse",
                 init: str = "uniform") -> None:
        super().__init__(in_dim, n_hidden_sets, hidden_set_size, normalize, grad_mode, init)
        if form not in FORMS:
            raise ValueError(f"unknown form={form!r}; valid: {', '.join(FORMS)}")
        self.form = form

    products_in_operator = True

    def set_values(self, E: torch.Tensor, G: torch.Tensor | None, index: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if G is not None and G.device.type != "cpu":
            return super().set_values(E, G, index, lengths)
        # CPU: one Numba pass over the raw products picks the pairs, applies the ReLU and sums (no ReLU
        # pass, no second gather); a pair on a weight <= 0 adds nothing and gets no gradient.
        # a traced forward cannot read the lengths for its shapes: max(N, K) pair slots, always enough
        W, paper = self._compute_weight(), self.form == "paper"
        slots = torch.sym_max(index.shape[1], W.shape[2]) if tracing() else -1
        if G is None:   # traced, sparse: the products made inside the operator
            x, rows, cols = approx_products(E.detach(), W.detach(), index, lengths, self.hidden_sizes, paper, slots)
        else:
            x, rows, cols = approx_pairs(G.detach(), index, lengths, self.hidden_sizes, paper, slots)
        return attach_gradient(E, W, G, index, x, rows, cols, self.grad_mode)

    def select_pairs(self, F: torch.Tensor, index: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # F >= 0 and zero on padding, so padding never beats a valid element (argmax takes the first
        # maximum); a pair on a zero weight adds nothing and gets no gradient.
        valid = length_mask(lengths, index.shape[1])[:, :, None, None]
        return self._torch_pairs(F[index] * valid.to(F.dtype), lengths)

    def _torch_pairs(self, F: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Device-agnostic version of the Numba kernel (S = N + K, half of each row unused)."""
        B, N, m, K = F.shape
        valid_rows = torch.arange(N, device=F.device)[None, :, None] < lengths[:, None, None]   # (B, N, 1)
        best_col = F.argmax(dim=3).permute(0, 2, 1)                                            # (B, m, N)
        input_rows = torch.where(valid_rows.permute(0, 2, 1), torch.arange(N, device=F.device), -1).expand(B, m, N)
        if self.form == "official":
            return input_rows, best_col
        best_row = F.argmax(dim=1)                                                             # (B, m, K)
        hidden_cols = torch.where(self.hidden_mask, torch.arange(K, device=F.device), -1).expand(B, m, K)
        x_large = (lengths[:, None] >= self.hidden_sizes[None, :])[..., None]                   # (B, m, 1)
        rows = torch.cat([torch.where(x_large, -1, input_rows), torch.where(x_large, best_row, -1)], dim=2)
        cols = torch.cat([best_col, torch.where(x_large, hidden_cols, -1)], dim=2)
        return rows, cols

    def options_repr(self) -> str:
        return super().options_repr() + f", form={self.form!r}"
