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


def test_latent_table_reads_displacement_beside_trained_elements():
    from repset.report.latent_sets import latent_table

    vocab = ["east", "west", "north", "south"]
    vectors = np.eye(4, dtype=np.float32)
    initial = [np.array([[5.0, 0.0, 0.0, 0.0]])]
    trained = [np.array([[5.0, 0.0, 1.0, 0.0]])]   # still nearest "east"; moved toward "north"
    table = latent_table(trained, initial, vectors, vocab)
    assert table.loc[0, "element_words"] == "east" and table.loc[0, "displacement_words"] == "north"
    assert table.loc[0, "displacement_centroid_word"] == "north"
    with pytest.raises(ValueError, match="1 trained hidden sets but 2 initial"):
        latent_table(trained, initial * 2, vectors, vocab)


def test_class_directions_and_alignment():
    from repset.report.latent_sets import class_alignment, class_directions
    from repset.sets import SetDataset

    # class 0 sets hold (1, 0) elements, class 1 sets hold (0, 1): directions +-(0.5, -0.5)
    data = SetDataset.from_sets([np.array([[1.0, 0.0]] * 2), np.array([[0.0, 1.0]] * 2)], [0, 1])
    directions = class_directions(data)
    np.testing.assert_allclose(directions, [[0.5, -0.5], [-0.5, 0.5]])
    assert class_alignment(np.array([[1.0, -1.0], [-2.0, 2.0]]), directions) == pytest.approx(1.0)
    assert class_alignment(np.array([[1.0, 1.0]]), directions) == pytest.approx(0.0, abs=1e-12)
    # an absent class (label 2 unused) gives a zero row, which no element aligns with
    absent = SetDataset.from_sets([np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])], [0, 2])
    assert np.all(class_directions(absent)[1] == 0)
