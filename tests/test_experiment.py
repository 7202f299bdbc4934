"""Run, selection and aggregation of the benchmark protocol."""
import numpy as np
import pandas as pd
import pytest

from repset.data import SetDataset
from repset.experiment import (aggregate, grid_points, point_id, records_frame, run_grid, select, selected_point,
                               train_run)
from repset.train import TrainConfig


def tiny():
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1], 20)
    sets = [rng.normal(1.5 * (2 * y - 1), 0.5, (rng.integers(2, 6), 4)) for y in labels]
    split = {"train": np.arange(0, 40, 2), "val": np.arange(1, 40, 4), "test": np.arange(3, 40, 4)}
    return SetDataset.from_sets(sets, labels.tolist()), split


def test_grid_points_and_ids():
    points = grid_points({"n_hidden_sets": [20, 30], "hidden_set_size": [10]})
    assert points == [{"hidden_set_size": 10, "n_hidden_sets": 20}, {"hidden_set_size": 10, "n_hidden_sets": 30}]
    assert [point_id(p) for p in points] == ["k10-m20", "k10-m30"]
    assert grid_points({}) == [{}] and point_id({}) == "default"


def test_train_run_record():
    data, split = tiny()
    record, model = train_run(data, split, "approx_repset", {"n_hidden_sets": 4, "hidden_set_size": 2},
                              TrainConfig(epochs=30, batch_size=8, lr=0.05, patience=10))
    assert record["sizes"] == {"train": 20, "val": 10, "test": 10}
    assert record["test"]["accuracy"] >= 0.9 and record["val"]["error"] <= 0.1
    assert 1 <= record["epochs_run"] <= 30
    with pytest.raises(ValueError, match="no 'val' part"):
        train_run(data, {"train": split["train"], "test": split["test"]}, "repset", {}, TrainConfig())


def test_select_and_aggregate():
    rows = []
    for split in range(2):
        for point, val, test in [("a", 0.2, 0.30), ("b", 0.1, 0.40), ("c", 0.1, 0.50)]:
            rows.append({"dataset": "d", "model": "m", "split": split, "point": point, "val_error": val,
                         "val_loss": 1.0 if point != "c" else 0.5, "test_error": test + split * 0.1,
                         "test_accuracy": 1 - test - split * 0.1, "epoch_seconds": 1.0})
    best = select(pd.DataFrame(rows))
    assert best["point"].tolist() == ["c", "c"]            # lowest val error, then lower val loss
    agg = aggregate(best)
    assert agg.loc[0, "test_error_mean"] == pytest.approx(55.0)
    assert agg.loc[0, "test_error_std"] == pytest.approx(5.0)
    assert agg.loc[0, "splits"] == 2


def test_records_frame_flattens():
    record = {"dataset": "d", "model": "m", "split": 0, "point": "k10-m20", "train_config": {"seed": 3},
              "val": {"error": 0.1, "loss": 0.2}, "test": {"error": 0.3, "accuracy": 0.7},
              "epoch_seconds_median": 0.5, "epochs_run": 4}
    frame = records_frame([record])
    assert frame.loc[0, "seed"] == 3 and frame.loc[0, "test_error"] == 0.3


def test_selected_point_votes_then_val_then_order():
    rows = []
    for split, winner in enumerate(["b", "a", "b"]):
        for point in ("a", "b"):
            rows.append({"dataset": "d", "model": "m", "split": split, "point": point, "seed": 0,
                         "val_error": 0.1 if point == winner else 0.3, "val_loss": 1.0})
    assert selected_point(pd.DataFrame(rows)) == "b"                       # 2 votes against 1
    tie = pd.DataFrame([r for r in rows if r["split"] < 2])
    tie.loc[(tie.split == 1) & (tie.point == "a"), "val_error"] = 0.05     # one vote each: lower val wins
    assert selected_point(tie) == "a"


def test_run_grid_searches_the_grid_on_the_first_splits_only():
    data, split = tiny()
    points = {"k2-m2": {"n_hidden_sets": 2, "hidden_set_size": 2}, "k2-m4": {"n_hidden_sets": 4, "hidden_set_size": 2}}
    cfg = TrainConfig(epochs=3, batch_size=8, lr=0.05, patience=None)
    records = run_grid(data, [split] * 3, "approx_repset", points, cfg, seed=0, context={"dataset": "d", "model": "m"},
                       grid_splits=1)
    assert [(r["split"], r["point"]) for r in records][:2] == [(0, "k2-m2"), (0, "k2-m4")]
    best = selected_point(records_frame(records[:2]))
    assert [(r["split"], r["point"]) for r in records[2:]] == [(1, best), (2, best)]
    full = run_grid(data, [split] * 2, "approx_repset", points, cfg, seed=0, context={"dataset": "d", "model": "m"})
    assert len(full) == 4
    with pytest.raises(ValueError, match="grid_splits must be >= 1"):
        run_grid(data, [split], "approx_repset", points, cfg, seed=0, context={}, grid_splits=0)
