"""Ragged set datasets in memory: values + offsets + labels, and padded mini-batches."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["SetDataset"]


@dataclass
class SetDataset:
    """N sets of d-dim elements stored ragged.

    Attributes:
        values: float tensor ``(total elements, d)``; set i is ``values[offsets[i]:offsets[i+1]]``.
        offsets: int64 ``(N + 1,)``, nondecreasing, ``offsets[0] == 0``, ``offsets[-1] == total``.
        labels: int64 ``(N,)`` class indices in ``[0, C)``.
    """

    values: torch.Tensor
    offsets: torch.Tensor
    labels: torch.Tensor

    def __post_init__(self) -> None:
        self.values = torch.as_tensor(self.values)
        self.offsets = torch.as_tensor(self.offsets, dtype=torch.long)
        self.labels = torch.as_tensor(self.labels, dtype=torch.long)
        if self.values.ndim != 2:
            raise ValueError(f"values must have shape (total, d), got {tuple(self.values.shape)}")
        o = self.offsets
        if o.ndim != 1 or len(o) != len(self.labels) + 1 or o[0] != 0 or o[-1] != len(self.values) or (o[1:] < o[:-1]).any():
            raise ValueError("offsets must be nondecreasing, start at 0, end at len(values), and have len(labels) + 1 entries")
        if (self.labels < 0).any():
            raise ValueError("labels must be nonnegative class indices")

    @classmethod
    def from_sets(cls, sets: Sequence[np.ndarray | torch.Tensor], labels: Sequence[int]) -> "SetDataset":
        """Build from a list of ``(n_i, d)`` arrays and their labels."""
        if len(sets) != len(labels):
            raise ValueError(f"sets and labels differ in length: {len(sets)} != {len(labels)}")
        tensors = [torch.as_tensor(np.asarray(s), dtype=torch.float32) for s in sets]
        offsets = np.concatenate([[0], np.cumsum([len(t) for t in tensors])])
        return cls(torch.cat(tensors), torch.from_numpy(offsets), torch.as_tensor(list(labels)))

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def dim(self) -> int:
        return self.values.shape[1]

    @property
    def n_classes(self) -> int:
        return int(self.labels.max()) + 1

    def lengths(self) -> torch.Tensor:
        return self.offsets[1:] - self.offsets[:-1]

    def subset(self, index: Sequence[int] | np.ndarray | torch.Tensor) -> "SetDataset":
        """The sets at ``index`` as a new dataset (copies their elements)."""
        index = torch.as_tensor(np.asarray(index), dtype=torch.long)
        V, lengths = self.batch(index)
        mask = torch.arange(V.shape[1])[None, :] < lengths[:, None]
        return SetDataset(V[mask], torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)]), self.labels[index])

    def batch(self, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Padded ``V`` (B, max length, d) with zero padding, and ``lengths`` (B,), for sets ``index``."""
        starts, lengths = self.offsets[index], self.lengths()[index]
        width = int(lengths.max()) if len(index) else 0
        pos = starts[:, None] + torch.arange(width)[None, :]
        mask = torch.arange(width)[None, :] < lengths[:, None]
        flat = pos.clamp(max=max(len(self.values) - 1, 0)).reshape(-1)
        V = self.values.index_select(0, flat).view(len(index), width, self.values.shape[1])
        if not bool(mask.all()):   # one in-place pass zeroes the padding (none for equal sizes)
            V.masked_fill_(~mask[..., None], 0)
        return V, lengths
