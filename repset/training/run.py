"""One training run: a set classifier trained on one split's train part with early stopping on its
val part, evaluated on test; the result is a JSON-ready record (metrics, timings, options)."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np
import torch

from repset.sets import SetDataset

from .classifier import SetClassifier, build_layer
from .trainer import TrainConfig, eval_options, evaluate, fit, seed_everything

__all__ = ["check_split", "train_run"]

PARTS = ("train", "val", "test")


def check_split(split: dict[str, np.ndarray], n_sets: int) -> None:
    """ValueError naming the part unless ``split`` has non-empty ``train``, ``val`` and ``test`` parts of
    integer indices in ``0..n_sets-1`` (no negative ones: they would wrap), none repeated, no two parts
    sharing a set."""
    for part in PARTS:
        if part not in split or len(split[part]) == 0:
            raise ValueError(f"split has no {part!r} part (keys: {sorted(split)})")
        index = np.asarray(split[part])
        if not np.issubdtype(index.dtype, np.integer):
            raise ValueError(f"split[{part!r}] must hold integer indices, got {index.dtype}")
        outside = index[(index < 0) | (index >= n_sets)]
        if len(outside):
            raise ValueError(f"split[{part!r}] has index {outside[0]} outside 0..{n_sets - 1} ({n_sets} sets)")
        values, counts = np.unique(index, return_counts=True)
        if (counts > 1).any():
            raise ValueError(f"split[{part!r}] repeats index {values[counts > 1][0]}")
    for i, a in enumerate(PARTS):
        for b in PARTS[i + 1:]:
            shared = np.intersect1d(split[a], split[b])
            if len(shared):
                listed = ", ".join(str(j) for j in shared[:5]) + (", ..." if len(shared) > 5 else "")
                raise ValueError(f"split[{a!r}] and split[{b!r}] share {len(shared)} set{'s' * (len(shared) > 1)} "
                                 f"(index {listed})")


def train_run(data: SetDataset, split: dict[str, np.ndarray], layer: str, layer_options: dict,
              train: TrainConfig, hidden_dims: Iterable[int] = (), n_classes: int | None = None,
              progress: Callable[[dict], None] | None = None,
              snapshots: dict | None = None) -> tuple[dict, SetClassifier]:
    """Train and evaluate one model on one split; return (record: metrics, timings; the trained model).
    ``progress``: called after every epoch (see :func:`~repset.training.trainer.fit`). For a layer with
    hidden sets the record's ``hidden_movement`` says how far training moved them
    (:meth:`~repset.layers.base.HiddenSetLayer.movement`), and ``snapshots``, when given, receives their
    initial weight ``(d, m, K)`` under ``"initial_weight"``."""
    check_split(split, len(data))
    n_classes = n_classes or data.n_classes
    seed_everything(train.seed)
    model = SetClassifier(build_layer(layer, data.dim, **layer_options), n_classes, hidden_dims=list(hidden_dims))
    parts = {p: data.subset(split[p]) for p in ("train", "val", "test")}
    if getattr(model.layer, "needs_data_init", False):     # hidden sets drawn from the training elements
        model.layer.init_from_elements(parts["train"].values)
    initial = model.layer.weight.detach().clone() if hasattr(model.layer, "movement") else None
    if snapshots is not None and initial is not None:
        snapshots["initial_weight"] = initial
    start = time.perf_counter()
    history = fit(model, parts["train"], train, val=parts["val"], progress=progress)
    seconds = time.perf_counter() - start
    best = history["best_epoch"]
    return {
        "layer": layer, "layer_options": layer_options, "hidden_dims": list(hidden_dims),
        "train_config": history["config"], "n_parameters": sum(p.numel() for p in model.parameters()),
        "sizes": {p: len(d) for p, d in parts.items()},
        "val": history["val"][best] if best is not None else None,
        "test": evaluate(model, parts["test"], **eval_options(train)),
        "train": evaluate(model, parts["train"], **eval_options(train)),
        "best_epoch": best, "epochs_run": history["epochs_run"], "train_seconds": seconds,
        "epoch_seconds_median": float(np.median(history["epoch_seconds"])),
        "torch_threads": torch.get_num_threads(),
        "hidden_movement": model.layer.movement(initial) if initial is not None else None,
    }, model
