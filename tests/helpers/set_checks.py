"""Shared checks of set models: permutation invariance, padding, overfitting a tiny dataset."""
import numpy as np
import torch

from repset.sets import SetDataset
from repset.training.classifier import SetClassifier, build_layer
from repset.training.trainer import TrainConfig, evaluate, fit, seed_everything


def permute_within_sets(V: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """A copy of the padded batch ``V`` with the valid elements of every set shuffled."""
    Vp = V.clone()
    for b, n in enumerate(lengths.tolist()):
        Vp[b, :n] = V[b, torch.randperm(n)]
    return Vp


def assert_permutation_invariant(layer, V: torch.Tensor, lengths: torch.Tensor, atol: float = 1e-12) -> None:
    assert torch.allclose(layer(permute_within_sets(V, lengths), lengths), layer(V, lengths), atol=atol)


def assert_overfits_tiny_dataset(layer_name: str, lr: float, epochs: int = 100, **options) -> None:
    """8 random sets of 2-6 elements in 3 classes: 100 % training accuracy."""
    seed_everything(0)
    g = torch.Generator().manual_seed(0)
    sets = [torch.randn(int(torch.randint(2, 7, (1,), generator=g)), 5, generator=g) for _ in range(8)]
    data = SetDataset.from_sets(sets, [0, 1, 2, 0, 1, 2, 0, 1])
    model = SetClassifier(build_layer(layer_name, 5, **options), 3)
    fit(model, data, TrainConfig(epochs=epochs, batch_size=8, lr=lr, patience=None, seed=0))
    assert evaluate(model, data)["accuracy"] == 1.0


def padded_batch(seed: int = 0, d: int = 6) -> tuple[torch.Tensor, torch.Tensor]:
    """A float64 padded batch (5, 7, d) with lengths [7, 3, 1, 5, 2]."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(5, 7, d, generator=g, dtype=torch.float64), torch.tensor([7, 3, 1, 5, 2])


def two_class_sets() -> tuple:
    """40 small 4-d sets in two well-separated classes and a train/val/test split of them."""
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1], 20)
    sets = [rng.normal(1.5 * (2 * y - 1), 0.5, (rng.integers(2, 6), 4)) for y in labels]
    split = {"train": np.arange(0, 40, 2), "val": np.arange(1, 40, 4), "test": np.arange(3, 40, 4)}
    return SetDataset.from_sets(sets, labels.tolist()), split


def tiny_text_store(path, n_splits: int = 2, n_sets: int = 60, d: int = 4, seed: int = 0):
    """A two-class store of ``n_sets`` small sets (``d``-dim elements shifted by the class), saved at
    ``path`` with ``n_splits`` random splits, posing as BBCSPORT; returns its path."""
    from repset.datasets.registry import random_splits
    from repset.datasets.store import SetCollection, save_store

    rng = np.random.default_rng(seed)
    labels = np.repeat([0, 1], n_sets // 2)
    lengths = rng.integers(1, 6, len(labels))
    values = rng.normal(size=(lengths.sum(), d)).astype(np.float32) + np.repeat(labels, lengths)[:, None]
    coll = SetCollection(offsets=np.concatenate([[0], np.cumsum(lengths)]), labels=labels, class_names=["a", "b"],
                         splits=random_splits(labels, n_splits, seed=seed), values=values, meta={"dataset": "bbcsport"})
    return save_store(path, coll)
