"""Grid search over splits: the hyper-parameter grid as points with filesystem-safe ids, and the loop
that trains grid points on splits (the whole grid on the first ``grid_splits`` splits, then the point
validation chose most often there; with ``grid_scope: repetition``, so within each CV repetition)."""
from __future__ import annotations

import itertools

import numpy as np

from repset.sets import SetDataset
from repset.training import TrainConfig, train_run

from .selection import records_frame, selected_point

__all__ = ["grid_points", "point_id", "run_grid"]


def grid_points(grid: dict[str, list]) -> list[dict]:
    """Cartesian product of a hyper-parameter grid, in a stable order (``{}`` -> ``[{}]``)."""
    keys = sorted(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


def point_id(point: dict) -> str:
    """Filesystem-safe id of a grid point, e.g. ``hidden_set_size=20,n_hidden_sets=50`` -> ``k20-m50``."""
    short = {"n_hidden_sets": "m", "hidden_set_size": "k"}
    return "-".join(f"{short.get(k, k)}{v}" for k, v in sorted(point.items())) or "default"


def run_grid(data: SetDataset, splits: list[dict[str, np.ndarray]], layer: str, points: dict[str, dict],
             train: TrainConfig, seed: int, context: dict, progress=None, grid_splits: int | None = None,
             folds: int | None = None) -> list[dict]:
    """Train grid points on every split (same ``seed``); one record per run, tagged with ``context``
    (e.g. dataset and model names), ``split``, ``point`` and the run's layer options.

    ``grid_splits=None`` searches the whole grid on every split. ``grid_splits=G`` searches it on the
    first G splits only; every later split trains just the point chosen most often there by
    validation (:func:`selected_point`), so a split costs one run instead of ``len(points)``.
    ``folds=F`` (a dataset's ``grid_scope: repetition``, F its CV folds, ``DatasetSpec.n_splits``): the splits
    are repetitions of F folds each, in order (as the protocol lays them out), each with a grid choice of its
    own: the grid is searched on the first G folds of each repetition, its later folds train the point chosen
    there (:func:`~repset.protocol.jobs.grid_blocks`). None: one choice for all splits (``grid_scope: protocol``).
    """
    if grid_splits is not None and grid_splits < 1:
        raise ValueError(f"grid_splits must be >= 1 or None, got {grid_splits}")
    if folds is not None and (type(folds) is not int or folds < 1):
        raise ValueError(f"folds (grid_scope: repetition) must be an integer >= 1 or None, got {folds!r}")
    records = []
    for k, split in enumerate(splits):
        first = k - k % folds if folds else 0          # the first split of k's repetition (grid choice)
        todo = points
        if grid_splits is not None and k - first >= grid_splits and len(points) > 1:
            best = selected_point(records_frame([r for r in records if r["split"] >= first]))
            todo = {best: points[best]}
        for pid, options in todo.items():
            cfg = TrainConfig(**{**train.__dict__, "seed": seed})
            record, _ = train_run(data, split, layer, options, cfg)
            records.append({**context, "split": k, "point": pid, **record})
            if progress is not None:
                progress(records[-1])
    return records
