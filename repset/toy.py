"""The synthetic toy of the paper's supplement: 4 sets of two 2-d points, one class each.

All four sets have the same centroid (1, 1) and the same sum (2, 2), so mean or sum pooling
cannot tell them apart; RepSet with 2 hidden sets of 2 elements learns them perfectly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .data import SetDataset
from .layers import RepSet
from .model import SetClassifier
from .train import TrainConfig, evaluate, fit, seed_everything

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


def plot_toy(model: SetClassifier, pdf_path, png_path) -> None:
    """Input elements as circles (one colour per set), learned hidden elements as diamonds."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .io import save_figure

    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    colors = plt.get_cmap("tab10")
    for i, points in enumerate(TOY_SETS):
        ax.scatter(points[:, 0], points[:, 1], s=90, marker="o", color=colors(i), label=f"set {i + 1}",
                   edgecolor="black", linewidth=0.6, zorder=3)
        ax.plot(points[:, 0], points[:, 1], color=colors(i), alpha=0.3, zorder=1)
    for k, hidden in enumerate(model.layer.hidden_sets()):
        h = hidden.numpy()
        ax.scatter(h[:, 0], h[:, 1], s=110, marker="D", color=colors(4 + k), label=f"hidden set {k + 1}",
                   edgecolor="black", linewidth=0.6, zorder=4)
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), framealpha=0.8)
    ax.set_title("Toy sets (circles) and learned hidden sets (diamonds)", fontsize=8)
    fig.tight_layout()
    save_figure(fig, pdf_path, png_path)


def run_toy(options: dict, solver: str, seed: int, pdf, png, record) -> dict:
    """Train, plot and write a JSON run record (metrics + provenance); return the record."""
    from .io import write_json
    from .provenance import provenance

    config = ToyConfig(**options, seed=seed)
    model, metrics = train_toy(config, solver=solver)
    plot_toy(model, pdf, png)
    result = {
        "experiment": "toy",
        "metrics": metrics,
        "hidden_sets": [h.tolist() for h in model.layer.hidden_sets()],
        "provenance": provenance({"toy": options, "solver": solver, "seed": seed}, seed=seed, solver=solver),
    }
    write_json(record, result)
    return result
