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


def _fake_training(monkeypatch):
    """``run_grid``'s training replaced: a run's validation error is its split's ``errors(options)``."""
    from repset.protocol import grid

    def train_run(data, split, layer, options, cfg):
        error = split["errors"](options)
        return {"train_config": {"seed": cfg.seed}, "val": {"error": error, "loss": error},
                "test": {"error": 0.5, "accuracy": 0.5}, "epoch_seconds_median": 0.0, "epochs_run": 1}, None

    monkeypatch.setattr(grid, "train_run", train_run)


def test_run_grid_searches_each_repetitions_grid_with_folds(monkeypatch):
    """folds=F (grid_scope: repetition): repetition 0 (splits 0-2) prefers m2, repetition 1 (splits 3-5) m4; each
    repetition's later folds train its own choice, while one choice for all splits (folds=None) trains m2 on 1-5."""
    _fake_training(monkeypatch)
    points = {"k2-m2": {"n_hidden_sets": 2, "hidden_set_size": 2}, "k2-m4": {"n_hidden_sets": 4, "hidden_set_size": 2}}
    prefer = [{"errors": lambda o, best=best: 0.1 if o["n_hidden_sets"] == best else 0.3} for best in (2, 2, 2, 4, 4, 4)]
    cfg = TrainConfig(epochs=1, batch_size=8, lr=0.05, patience=None)
    context = {"dataset": "d", "model": "m"}
    per_repetition = run_grid(None, prefer, "approx_repset", points, cfg, 0, context, grid_splits=1, folds=3)
    assert [(r["split"], r["point"]) for r in per_repetition] == [
        (0, "k2-m2"), (0, "k2-m4"), (1, "k2-m2"), (2, "k2-m2"), (3, "k2-m2"), (3, "k2-m4"), (4, "k2-m4"), (5, "k2-m4")]
    one_choice = run_grid(None, prefer, "approx_repset", points, cfg, 0, context, grid_splits=1)
    assert [(r["split"], r["point"]) for r in one_choice] == [(0, "k2-m2"), (0, "k2-m4")] + [(k, "k2-m2")
                                                                                            for k in range(1, 6)]
    for bad in (0, 2.5):
        with pytest.raises(ValueError, match="folds \\(grid_scope: repetition\\) must be an integer >= 1"):
            run_grid(None, prefer, "approx_repset", points, cfg, 0, context, grid_splits=1, folds=bad)


def test_run_grid_with_folds_trains_the_jobs_of_grid_scope_repetition(monkeypatch):
    """The in-process loop and the workflow's jobs (repset.protocol.jobs.model_runs) train the same runs in the same
    order for REDDIT-BINARY's first 13 folds, the grid on the first 2 of each repetition (10 folds)."""
    import yaml
    from repo_paths import ROOT

    from repset.datasets.registry import get_spec
    from repset.protocol.jobs import CHOSEN, model_runs
    from repset.protocol.plan import layer_options

    _fake_training(monkeypatch)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"graph_splits": 13, "grid_splits": 2,
                                                           "grid_scope": "repetition"}}
    points = layer_options(config, "repset")
    best = {0: "k10-m20", 1: "k50-m100"}          # repetition 0 prefers the smallest point, repetition 1 the largest
    splits = [{"errors": lambda o, r=k // 10: (o["n_hidden_sets"] * o["hidden_set_size"]) * (1 if r == 0 else -1)}
              for k in range(13)]
    records = run_grid(None, splits, "repset", points, TrainConfig(epochs=1), 0, {"dataset": "REDDIT-BINARY",
                       "model": "repset"}, grid_splits=2, folds=get_spec("REDDIT-BINARY").n_splits)
    jobs = model_runs(config, "REDDIT-BINARY", "repset", 0)
    assert len(records) == len(jobs) == 2 * 12 + 8 + 2 * 12 + 1
    assert [(r["split"], r["point"]) for r in records] == [
        (run.split, best[run.split // 10] if run.point == CHOSEN else run.point) for run in jobs]
