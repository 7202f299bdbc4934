"""ApproxRepSet: the relaxation of the matching where one side's constraint is dropped."""
from __future__ import annotations

from collections.abc import Sequence

import torch

from .base import HiddenSetLayer

FORMS = ("paper", "official")


class ApproxRepSet(HiddenSetLayer):
    """Relaxed matching value per hidden set, pure torch (runs wherever its tensors live).

    ``form="paper"`` (Skianis et al. 2020, Eq. 2): per input set X and hidden set Y, if |X| >= |Y|
    every hidden element takes its best input element, ``sum_j max_i F_ij``; otherwise every input
    element takes its best hidden element, ``sum_i max_j F_ij``. This upper-bounds the exact
    matching (Proposition 1). ``form="official"``: always ``sum_i max_j F_ij`` (the authors' code).
    """

    def __init__(self, in_dim: int, n_hidden_sets: int, hidden_set_size: int | Sequence[int],
                 form: str = "paper", normalize: str = "none") -> None:
        super().__init__(in_dim, n_hidden_sets, hidden_set_size, normalize)
        if form not in FORMS:
            raise ValueError(f"unknown form={form!r}; valid: {', '.join(FORMS)}")
        self.form = form

    def pool(self, F: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        # F >= 0 and zero on padding, so padding never wins a max and adds nothing to a sum.
        inputs_pick = F.amax(dim=3).sum(dim=1)            # sum_i max_j: (B, m)
        if self.form == "official":
            return inputs_pick
        hidden_pick = F.amax(dim=1).sum(dim=2)            # sum_j max_i: (B, m)
        x_large = lengths[:, None] >= self.hidden_sizes[None, :]
        return torch.where(x_large, hidden_pick, inputs_pick)

    def extra_repr(self) -> str:
        return super().extra_repr() + f", form={self.form!r}"
