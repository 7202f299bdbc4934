"""The paper's synthetic toy: identical centroids and sums, perfectly learned by RepSet."""
import numpy as np

from repset.bench.toy import TOY_SETS, ToyConfig, train_toy


def test_sets_share_centroid_and_sum():
    assert np.allclose(TOY_SETS.mean(1), TOY_SETS.mean(1)[0]) and np.allclose(TOY_SETS.sum(1), TOY_SETS.sum(1)[0])


def test_repset_learns_the_toy_perfectly():
    model, metrics = train_toy(ToyConfig(epochs=300, seed=0))
    assert metrics["train"]["accuracy"] == 1.0 and metrics["epochs_run"] == 300
    assert [tuple(h.shape) for h in model.layer.hidden_sets()] == [(2, 2), (2, 2)]
