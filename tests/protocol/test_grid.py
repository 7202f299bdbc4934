"""Grid points, their ids, and the grid search over splits."""
import pytest
from set_checks import two_class_sets

from repset.protocol.grid import grid_points, point_id, run_grid
from repset.protocol.selection import records_frame, selected_point
from repset.training.trainer import TrainConfig


def test_grid_points_and_ids():
    points = grid_points({"n_hidden_sets": [20, 30], "hidden_set_size": [10]})
    assert points == [{"hidden_set_size": 10, "n_hidden_sets": 20}, {"hidden_set_size": 10, "n_hidden_sets": 30}]
    assert [point_id(p) for p in points] == ["k10-m20", "k10-m30"]
    assert grid_points({}) == [{}] and point_id({}) == "default"


def test_run_grid_searches_the_grid_on_the_first_splits_only():
    data, split = two_class_sets()
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
