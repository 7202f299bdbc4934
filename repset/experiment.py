"""One training run of the benchmark protocol, model selection on validation, and aggregation.

A run = (dataset store, split, model, hyper-parameters, seed): train on the split's train part with
early stopping on its val part, evaluate on test, return a JSON-ready record. Selection picks, per
split and model, the hyper-parameters with the lowest validation error (ties: lower validation
loss, then the first in grid order); aggregation reports mean and std of the test metrics over splits.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Iterable

import numpy as np
import pandas as pd
import torch

from .data import SetDataset
from .model import SetClassifier, build_layer
from .train import TrainConfig, evaluate, fit, seed_everything

def grid_points(grid: dict[str, list]) -> list[dict]:
    """Cartesian product of a hyper-parameter grid, in a stable order (``{}`` -> ``[{}]``)."""
    keys = sorted(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


def point_id(point: dict) -> str:
    """Filesystem-safe id of a grid point, e.g. ``hidden_set_size=20,n_hidden_sets=50`` -> ``k20-m50``."""
    short = {"n_hidden_sets": "m", "hidden_set_size": "k"}
    return "-".join(f"{short.get(k, k)}{v}" for k, v in sorted(point.items())) or "default"


def train_run(data: SetDataset, split: dict[str, np.ndarray], layer: str, layer_options: dict,
              train: TrainConfig, hidden_dims: Iterable[int] = (), n_classes: int | None = None
              ) -> tuple[dict, SetClassifier]:
    """Train and evaluate one model on one split; return (record: metrics, timings; the trained model)."""
    for part in ("train", "val", "test"):
        if part not in split or len(split[part]) == 0:
            raise ValueError(f"split has no {part!r} part (keys: {sorted(split)})")
    n_classes = n_classes or data.n_classes
    seed_everything(train.seed)
    model = SetClassifier(build_layer(layer, data.dim, **layer_options), n_classes, hidden_dims=list(hidden_dims))
    parts = {p: data.subset(split[p]) for p in ("train", "val", "test")}
    start = time.perf_counter()
    history = fit(model, parts["train"], train, val=parts["val"])
    seconds = time.perf_counter() - start
    best = history["best_epoch"]
    return {
        "layer": layer, "layer_options": layer_options, "hidden_dims": list(hidden_dims),
        "train_config": history["config"], "n_parameters": sum(p.numel() for p in model.parameters()),
        "sizes": {p: len(d) for p, d in parts.items()},
        "val": history["val"][best] if best is not None else None,
        "test": evaluate(model, parts["test"], device=train.device),
        "train": evaluate(model, parts["train"], device=train.device),
        "best_epoch": best, "epochs_run": history["epochs_run"], "train_seconds": seconds,
        "epoch_seconds_median": float(np.median(history["epoch_seconds"])),
        "torch_threads": torch.get_num_threads(),
    }, model


def records_frame(records: Iterable[dict]) -> pd.DataFrame:
    """Flatten run records (with ``dataset``, ``model``, ``split``, ``point`` keys) into a table."""
    rows = []
    for r in records:
        rows.append({"dataset": r["dataset"], "model": r["model"], "split": r["split"], "point": r["point"],
                     "seed": r["train_config"]["seed"], "val_error": r["val"]["error"], "val_loss": r["val"]["loss"],
                     "test_error": r["test"]["error"], "test_accuracy": r["test"]["accuracy"],
                     "epoch_seconds": r["epoch_seconds_median"], "epochs_run": r["epochs_run"]})
    return pd.DataFrame(rows)


def select(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, model, split, seed): the run with the lowest val error, then val loss, then grid order."""
    keys = ["dataset", "model", "split"] + (["seed"] if "seed" in frame.columns else [])
    ordered = frame.reset_index(drop=True).reset_index(names="order")
    ordered = ordered.sort_values(keys + ["val_error", "val_loss", "order"])
    return ordered.groupby(keys, sort=False).head(1).drop(columns="order")


def aggregate(selected: pd.DataFrame) -> pd.DataFrame:
    """Mean and std (ddof=0, over splits and seeds) of test error and accuracy in percent, per dataset and model."""
    g = selected.groupby(["dataset", "model"])
    out = pd.DataFrame({
        "test_error_mean": g["test_error"].mean() * 100, "test_error_std": g["test_error"].std(ddof=0) * 100,
        "test_accuracy_mean": g["test_accuracy"].mean() * 100, "test_accuracy_std": g["test_accuracy"].std(ddof=0) * 100,
        "splits": g["split"].nunique(), "epoch_seconds": g["epoch_seconds"].median(),
        "points": g["point"].agg(lambda s: ",".join(sorted(set(s)))),
    })
    return out.reset_index()


def run_grid(data: SetDataset, splits: list[dict[str, np.ndarray]], layer: str, points: dict[str, dict],
             train: TrainConfig, seed: int, context: dict, progress=None, grid_splits: int | None = None) -> list[dict]:
    """Train grid points on every split (same ``seed``); one record per run, tagged with ``context``
    (e.g. dataset and model names), ``split``, ``point`` and the run's layer options.

    ``grid_splits=None`` searches the whole grid on every split. ``grid_splits=G`` searches it on the
    first G splits only; every later split trains just the point chosen most often there by
    validation (:func:`selected_point`), so a split costs one run instead of ``len(points)``.
    """
    if grid_splits is not None and grid_splits < 1:
        raise ValueError(f"grid_splits must be >= 1 or None, got {grid_splits}")
    records = []
    for k, split in enumerate(splits):
        todo = points
        if grid_splits is not None and k >= grid_splits and len(points) > 1:
            best = selected_point(records_frame(records))
            todo = {best: points[best]}
        for pid, options in todo.items():
            cfg = TrainConfig(**{**train.__dict__, "seed": seed})
            record, _ = train_run(data, split, layer, options, cfg)
            records.append({**context, "split": k, "point": pid, **record})
            if progress is not None:
                progress(records[-1])
    return records


def selected_point(frame: pd.DataFrame) -> str:
    """The grid point that validation selected on most splits of ``frame`` (ties: the lower mean
    validation error of the selected runs, then grid order)."""
    chosen = select(frame).reset_index(drop=True).reset_index(names="order")
    votes = chosen.groupby("point").agg(count=("split", "size"), val=("val_error", "mean"), order=("order", "min"))
    votes = votes.sort_values(["count", "val", "order"], ascending=[False, True, True])
    return str(votes.index[0])
