"""Ragged SetDataset (construction checks, batches, subsets), padding helpers and batch validation."""
import numpy as np
import pytest
import torch

from repset.sets import SetDataset, check_set_batch, length_mask, pad_sets


def test_pad_sets_and_mask():
    V, lengths = pad_sets([torch.ones(2, 3), torch.ones(4, 3), torch.ones(1, 3)])
    assert V.shape == (3, 4, 3) and lengths.tolist() == [2, 4, 1]
    assert torch.equal(length_mask(lengths, 4).sum(1), lengths)
    assert V.sum().item() == 3 * (2 + 4 + 1)


def test_pad_sets_errors():
    with pytest.raises(ValueError, match="at least one set"):
        pad_sets([])
    with pytest.raises(ValueError, match="common d"):
        pad_sets([torch.ones(2, 3), torch.ones(2, 4)])


def test_check_zeroes_padding_and_defaults_lengths():
    V = torch.full((2, 3, 2), 7.0)
    V[1, 2] = float("nan")
    out, lengths = check_set_batch(V, torch.tensor([3, 2]), 2)
    assert out[1, 2].tolist() == [0.0, 0.0] and torch.isfinite(out).all()
    _, full = check_set_batch(torch.ones(2, 3, 2), None, 2)
    assert full.tolist() == [3, 3]
    with pytest.raises(ValueError, match="empty batch"):
        check_set_batch(torch.ones(0, 3, 2), None, 2)



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


def test_negative_lengths_are_named_as_such():
    with pytest.raises(ValueError, match="lengths must be >= 1, got negative lengths at sets \\[1\\]"):
        check_set_batch(torch.ones(2, 3, 4), torch.tensor([2, -1]), 4)
    with pytest.raises(ValueError, match="empty sets are not allowed"):
        check_set_batch(torch.ones(2, 3, 4), torch.tensor([2, 0]), 4)
