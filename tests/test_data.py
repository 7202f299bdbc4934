"""Ragged SetDataset: construction checks, batches, subsets."""
import numpy as np
import pytest
import torch

from repset.data import SetDataset


def make():
    sets = [np.full((n, 2), i, dtype=np.float32) for i, n in enumerate([3, 1, 2])]
    return SetDataset.from_sets(sets, [0, 1, 1])


def test_batch_pads_with_zeros_in_order():
    data = make()
    V, lengths = data.batch(torch.tensor([2, 0]))
    assert lengths.tolist() == [2, 3] and V.shape == (2, 3, 2)
    assert V[0, :2].eq(2).all() and V[0, 2].eq(0).all() and V[1].eq(0).all()
    assert data.dim == 2 and data.n_classes == 2 and len(data) == 3


def test_subset_round_trip():
    data = make()
    sub = data.subset([1, 2])
    assert sub.labels.tolist() == [1, 1] and sub.lengths().tolist() == [1, 2]
    assert sub.values[:, 0].tolist() == [1, 2, 2]


def test_invalid_offsets_and_labels():
    with pytest.raises(ValueError, match="offsets"):
        SetDataset(torch.zeros(3, 2), torch.tensor([0, 2, 1, 3]), torch.tensor([0, 0, 0]))
    with pytest.raises(ValueError, match="values must have shape"):
        SetDataset(torch.zeros(3), torch.tensor([0, 3]), torch.tensor([0]))
    with pytest.raises(ValueError, match="labels"):
        SetDataset(torch.zeros(3, 2), torch.tensor([0, 3]), torch.tensor([-1]))
    with pytest.raises(ValueError, match="differ in length"):
        SetDataset.from_sets([np.ones((1, 2))], [0, 1])
