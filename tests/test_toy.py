"""The paper's synthetic toy: identical centroids and sums, perfectly learned by RepSet."""
import numpy as np

from repset.toy import TOY_SETS, ToyConfig, plot_toy, train_toy


def test_sets_share_centroid_and_sum():
    assert np.allclose(TOY_SETS.mean(1), TOY_SETS.mean(1)[0]) and np.allclose(TOY_SETS.sum(1), TOY_SETS.sum(1)[0])


def test_repset_learns_the_toy_perfectly_and_plots(tmp_path):
    model, metrics = train_toy(ToyConfig(epochs=300, seed=0))
    assert metrics["train"]["accuracy"] == 1.0
    plot_toy(model, tmp_path / "toy.pdf", tmp_path / "toy.png")
    assert (tmp_path / "toy.pdf").read_bytes()[:4] == b"%PDF"
    assert (tmp_path / "toy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy.pdf", "toy.png"]
