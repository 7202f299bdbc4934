"""Set classifier: a set layer, optional hidden layers, logits."""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn


class SetClassifier(nn.Module):
    """``logits = MLP(layer(V, lengths))``.

    Args:
        layer: a set layer mapping ``(B, N, d)`` sets to ``(B, m)`` features (``out_dim`` or
            ``n_hidden_sets`` attribute gives m).
        n_classes: number of classes C.
        hidden_dims: sizes of the fully connected hidden layers between the set layer and the
            logits (``()`` = the paper's softmax(W x + b)).
        activation: ``"relu"`` or ``"tanh"``; dropout: probability after each hidden layer.
    """

    def __init__(self, layer: nn.Module, n_classes: int, hidden_dims: Sequence[int] = (),
                 activation: str = "relu", dropout: float = 0.0) -> None:
        super().__init__()
        acts = {"relu": nn.ReLU, "tanh": nn.Tanh}
        if activation not in acts:
            raise ValueError(f"unknown activation {activation!r}; valid: {', '.join(acts)}")
        if n_classes < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes}")
        self.layer = layer
        width = getattr(layer, "out_dim", None) or getattr(layer, "n_hidden_sets")
        blocks: list[nn.Module] = []
        for h in hidden_dims:
            blocks += [nn.Linear(width, h), acts[activation]()] + ([nn.Dropout(dropout)] if dropout else [])
            width = h
        blocks.append(nn.Linear(width, n_classes))
        self.head = nn.Sequential(*blocks)

    @property
    def takes_element_ids(self) -> bool:
        """True when the set layer accepts sets as distinct elements + ``element_ids`` (RepSet, ApproxRepSet)."""
        return bool(getattr(self.layer, "takes_element_ids", False))

    def forward(self, V: torch.Tensor, lengths: torch.Tensor | None = None,
                element_ids: torch.Tensor | None = None) -> torch.Tensor:
        """Logits ``(B, C)`` for sets ``V`` (B, N, d) with ``lengths`` (B,), or for distinct elements ``V``
        (U, d) with ``element_ids`` (B, N) where the layer takes them (:attr:`takes_element_ids`)."""
        if element_ids is None:
            return self.head(self.layer(V, lengths))
        if not self.takes_element_ids:
            raise ValueError(f"{type(self.layer).__name__} does not take element_ids; pass padded sets")
        return self.head(self.layer(V, lengths, element_ids=element_ids))


def build_layer(name: str, in_dim: int, **options) -> nn.Module:
    """Instantiate a set layer with its options: ``name`` is a registry name (see ``repset.layers.LAYERS``), an
    import path or an entry point (:func:`repset.training.external.resolve_layer`); a ragged-form layer comes
    wrapped in the padded form (:func:`~repset.training.external.wrap_layer`),
    e.g. ``build_layer("repset", 300, n_hidden_sets=50, hidden_set_size=20, solver="numba")``."""
    from .external import resolve_layer, wrap_layer

    return wrap_layer(resolve_layer(name)(in_dim, **options))
