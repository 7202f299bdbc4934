"""Cross-split duplicates: a test set whose element multiset is in the training or validation part."""
import numpy as np
import pytest
import torch

from repset.datasets.duplicates import cross_split_duplicates, set_keys
from repset.sets import SetDataset


def word_sets(docs, labels):
    ids = torch.tensor([w for d in docs for w in d])
    values = torch.eye(10)[ids]                                   # word w's vector: row w of the identity
    offsets = np.concatenate([[0], np.cumsum([len(d) for d in docs])])
    return SetDataset(values, torch.from_numpy(offsets), torch.tensor(labels), element_ids=ids)


def test_duplicates_are_found_in_any_order_and_their_labels_compared():
    data = word_sets([[1, 2, 2], [3], [2, 1, 2], [3], [4, 5], [1, 2]], [0, 1, 0, 0, 1, 0])
    assert set_keys(data)[0] == set_keys(data)[2] != set_keys(data)[5]            # multisets, not sets
    split = {"train": np.array([0, 1]), "val": np.array([4]), "test": np.array([2, 3, 5])}
    # set 2 repeats set 0 (same label); set 3 repeats set 1 (other label); set 5 is new
    assert cross_split_duplicates(data, split) == {"test": 3, "duplicated": 2, "same_label": 1}


def test_sets_without_ids_are_refused():
    with pytest.raises(ValueError, match="need element ids"):
        set_keys(SetDataset.from_sets([np.ones((2, 3))], [0]))
