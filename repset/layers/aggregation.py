"""RepSet and ApproxRepSet as PyTorch Geometric style aggregations: ``aggr(x, index)`` or ``aggr(x, ptr=ptr)``
on ragged input (the elements of all sets stacked, ``x`` of shape ``(total, d)``), no padded copy of the
input.

    from repset.layers.aggregation import RepSetAggregation
    aggr = RepSetAggregation(64, n_hidden_sets=20, hidden_set_size=10, solver="numba")
    out = aggr(node_features, batch)            # (num_graphs, 20), as torch_geometric.nn.aggr.SumAggregation

The sets are taken in groups of similar size (:func:`size_groups`), each group gathered from the stacked
elements into the layer's padded form with at most ``max_padding`` of its rows padding (0: only sets of
one size share a call), and run through the layer itself: its kernels, its grad mode, values and
gradients equal to the padded layer's on the whole batch, at a fraction of the work where sizes vary
(a batch of 64 REDDIT-BINARY graphs padded to its largest is about 80 % padding). When ``torch_geometric`` is
installed the classes are :class:`torch_geometric.nn.aggr.Aggregation` subclasses: a drop-in wherever
PyG takes an aggregation module.
"""
from __future__ import annotations

import torch

from .approx import ApproxRepSet
from .base import HiddenSetLayer
from .repset import RepSet

try:  # a drop-in PyG aggregation where PyG is installed (optional extra [pyg])
    from torch_geometric.nn.aggr import Aggregation as _Base
except ImportError:  # pragma: no cover - exercised where torch_geometric is absent
    _Base = torch.nn.Module

__all__ = ["HiddenSetAggregation", "RepSetAggregation", "ApproxRepSetAggregation", "size_groups"]


def size_groups(sizes: torch.Tensor, max_padding: float = 0.25) -> list[torch.Tensor]:
    """Indices of sets (``sizes``: elements per set, CPU long) in groups of similar size, in increasing
    size: a group's padded rows (its largest size times its count, minus its elements) stay within
    ``max_padding`` of the padded total. Empty sets are left out."""
    order = torch.argsort(sizes, stable=True)
    order = order[sizes[order] > 0]
    groups, start, total = [], 0, 0
    values = sizes[order].tolist()
    for end, value in enumerate(values):
        if end > start and value * (end - start + 1) * (1 - max_padding) > total + value:
            groups.append(order[start:end])
            start, total = end, 0
        total += value
    if len(values):
        groups.append(order[start:])
    return groups


class HiddenSetAggregation(_Base):
    """A hidden-set layer (``layer``: :class:`RepSet` or :class:`ApproxRepSet`) on ragged sets:
    ``forward(x, index=None, ptr=None, dim_size=None, dim=-2) -> (dim_size, m)``. ``index`` (total,)
    names each element's set (need not be sorted); ``ptr`` (B + 1,) gives sorted sets' boundaries."""

    def __init__(self, layer: HiddenSetLayer, max_padding: float = 0.25) -> None:
        super().__init__()
        if not isinstance(layer, HiddenSetLayer):
            raise TypeError(f"layer must be a RepSet or ApproxRepSet, got {type(layer).__name__}")
        if not 0 <= max_padding < 1:
            raise ValueError(f"max_padding must lie in [0, 1), got {max_padding}")
        self.layer, self.max_padding = layer, float(max_padding)

    def reset_parameters(self) -> None:
        self.layer.reset_parameters()

    def forward(self, x: torch.Tensor, index: torch.Tensor | None = None, ptr: torch.Tensor | None = None,
                dim_size: int | None = None, dim: int = -2, max_num_elements: int | None = None) -> torch.Tensor:
        if x.dim() != 2 or dim not in (-2, 0):
            raise ValueError(f"x must be (elements, d) aggregated over dim -2, got shape {tuple(x.shape)}, dim={dim}")
        if x.shape[1] != self.layer.in_dim:
            raise ValueError(f"x has {x.shape[1]} features, the layer expects {self.layer.in_dim}")
        x, starts, sizes = _stacked(x, index, ptr, dim_size)
        layer = self.layer
        x = torch.cat([x.to(layer.weight.dtype), x.new_zeros(1, x.shape[1], dtype=layer.weight.dtype)])  # row -1: 0
        out = x.new_zeros(len(sizes), layer.n_hidden_sets)
        for group in size_groups(sizes.cpu(), self.max_padding):
            group = group.to(x.device)
            lengths = sizes[group]
            local = torch.arange(int(lengths.max()), device=x.device)
            rows = torch.where(local < lengths[:, None], starts[group][:, None] + local, len(x) - 1)   # (G, n)
            out = out.index_copy(0, group, layer(x[rows], lengths))
        return out


def _stacked(x: torch.Tensor, index: torch.Tensor | None, ptr: torch.Tensor | None, dim_size: int | None):
    """``x`` sorted by set, each set's first row and size (B,) from ``index`` or ``ptr``."""
    if ptr is not None:
        ptr = ptr.to(device=x.device, dtype=torch.long)
        if ptr.dim() != 1 or len(ptr) < 1 or int(ptr[0]) != 0 or int(ptr[-1]) != len(x) or bool((ptr[1:] < ptr[:-1]).any()):
            raise ValueError(f"ptr must be nondecreasing from 0 to {len(x)} (the number of elements)")
        if dim_size is not None and dim_size != len(ptr) - 1:
            raise ValueError(f"dim_size {dim_size} disagrees with ptr's {len(ptr) - 1} sets")
        return x, ptr[:-1], ptr[1:] - ptr[:-1]
    if index is None:
        index = torch.zeros(len(x), dtype=torch.long, device=x.device)
    index = index.to(device=x.device, dtype=torch.long)
    if index.shape != (len(x),):
        raise ValueError(f"index must have shape ({len(x)},), got {tuple(index.shape)}")
    if len(index) and int(index.min()) < 0:
        raise ValueError("index must be nonnegative")
    needed = int(index.max()) + 1 if len(index) else 0
    dim_size = needed if dim_size is None else int(dim_size)
    if dim_size < needed:
        raise ValueError(f"dim_size {dim_size} is smaller than index's largest set {needed - 1} + 1")
    if len(index) > 1 and bool((index[1:] < index[:-1]).any()):
        order = torch.argsort(index, stable=True)
        x, index = x[order], index[order]
    sizes = torch.bincount(index, minlength=dim_size)
    return x, torch.cumsum(sizes, 0) - sizes, sizes


class RepSetAggregation(HiddenSetAggregation):
    """:class:`RepSet` as an aggregation: arguments as :class:`RepSet`'s, plus ``max_padding``."""

    def __init__(self, in_channels: int, n_hidden_sets: int, hidden_set_size, max_padding: float = 0.25,
                 **options) -> None:
        super().__init__(RepSet(in_channels, n_hidden_sets, hidden_set_size, **options), max_padding)


class ApproxRepSetAggregation(HiddenSetAggregation):
    """:class:`ApproxRepSet` as an aggregation: arguments as :class:`ApproxRepSet`'s, plus ``max_padding``."""

    def __init__(self, in_channels: int, n_hidden_sets: int, hidden_set_size, max_padding: float = 0.25,
                 **options) -> None:
        super().__init__(ApproxRepSet(in_channels, n_hidden_sets, hidden_set_size, **options), max_padding)
