"""The synthetic toy of the paper's supplement: 4 sets of two 2-d points, one class each.

All four sets have the same centroid (1, 1) and the same sum (2, 2), so mean or sum pooling
cannot tell them apart; RepSet with 2 hidden sets of 2 elements learns them perfectly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from repset.sets import SetDataset
from repset.layers import RepSet
from repset.training.classifier import SetClassifier
from repset.training.trainer import TrainConfig, evaluate, fit, seed_everything

TOY_SETS = np.array([
    [[0.0, 1.0], [2.0, 1.0]],   # horizontal pair
    [[1.0, 0.0], [1.0, 2.0]],   # vertical pair
    [[0.0, 0.0], [2.0, 2.0]],   # main diagonal
    [[0.0, 2.0], [2.0, 0.0]],   # anti-diagonal
], dtype=np.float32)


def toy_dataset() -> SetDataset:
    """The 4 toy sets, labels 0..3."""
    return SetDataset.from_sets(list(TOY_SETS), labels=[0, 1, 2, 3])


@dataclass
class ToyConfig:
    """Model and training settings of the toy run."""

    n_hidden_sets: int = 2
    hidden_set_size: int = 2
    hidden_dims: list[int] = field(default_factory=list)  # the paper: softmax(W x + b)
    epochs: int = 500
    lr: float = 0.01
    seed: int = 0


def train_toy(config: ToyConfig, solver: str = "scipy") -> tuple[SetClassifier, dict]:
    """Train RepSet on the toy sets (full batch); return the model and its metrics/history."""
    seed_everything(config.seed)
    data = toy_dataset()
    layer = RepSet(2, config.n_hidden_sets, config.hidden_set_size, solver=solver)
    model = SetClassifier(layer, n_classes=4, hidden_dims=config.hidden_dims)
    train_cfg = TrainConfig(epochs=config.epochs, batch_size=len(data), lr=config.lr, patience=None, seed=config.seed)
    history = fit(model, data, train_cfg)
    return model, {"train": evaluate(model, data), "epochs_run": history["epochs_run"],
                   "final_train_loss": history["train_loss"][-1]}
