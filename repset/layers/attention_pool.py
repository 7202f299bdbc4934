"""NN-attention: DeepSets with attention pooling instead of the sum (baseline of Skianis et al. 2020).

The paper only says that the sum of DeepSets is "replaced ... with an attention mechanism" and keeps the
DeepSets configuration (phi: {300, 100, 30}, rho: {30, 10}, tanh). It does not say which attention.
The default here is the attention-based pooling of Ilse, Tomczak & Welling, "Attention-based Deep
Multiple Instance Learning" (ICML 2018), the standard attention replacement for a DeepSets sum:

    score_i = w^T tanh(W h_i + b),   a = softmax over the valid elements of score,   z = sum_i a_i h_i,

with ``h_i = phi(x_i)`` and the attention width equal to the phi output width (30) by default. Why this
one: it is the usual attention pooling for permutation-invariant sum decompositions, it uses tanh like
the rest of the paper's configuration, it adds few parameters (961 with the default widths), and a
weighted *average* keeps the set representation on the scale of the element features whatever the set
size (unlike the sum).
Options: ``gated=True`` is Ilse et al.'s gated variant (``w^T (tanh(W h) * sigmoid(U h))``);
``scoring="query"`` is a single learned query with scaled dot-product scores
(``score_i = q . (K h_i) / sqrt(attention_dim)``), i.e. a one-head, one-seed PMA without the residual.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from .deepsets import DeepSets

__all__ = ["AttentionPool", "SCORINGS"]

SCORINGS = ("mlp", "query")


class AttentionPool(DeepSets):
    """``rho(sum_i a_i phi(x_i))`` with attention weights ``a`` (softmax over valid elements only).

    Args:
        in_dim, phi_dims, rho_dims, activation: as :class:`~repset.layers.deepsets.DeepSets`.
        attention_dim: width of the scoring layer (default: the phi output width).
        scoring: ``"mlp"`` (Ilse et al. 2018, default) or ``"query"`` (learned query, dot product).
        gated: gated attention (only with ``scoring="mlp"``).
    """

    _aggregations = ("attention",)

    def __init__(self, in_dim: int, phi_dims: Sequence[int] = (300, 100, 30), rho_dims: Sequence[int] = (30, 10),
                 activation: str = "tanh", attention_dim: int | None = None, scoring: str = "mlp",
                 gated: bool = False) -> None:
        super().__init__(in_dim, "attention", phi_dims, rho_dims, activation)
        if scoring not in SCORINGS:
            raise ValueError(f"unknown scoring={scoring!r}; valid: {', '.join(SCORINGS)}")
        if gated and scoring != "mlp":
            raise ValueError("gated attention needs scoring='mlp'")
        h = self.phi_dim
        self.attention_dim = int(attention_dim or h)
        if self.attention_dim < 1:
            raise ValueError(f"attention_dim must be >= 1, got {attention_dim}")
        self.scoring, self.gated = scoring, bool(gated)
        if scoring == "mlp":
            self.att_V = nn.Linear(h, self.attention_dim)
            self.att_U = nn.Linear(h, self.attention_dim) if gated else None
            self.att_w = nn.Linear(self.attention_dim, 1)
        else:
            self.att_K = nn.Linear(h, self.attention_dim)
            self.query = nn.Parameter(torch.empty(self.attention_dim))
            nn.init.normal_(self.query, std=1.0 / math.sqrt(self.attention_dim))

    def scores(self, H: torch.Tensor) -> torch.Tensor:
        """Unnormalised scores ``(B, N)`` of element features ``H`` (B, N, h)."""
        if self.scoring == "query":
            return self.att_K(H) @ self.query / math.sqrt(self.attention_dim)
        A = torch.tanh(self.att_V(H))
        if self.att_U is not None:
            A = A * torch.sigmoid(self.att_U(H))
        return self.att_w(A).squeeze(-1)

    def weights(self, H: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Attention weights ``(B, N)``: softmax over the valid elements, exactly 0 at padding."""
        return torch.softmax(self.scores(H).masked_fill(~mask, float("-inf")), dim=1)

    def pool(self, H: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bn,bnh->bh", self.weights(H, mask), H)

    @torch.no_grad()
    def attention_weights(self, V: torch.Tensor, lengths: torch.Tensor | None = None) -> torch.Tensor:
        """The attention weights ``(B, N)`` the layer gives to each element (for inspection)."""
        H, mask = self.element_features(V, lengths)
        return self.weights(H, mask)

    def extra_repr(self) -> str:
        return (super().extra_repr() + f", scoring={self.scoring!r}, attention_dim={self.attention_dim}"
                + (", gated=True" if self.gated else ""))
