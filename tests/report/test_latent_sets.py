"""Nearest words of hidden sets."""
import numpy as np
import pytest
import torch

from repset.report.latent_sets import most_used_hidden_sets, nearest_words
from repset.layers import RepSet
from repset.training.classifier import SetClassifier


def test_nearest_words_finds_planted_directions():
    vocab = ["east", "west", "north", "south"]
    vectors = np.eye(4, dtype=np.float32)
    hidden = [np.array([[2.0, 0.1, 0, 0], [0, 0, 3.0, 0.2]]), np.array([[0, 0, 0.1, 1.0]])]
    table = nearest_words(hidden, vectors, vocab)
    assert table["element_words"].tolist() == ["east, north", "south"]
    assert table["centroid_word"].tolist() == ["north", "south"]
    with pytest.raises(ValueError, match="vocab has 3 words"):
        nearest_words(hidden, vectors, vocab[:3])


def test_most_used_hidden_sets_by_weight_norm():
    model = SetClassifier(RepSet(3, 4, 2), n_classes=2)
    with torch.no_grad():
        model.head[0].weight.copy_(torch.tensor([[0.1, 3.0, 0.0, 1.0], [0.1, 0.0, 0.2, 1.0]]))
    assert most_used_hidden_sets(model, 2) == [1, 3]
