"""Sets, the ground everything stands on: ragged datasets (:class:`SetDataset`), padded batches, masks,
and the input checks of the layers."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["SetDataset", "pad_sets", "length_mask", "check_set_batch", "check_indexed_batch", "check_finite_output"]


def pad_sets(sets: Sequence[torch.Tensor], dtype: torch.dtype | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad a list of ``(n_i, d)`` tensors to ``V`` of shape ``(B, max n_i, d)`` (zeros) and ``lengths`` ``(B,)``."""
    if len(sets) == 0:
        raise ValueError("sets: need at least one set")
    dims = {tuple(s.shape[1:]) for s in sets}
    if any(s.ndim != 2 for s in sets) or len(dims) != 1:
        raise ValueError(f"sets: every set must have shape (n_i, d) with one common d, got shapes "
                         f"{sorted({tuple(s.shape) for s in sets})[:5]}")
    lengths = torch.tensor([s.shape[0] for s in sets], dtype=torch.long)
    V = torch.nn.utils.rnn.pad_sequence(list(sets), batch_first=True)
    return (V if dtype is None else V.to(dtype)), lengths


def length_mask(lengths: torch.Tensor, n: int) -> torch.Tensor:
    """Boolean ``(B, n)``: True at the valid (non-padding) elements."""
    return torch.arange(n, device=lengths.device)[None, :] < lengths[:, None]


def _check_lengths(lengths: torch.Tensor | None, B: int, N: int, device) -> torch.Tensor:
    """``lengths`` (B,) as int64 (default: all N); ValueError unless every length lies in [1, N]."""
    if lengths is None:
        lengths = torch.full((B,), N, dtype=torch.long, device=device)
    else:
        lengths = torch.as_tensor(lengths, device=device)
        if lengths.shape != (B,) or lengths.is_floating_point():
            raise ValueError(f"lengths must be integers of shape ({B},), got {lengths.dtype} {tuple(lengths.shape)}")
        lengths = lengths.long()
    if B == 0:
        raise ValueError("V: empty batch")
    if (lengths < 0).any():
        raise ValueError(f"lengths must be >= 1, got negative lengths at sets {torch.nonzero(lengths < 0).flatten().tolist()[:10]}")
    if (lengths < 1).any():
        raise ValueError(f"lengths: empty sets are not allowed (sets {torch.nonzero(lengths < 1).flatten().tolist()[:10]})")
    if (lengths > N).any():
        raise ValueError(f"lengths: values exceed the padded set size N={N}")
    return lengths


