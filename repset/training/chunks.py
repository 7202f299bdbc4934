"""How a batch of sets is cut into the calls that compute it: whole and padded to its largest set (the
original path), or in groups of similar size (:func:`~repset.layers.aggregation.size_groups`) and under
a bound on the padded elements of one call (B x N_max), so that neither padding nor one huge batch sets
the time and memory. The sets of a model are independent, so every cut gives the same values and
gradients up to float rounding (the sums run in another order)."""
from __future__ import annotations

import torch

from repset.layers.aggregation import size_groups

__all__ = ["RAGGED_PADDING", "EVAL_BATCH", "chunks", "eval_batches"]

#: at most this fraction of a ragged call's rows is padding (the aggregation's default)
RAGGED_PADDING = 0.25
#: sets per evaluation batch (sorted by size) before the element bound cuts further: the original value
EVAL_BATCH = 256


def chunks(lengths: torch.Tensor, ragged: bool, max_elements: int | None) -> list[torch.Tensor]:
    """Positions (into ``lengths``, (B,) CPU long: elements per set) of the calls that compute one batch.

    Not ragged and within ``max_elements`` (sets x largest size; None: no bound): ``[arange(B)]``, the
    batch as it is (the original path, op for op). Else groups of similar size with at most
    :data:`RAGGED_PADDING` padding, in increasing size (empty sets join the first group), each cut (in
    size order) so that sets x largest size <= ``max_elements`` (a larger set gets a call of its own).
    Every position appears exactly once."""
    n = len(lengths)
    if not ragged and (max_elements is None or n * (int(lengths.max()) if n else 0) <= max_elements):
        return [torch.arange(n)]
    groups = size_groups(lengths, RAGGED_PADDING)
    empty = torch.nonzero(lengths <= 0).flatten()
    if len(empty):
        groups = [torch.cat([empty, groups[0]])] + groups[1:] if groups else [empty]
    if max_elements is None:
        return groups
    out = []
    for group in groups:                    # sorted by size within: each cut's last set is its largest
        start = 0
        sizes = lengths[group].tolist()
        for end in range(1, len(group) + 1):
            if end - start > 1 and (end - start) * max(sizes[end - 1], 1) > max_elements:
                out.append(group[start:end - 1])
                start = end - 1
        out.append(group[start:])
    return out


def eval_batches(lengths: torch.Tensor, ragged: bool = False, max_elements: int | None = None) -> list[torch.Tensor]:
    """Evaluation calls over a dataset with set sizes ``lengths`` (N,): all sets sorted by size, cut into
    :data:`EVAL_BATCH` sets, each cut further by :func:`chunks` (no bound and not ragged: the original
    256-set batches, whatever their padded size)."""
    order = torch.argsort(lengths, stable=True)
    return [batch[part] for batch in order.split(EVAL_BATCH) for part in chunks(lengths[batch], ragged, max_elements)]
