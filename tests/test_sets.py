"""Ragged SetDataset (construction checks, batches, subsets), padding helpers and batch validation."""
import numpy as np
import pytest
import torch

from repset.sets import SetDataset, check_indexed_batch, check_set_batch, length_mask, pad_sets


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


def word_sets(seed=0, vocabulary=9, sizes=(4, 1, 6, 3, 5)):
    """Sets of words drawn from one vocabulary (with repeats across sets), with their ids."""
    g = torch.Generator().manual_seed(seed)
    vectors = torch.randn(vocabulary, 3, generator=g)
    ids = [torch.randperm(vocabulary, generator=g)[:n] for n in sizes]
    offsets = torch.tensor([0, *np.cumsum(sizes)])
    return SetDataset(torch.cat([vectors[i] for i in ids]), offsets, torch.arange(len(sizes)) % 2, torch.cat(ids))


def test_indexed_batch_holds_each_distinct_element_once_and_rebuilds_the_padded_batch():
    data = word_sets()
    index = torch.tensor([3, 0, 2, 1])
    V, lengths = data.batch(index)
    E, ids, lengths2 = data.indexed_batch(index)
    mask = length_mask(lengths, V.shape[1])
    assert torch.equal(lengths, lengths2) and ids.shape == mask.shape
    assert torch.equal(E[ids][mask], V[mask])                       # the same elements, in order
    assert len(E) == len(torch.unique(data.element_ids[torch.cat([torch.arange(*data.offsets[i:i + 2].tolist()) for i in index.tolist()])]))
    assert len(torch.unique(E, dim=0)) == len(E) < int(lengths.sum())   # shared words appear once
    assert (ids[~mask] == 0).all()


def test_element_ids_are_checked_and_kept_by_subsets():
    data = word_sets()
    sub = data.subset([2, 4])
    assert torch.equal(sub.element_ids, torch.cat([data.element_ids[5:11], data.element_ids[14:19]]))
    E, ids, lengths = sub.indexed_batch(torch.tensor([0, 1]))
    assert torch.equal(E[ids[1, :5]], data.values[14:19])
    wrong = data.element_ids.clone()
    wrong[0] = wrong[5] if wrong[5] != wrong[0] else wrong[6]        # one id now names two different vectors
    with pytest.raises(ValueError, match="equal ids must have equal values"):
        SetDataset(data.values, data.offsets, data.labels, wrong)
    with pytest.raises(ValueError, match="element_ids must be 19 nonnegative integers"):
        SetDataset(data.values, data.offsets, data.labels, data.element_ids[:-1])
    with pytest.raises(ValueError, match="indexed_batch needs"):
        make().indexed_batch(torch.tensor([0]))


def test_check_indexed_batch_names_bad_input():
    E = torch.randn(4, 3)
    ids = torch.tensor([[0, 3, 9], [1, 2, 2]])             # 9 is padding in set 0 (length 2)
    out, lengths = check_indexed_batch(E, ids, torch.tensor([2, 3]), 3)
    assert out.tolist() == [[0, 3, 0], [1, 2, 2]] and lengths.tolist() == [2, 3]
    with pytest.raises(ValueError, match=r"element_ids must lie in \[0, 4\)"):
        check_indexed_batch(E, ids, None, 3)
    with pytest.raises(ValueError, match="feature size 3, the layer expects in_dim=5"):
        check_indexed_batch(E, ids, None, 5)
    with pytest.raises(ValueError, match="element_ids must be an integer tensor"):
        check_indexed_batch(E, ids.float(), None, 3)
    with pytest.raises(ValueError, match="empty sets"):
        check_indexed_batch(E, ids, torch.tensor([0, 3]), 3)
    E[1, 1] = float("inf")
    with pytest.raises(ValueError, match="NaN or infinite"):
        check_indexed_batch(E, ids, torch.tensor([2, 3]), 3)
