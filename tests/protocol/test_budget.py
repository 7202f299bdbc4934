"""Protocol budget: exact run counts, measured seconds scaled to the training set, job summary."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from repset.protocol.budget import DatasetShape, budget_table, calibrate, protocol_runs, summarize
from repset.training.trainer import TrainConfig


def config(grid_splits=None):
    grid = {"n_hidden_sets": [2, 3], "hidden_set_size": [2]}
    return {"seed": 0, "solver": "numba", "data": {"wmd_mat_dir": None},
            "protocol": {"text_splits": 5, "graph_splits": 100, "seeds": [0, 1], "grid_splits": grid_splits},
            "train": {"epochs": 10, "batch_size": 8, "lr": 0.01, "patience": 3},
            "models": {"repset": {"layer": "repset", "options": {}, "grid": grid},
                       "deepsets": {"layer": "deepsets", "options": {}, "grid": {}}}}


def test_protocol_runs_counts_splits_seeds_and_searched_grid():
    assert protocol_runs(config(), "bbcsport", "repset") == {"k2-m2": 10.0, "k2-m3": 10.0}
    assert protocol_runs(config(), "MUTAG", "deepsets") == {"default": 200.0}
    # grid on 1 of 5 splits: 2 runs on split 0, one run on each of the 4 others -> 6 runs, 3 per point
    runs = protocol_runs(config(grid_splits=1), "bbcsport", "repset")
    assert runs == {"k2-m2": 6.0, "k2-m3": 6.0} and sum(runs.values()) == 2 * (2 + 4)
    assert protocol_runs(config(grid_splits=1), "reuters", "repset") == {"k2-m2": 2.0, "k2-m3": 2.0}   # 1 split


SHAPE = DatasetShape("bbcsport", np.random.default_rng(0).integers(2, 9, 40), 4, 3, 5)


def test_calibrate_scales_to_the_training_set():
    cfg = TrainConfig(batch_size=8)
    out = calibrate(SHAPE, "approx_repset", {"n_hidden_sets": 2, "hidden_set_size": 2}, cfg, sample=16)
    assert out["epoch_seconds"] > 0 and out["val_seconds"] > 0
    whole = calibrate(SHAPE, "approx_repset", {"n_hidden_sets": 2, "hidden_set_size": 2}, cfg, sample=1000)
    assert whole["epoch_seconds"] > 0   # sample larger than the training set: the whole set, no scaling


def test_budget_table_and_summary():
    table = budget_table([SHAPE], config(grid_splits=1), sample=16)
    assert table[["model", "point"]].values.tolist() == [["repset", "k2-m2"], ["repset", "k2-m3"],
                                                         ["deepsets", "default"]]
    assert table["runs"].tolist() == [6.0, 6.0, 10.0] and (table["epochs"] == 10).all()
    expected = table["runs"] * 10 * (table["epoch_seconds"] + table["val_seconds"])
    assert np.allclose(table["seconds"], expected)
    jobs = summarize(table, cores=2)
    assert len(jobs) == 2 and jobs["share"].sum() == pytest.approx(1.0)
    assert jobs.attrs["total_hours"] == pytest.approx(table["seconds"].sum() / 3600)
    assert jobs.attrs["wall_hours"] * 3600 >= max(table["seconds"].sum() / 2, jobs["seconds"].max()) - 1e-9


def test_summary_wall_is_at_least_the_longest_job():
    table = pd.DataFrame({"dataset": ["a", "b"], "model": ["m", "m"], "seconds": [3600.0, 360.0]})
    jobs = summarize(table, cores=4)
    assert jobs.attrs["wall_hours"] == pytest.approx(1.0) and jobs["dataset"].tolist() == ["a", "b"]
