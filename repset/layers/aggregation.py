"""RepSet and ApproxRepSet as PyTorch Geometric style aggregations: ``aggr(x, index)`` or ``aggr(x, ptr=ptr)``
on ragged input (the elements of all sets stacked, ``x`` of shape ``(total, d)``), no padded copy of the
input.

    from repset.layers.aggregation import RepSetAggregation
    aggr = RepSetAggregation(64, 20, hidden_set_size=10, solver="numba")   # in_channels, out_channels (= m)
    out = aggr(node_features, batch)            # (num_graphs, 20), as torch_geometric.nn.aggr.SumAggregation

The sets are taken in groups of similar size (:func:`size_groups`), each group gathered from the stacked
elements into the layer's padded form with at most ``max_padding`` of its rows padding (0: only sets of
one size share a call), and run through the layer itself: its kernels, its grad mode, values and
gradients equal to the padded layer's on the whole batch, at a fraction of the work where sizes vary
(a batch of 64 REDDIT-BINARY graphs padded to its largest is about 80 % padding). When ``torch_geometric`` is
installed the classes are :class:`torch_geometric.nn.aggr.Aggregation` subclasses: a drop-in wherever
PyG takes an aggregation module. ``index`` must be integers in ``[0, dim_size)``; a set with no element
(an empty graph) raises ValueError, as an empty set does in the padded layer.
"""
from __future__ import annotations

from collections.abc import Sequence

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
    names each element's set (integers in ``[0, dim_size)``, need not be sorted); ``ptr`` (B + 1,)
    gives sorted sets' boundaries. Every set must have an element (ValueError otherwise, as the
    padded layer's empty set); no set at all gives ``(0, m)``."""

    def __init__(self, layer: HiddenSetLayer, max_padding: float = 0.25) -> None:
        super().__init__()
        if not isinstance(layer, HiddenSetLayer):
            raise TypeError(f"layer must be a RepSet or ApproxRepSet, got {type(layer).__name__}")
        if not 0 <= max_padding < 1:
            raise ValueError(f"max_padding must lie in [0, 1), got {max_padding}")
        self.layer, self.max_padding = layer, float(max_padding)

    @property
    def in_channels(self) -> int:
        """The elements' feature size d."""
        return self.layer.in_dim

    @property
    def out_channels(self) -> int:
        """The output's feature size, one per hidden set (m)."""
        return self.layer.n_hidden_sets

    def reset_parameters(self) -> None:
        self.layer.reset_parameters()

    def forward(self, x: torch.Tensor, index: torch.Tensor | None = None, ptr: torch.Tensor | None = None,
                dim_size: int | None = None, dim: int = -2, max_num_elements: int | None = None) -> torch.Tensor:
        if x.dim() != 2 or dim not in (-2, 0):
            raise ValueError(f"x must be (elements, d) aggregated over dim -2, got shape {tuple(x.shape)}, dim={dim}")
        if x.shape[1] != self.layer.in_dim:
            raise ValueError(f"x has {x.shape[1]} features, the layer expects {self.layer.in_dim}")
        x, starts, sizes = _stacked(x, index, ptr, dim_size)
        if len(sizes) and bool((sizes == 0).any()):
            raise ValueError(f"empty sets are not allowed (sets {torch.nonzero(sizes == 0).flatten().tolist()[:10]} "
                             "have no element), as in the padded layer")
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

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.layer!r}, max_padding={self.max_padding})"


def _stacked(x: torch.Tensor, index: torch.Tensor | None, ptr: torch.Tensor | None, dim_size: int | None):
    """``x`` sorted by set, each set's first row and size (B,) from ``index`` or ``ptr``."""
    for name, tensor in (("index", index), ("ptr", ptr)):
        if tensor is not None and (tensor.is_floating_point() or tensor.is_complex() or tensor.dtype == torch.bool):
            raise TypeError(f"{name} must be an integer tensor, got {tensor.dtype}")
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


class _NamedAggregation(HiddenSetAggregation):
    """A hidden-set layer built from PyG-style arguments: ``in_channels`` (d), ``out_channels`` (m, the
    number of hidden sets; ``n_hidden_sets=`` is accepted too), ``hidden_set_size`` and the layer's options."""

    layer_class: type[HiddenSetLayer]

    def __init__(self, in_channels: int, out_channels: int | None = None,
                 hidden_set_size: int | Sequence[int] | None = None, max_padding: float = 0.25, *,
                 n_hidden_sets: int | None = None, **options) -> None:
        if (out_channels is None) == (n_hidden_sets is None):
            raise TypeError(f"{type(self).__name__} takes out_channels (the number of hidden sets) or "
                            f"n_hidden_sets, exactly one, got {out_channels!r} and {n_hidden_sets!r}")
        if hidden_set_size is None:
            raise TypeError(f"{type(self).__name__} needs hidden_set_size")
        m = out_channels if out_channels is not None else n_hidden_sets
        super().__init__(self.layer_class(in_channels, m, hidden_set_size, **options), max_padding)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.in_channels}, {self.out_channels}, {self.layer.options_repr()}, "
                f"max_padding={self.max_padding})")


class RepSetAggregation(_NamedAggregation):
    """:class:`RepSet` as an aggregation: ``(in_channels, out_channels, hidden_set_size, max_padding,
    **RepSet options)``, ``out_channels`` hidden sets."""

    layer_class = RepSet


class ApproxRepSetAggregation(_NamedAggregation):
    """:class:`ApproxRepSet` as an aggregation: ``(in_channels, out_channels, hidden_set_size, max_padding,
    **ApproxRepSet options)``, ``out_channels`` hidden sets."""

    layer_class = ApproxRepSet
