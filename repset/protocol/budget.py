"""What the full protocol costs on this machine, from measured epoch seconds, before running it.

For every dataset x model x grid point of a config, :func:`calibrate` trains the real layer with the
real trainer on synthetic sets that have the dataset's training-set sizes, dimension and classes
(a random sample of ``sample`` sets; seconds scaled to the full training set) and times one
validation pass. :func:`budget_table` multiplies by the runs the protocol asks for (splits x seeds,
the grid searched on ``protocol.grid_splits`` splits) and the model's ``train.epochs`` (an upper
bound: early stopping ends runs sooner). Values are synthetic; only the timing matters.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from repset.sets import SetDataset
from repset.protocol.grid import grid_points, point_id
from repset.training.classifier import SetClassifier, build_layer
from repset.protocol.plan import layer_options, split_count, train_settings
from repset.training.trainer import TrainConfig, batch_indices, evaluate, fit, seed_everything

__all__ = ["DatasetShape", "calibrate", "protocol_runs", "budget_table", "summarize"]


@dataclass(frozen=True)
class DatasetShape:
    """What a training run sees: the sizes of the training sets, element dim, classes, val sets."""

    name: str
    train_sizes: np.ndarray
    dim: int
    n_classes: int
    n_val: int


def _synthetic(sizes: np.ndarray, dim: int, n_classes: int, seed: int) -> SetDataset:
    rng = np.random.default_rng(seed)
    values = torch.from_numpy(rng.standard_normal((int(sizes.sum()), dim), dtype=np.float32))
    offsets = torch.from_numpy(np.concatenate([[0], np.cumsum(sizes)]))
    return SetDataset(values, offsets, torch.from_numpy(rng.integers(0, n_classes, len(sizes))))


def calibrate(shape: DatasetShape, layer: str, options: dict, train: TrainConfig, sample: int = 256,
              seed: int = 0) -> dict[str, float]:
    """Seconds of one training epoch on the full training set and of one validation pass.

    Cuts the training sizes into the trainer's batches (bucketed by size when ``train.bucket``), trains
    on the sets of ``sample // batch_size`` random batches (a warm-up epoch, then a timed one) and
    scales by the fraction of batches timed; the validation pass is timed on ``shape.n_val`` sets.
    """
    rng = np.random.default_rng(seed)
    lengths = torch.from_numpy(shape.train_sizes)
    # the epoch's own batches (bucketed by size as the trainer does), a random subset of them timed
    batches = batch_indices(len(lengths), train.batch_size, torch.Generator().manual_seed(seed),
                            lengths if train.bucket else None)
    pick = rng.choice(len(batches), min(len(batches), max(1, sample // train.batch_size)), replace=False)
    sizes = np.concatenate([shape.train_sizes[batches[i].numpy()] for i in pick])
    data = _synthetic(sizes, shape.dim, shape.n_classes, seed)
    seed_everything(seed)
    model = SetClassifier(build_layer(layer, shape.dim, **options), shape.n_classes)
    cfg = TrainConfig(epochs=2, batch_size=train.batch_size, lr=train.lr, patience=None, seed=seed, bucket=train.bucket)
    epoch = fit(model, data, cfg)["epoch_seconds"][1] * len(batches) / len(pick)
    val = _synthetic(rng.choice(shape.train_sizes, max(shape.n_val, 1)), shape.dim, shape.n_classes, seed + 1)
    start = time.perf_counter()
    evaluate(model, val)
    return {"epoch_seconds": epoch, "val_seconds": time.perf_counter() - start}


def protocol_runs(config: dict, dataset: str, model: str) -> dict[str, float]:
    """Expected runs per grid point of ``model`` on ``dataset``: splits x seeds when the grid is searched
    on every split; else the first ``grid_splits`` splits train every point and each later split one
    point, counted here as ``1 / len(grid)`` run of every point (the mean cost of the grid)."""
    points = [point_id(p) for p in grid_points(config["models"][model]["grid"])]
    splits, seeds = split_count(dataset, config), len(config["protocol"]["seeds"])
    searched = config["protocol"].get("grid_splits")
    if searched is None or searched >= splits or len(points) == 1:
        return {p: float(splits * seeds) for p in points}
    return {p: seeds * (searched + (splits - searched) / len(points)) for p in points}


def budget_table(shapes: list[DatasetShape], config: dict, sample: int = 256, seed: int = 0,
                 progress=None) -> pd.DataFrame:
    """One row per dataset x model x grid point: measured seconds and the protocol's estimated total."""
    rows = []
    for shape in shapes:
        for model, spec in config["models"].items():
            train = TrainConfig(**train_settings(config, model))
            runs = protocol_runs(config, shape.name, model)
            for pid, options in layer_options(config, model).items():
                measured = calibrate(shape, spec["layer"], options, train, sample, seed)
                per_run = train.epochs * (measured["epoch_seconds"] + measured["val_seconds"])
                rows.append({"dataset": shape.name, "model": model, "point": pid, "train_sets": len(shape.train_sizes),
                             "mean_set_size": float(np.mean(shape.train_sizes)), "dim": shape.dim,
                             **measured, "epochs": train.epochs, "runs": runs[pid], "seconds": runs[pid] * per_run})
                if progress is not None:
                    progress(rows[-1])
    return pd.DataFrame(rows)


def summarize(table: pd.DataFrame, cores: int) -> pd.DataFrame:
    """Hours per dataset x model (one pipeline job each), the share of the total, and the wall-clock
    estimate for ``cores`` single-threaded jobs in parallel (total / cores, never below the longest job)."""
    jobs = table.groupby(["dataset", "model"], sort=False)["seconds"].sum().reset_index()
    total = float(jobs["seconds"].sum())
    jobs["hours"] = jobs["seconds"] / 3600
    jobs["share"] = jobs["seconds"] / total if total else 0.0
    wall = max(total / cores, float(jobs["seconds"].max()) if len(jobs) else 0.0)
    jobs.attrs.update(total_hours=total / 3600, wall_hours=wall / 3600, cores=cores)
    return jobs.sort_values("seconds", ascending=False, ignore_index=True)
