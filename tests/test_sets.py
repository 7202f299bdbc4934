"""Padding helpers and batch validation."""
import pytest
import torch

from repset.sets import check_set_batch, length_mask, pad_sets


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