def check_set_batch(V: torch.Tensor, lengths: torch.Tensor | None, in_dim: int,
                    dtype: torch.dtype | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Validate a padded batch ``V`` (B, N, d) with ``lengths`` (B,); return ``(V with zero padding, lengths)``.

    Raises ValueError naming the argument: wrong rank, feature size or dtype (``dtype``: the layer's
    parameters'), lengths out of ``[1, N]`` (empty sets are rejected: a set representation of nothing is
    undefined), NaN or inf in a valid element. Padding may hold anything; it is replaced by zeros.
    """
    if not isinstance(V, torch.Tensor) or V.ndim != 3:
        raise ValueError(f"V must be a tensor of shape (batch, set size, {in_dim}), got "
                         f"{tuple(V.shape) if isinstance(V, torch.Tensor) else type(V).__name__}")
    B, N, d = V.shape
    if d != in_dim:
        raise ValueError(f"V has feature size {d}, the layer expects in_dim={in_dim}")
    if not V.is_floating_point():
        raise ValueError(f"V must be floating point, got {V.dtype}")
    if dtype is not None and V.dtype != dtype:
        raise ValueError(f"V has dtype {V.dtype} but the layer's parameters are {dtype}: pass V.to({dtype}) "
                         f"or convert the layer with layer.to({V.dtype})")
    lengths = _check_lengths(lengths, B, N, V.device)
    if bool((lengths < N).any()):
        mask = length_mask(lengths, N)
        V = torch.where(mask[:, :, None], V, torch.zeros((), dtype=V.dtype, device=V.device))
    # one reduction: a NaN or inf anywhere makes the sum non-finite (the exact check confirms overflow cases)
    if not torch.isfinite(V.sum()) and not torch.isfinite(V).all():
        raise ValueError("V contains NaN or infinite values in valid (non-padding) elements")
    return V, lengths


def check_indexed_batch(E: torch.Tensor, element_ids: torch.Tensor, lengths: torch.Tensor | None, in_dim: int,
                        dtype: torch.dtype | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Validate a batch given as distinct elements ``E`` (U, d) and ``element_ids`` (B, N): element ``i``
    of set ``b`` is ``E[element_ids[b, i]]`` for ``i < lengths[b]``. Return ``(element_ids as int64 with
    padding entries set to 0, lengths)``; errors as :func:`check_set_batch`, plus ids out of ``[0, U)``.
    """
    if not isinstance(E, torch.Tensor) or E.ndim != 2:
        raise ValueError(f"with element_ids, V must be the distinct elements of shape (U, {in_dim}), got "
                         f"{tuple(E.shape) if isinstance(E, torch.Tensor) else type(E).__name__}")
    if not isinstance(element_ids, torch.Tensor) or element_ids.ndim != 2 or element_ids.is_floating_point():
        raise ValueError("element_ids must be an integer tensor of shape (batch, set size)")
    if E.shape[1] != in_dim:
        raise ValueError(f"V has feature size {E.shape[1]}, the layer expects in_dim={in_dim}")
    if not E.is_floating_point() or (dtype is not None and E.dtype != dtype):
        raise ValueError(f"V must be floating point of the layer's dtype {dtype}, got {E.dtype}")
    lengths = _check_lengths(lengths, *element_ids.shape, E.device)
    ids = torch.where(length_mask(lengths, element_ids.shape[1]), element_ids.to(E.device).long(), 0)
    if len(E) == 0 or int(ids.min()) < 0 or int(ids.max()) >= len(E):
        raise ValueError(f"element_ids must lie in [0, {len(E)}) (rows of V) within each set's length")
    if not torch.isfinite(E.sum()) and not torch.isfinite(E).all():
        raise ValueError("V (the distinct elements) contains NaN or infinite values")
    return ids, lengths


def check_finite_output(x: torch.Tensor, layer: str) -> torch.Tensor:
    """``x`` unchanged; ValueError when it holds NaN or inf although the input was finite (an overflow
    inside ``layer``: the input or the weights are too large for their dtype)."""
    if not torch.isfinite(x).all():
        raise ValueError(f"{layer}: the output is NaN or infinite for a finite input: values overflow "
                         f"{x.dtype} inside the layer; rescale the input (or use float64)")
    return x


@dataclass
class SetDataset:
    """N sets of d-dim elements stored ragged.

    Attributes:
        values: float tensor ``(total elements, d)``; set i is ``values[offsets[i]:offsets[i+1]]``.
        offsets: int64 ``(N + 1,)``, nondecreasing, ``offsets[0] == 0``, ``offsets[-1] == total``.
        labels: int64 ``(N,)`` class indices in ``[0, C)``.
        element_ids: optional int64 ``(total,)``: the identity of each element (a word's vocabulary
            index); equal ids have equal rows of ``values`` (checked). With them, :meth:`indexed_batch`
            hands each distinct element of a batch to the layers once.
    """

    values: torch.Tensor
    offsets: torch.Tensor
    labels: torch.Tensor
    element_ids: torch.Tensor | None = None

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
        if self.element_ids is not None:
            self._check_element_ids()

    def _check_element_ids(self) -> None:
        """ValueError unless ``element_ids`` has one nonnegative integer per element and equal ids mark
        equal rows of ``values``; keeps, per id, the position of one of its rows."""
        ids = torch.as_tensor(self.element_ids)
        if ids.shape != (len(self.values),) or ids.is_floating_point() or (len(ids) and int(ids.min()) < 0):
            raise ValueError(f"element_ids must be {len(self.values)} nonnegative integers (one per element), got "
                             f"{ids.dtype} {tuple(ids.shape)}")
        self.element_ids = ids.long()
        self._row_of_id = torch.zeros(int(ids.max()) + 1 if len(ids) else 0, dtype=torch.long)
        self._row_of_id[self.element_ids] = torch.arange(len(ids))   # one position per id (any)
        if not torch.equal(self.values[self._row_of_id[self.element_ids]], self.values):
            raise ValueError("element_ids: elements with equal ids must have equal values")

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
        pos, mask, lengths = self._padded_positions(index)
        rows = pos[mask]                              # the sets' elements, in order
        ids = None if self.element_ids is None else self.element_ids[rows]
        return SetDataset(self.values[rows], torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)]),
                          self.labels[index], ids)

    def _padded_positions(self, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(positions (B, width) in values, clamped in range at padding; valid mask; lengths)``."""
        starts, lengths = self.offsets[index], self.lengths()[index]
        width = int(lengths.max()) if len(index) else 0
        pos = starts[:, None] + torch.arange(width)[None, :]
        mask = torch.arange(width)[None, :] < lengths[:, None]
        return pos.clamp(max=max(len(self.values) - 1, 0)), mask, lengths

    def batch(self, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Padded ``V`` (B, max length, d) with zero padding, and ``lengths`` (B,), for sets ``index``."""
        pos, mask, lengths = self._padded_positions(index)
        V = self.values.index_select(0, pos.reshape(-1)).view(len(index), pos.shape[1], self.values.shape[1])
        if not bool(mask.all()):   # one in-place pass zeroes the padding (none for equal sizes)
            V.masked_fill_(~mask[..., None], 0)
        return V, lengths

    def indexed_batch(self, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The sets ``index`` as ``(E (U, d), element_ids (B, max length), lengths (B,))``: ``E`` holds
        the batch's U distinct elements once each (needs ``element_ids``); element i of set b is
        ``E[element_ids[b, i]]`` (0 at padding). The layers' ``forward(E, lengths, element_ids=...)``."""
        if self.element_ids is None:
            raise ValueError("indexed_batch needs a SetDataset with element_ids")
        pos, mask, lengths = self._padded_positions(index)
        ids = self.element_ids[pos]
        distinct, local = torch.unique(ids[mask], return_inverse=True)
        local_ids = torch.zeros_like(ids)
        local_ids[mask] = local
        return self.values.index_select(0, self._row_of_id[distinct]), local_ids, lengths
