"""Protocol budget: exact run counts, measured seconds scaled to the training set, job summary."""
from __future__ import annotations

import numpy as np
import pytest

from repset.protocol.budget import (DatasetShape, budget_table, calibrate, expected_epochs, protocol_runs,
                                    records_against_estimate, summarize)
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


def test_protocol_runs_follow_a_dataset_override():
    reduced = config()
    reduced["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"graph_splits": 10, "grid_splits": 1}}
    # 2 seeds x (2 points on split 0 + 9 chosen runs): 22 runs, 11 per point; the baseline 2 x 10
    assert protocol_runs(reduced, "REDDIT-BINARY", "repset") == {"k2-m2": 11.0, "k2-m3": 11.0}
    assert protocol_runs(reduced, "REDDIT-BINARY", "deepsets") == {"default": 20.0}
    assert protocol_runs(reduced, "MUTAG", "repset") == protocol_runs(config(), "MUTAG", "repset") == {
        "k2-m2": 200.0, "k2-m3": 200.0}


def test_protocol_runs_and_summary_follow_a_grid_searched_on_each_repetition():
    """REDDIT-BINARY on all 100 folds with the grid on each repetition's first fold: per seed 10 x 2 grid runs and
    90 chosen runs (costed at the grid's mean), so 2 x (20 + 90) = 220 runs, 110 per point; the baseline 2 x 100."""
    per_repetition = config()
    per_repetition["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"grid_splits": 1, "grid_scope": "repetition"}}
    assert protocol_runs(per_repetition, "REDDIT-BINARY", "repset") == {"k2-m2": 110.0, "k2-m3": 110.0}
    assert protocol_runs(per_repetition, "REDDIT-BINARY", "deepsets") == {"default": 200.0}
    import pandas as pd

    table = pd.DataFrame({"dataset": ["REDDIT-BINARY"] * 3, "model": ["repset", "repset", "deepsets"],
                          "point": ["k2-m2", "k2-m3", "default"], "run_seconds": [360.0, 1080.0, 36.0]})
    per = summarize(table, per_repetition, cores=(None,)).set_index("model")
    assert per["jobs"].to_dict() == {"repset": 220, "deepsets": 200} and per.attrs["n_jobs"] == 420
    assert per.attrs["total_hours"] == pytest.approx((2 * 10 * (360 + 1080) + 2 * 90 * 720 + 200 * 36) / 3600)
    assert per.attrs["wall_hours"][None] == pytest.approx((1080 + 720) / 3600)   # a repetition's grid, then its choice


SHAPE = DatasetShape("bbcsport", np.random.default_rng(0).integers(2, 9, 40), 4, 3, 5)


def test_calibrate_scales_to_the_training_set():
    cfg = TrainConfig(batch_size=8)
    out = calibrate(SHAPE, "approx_repset", {"n_hidden_sets": 2, "hidden_set_size": 2}, cfg, sample=16)
    assert out["epoch_seconds"] > 0 and out["val_seconds"] > 0
    whole = calibrate(SHAPE, "approx_repset", {"n_hidden_sets": 2, "hidden_set_size": 2}, cfg, sample=1000)
    assert whole["epoch_seconds"] > 0   # sample larger than the training set: the whole set, no scaling


def test_calibrate_times_the_datasets_own_sets_where_given(monkeypatch):
    """With ``sets``/``val_sets`` the timed epoch trains on the dataset's own sets of the sampled batches and
    the validation pass reads its validation sets; shapes without them stay synthetic."""
    import repset.protocol.budget as budget
    from repset.sets import SetDataset

    rng = np.random.default_rng(2)
    sizes = rng.integers(2, 9, 40)
    train = SetDataset.from_sets([rng.normal(size=(n, 4)) + 7.0 for n in sizes], rng.integers(0, 3, 40))
    val = SetDataset.from_sets([rng.normal(size=(3, 4)) for _ in range(5)], [0, 1, 2, 0, 1])
    shape = DatasetShape("bbcsport", sizes, 4, 3, 5, sets=train, val_sets=val)
    assert shape.values == "store" and SHAPE.values == "synthetic"
    trained, evaluated = [], []
    monkeypatch.setattr(budget, "fit", lambda model, data, cfg, _f=budget.fit: trained.append(data) or _f(model, data, cfg))
    monkeypatch.setattr(budget, "evaluate", lambda model, data, _f=budget.evaluate, **kw: evaluated.append(data) or _f(model, data, **kw))
    out = calibrate(shape, "repset", {"n_hidden_sets": 2, "hidden_set_size": 2}, TrainConfig(batch_size=8), sample=16)
    assert out["epoch_seconds"] > 0 and evaluated == [val]
    (data,) = trained
    assert len(data) == 16 and float(data.values.min()) > 2.0      # the store's values (shifted by 7), not N(0, 1)
    rows = {tuple(r) for r in train.values.tolist()}
    assert all(tuple(r) in rows for r in data.values.tolist())
    with pytest.raises(ValueError, match="sizes differ"):
        DatasetShape("bbcsport", sizes[1:], 4, 3, 5, sets=train, val_sets=val)
    with pytest.raises(ValueError, match="come together"):
        DatasetShape("bbcsport", sizes, 4, 3, 5, sets=train)


def test_calibrate_trains_word_sets_on_their_distinct_elements(monkeypatch):
    """With the training sets' word ids, the synthetic sets share words as the dataset's do and reach
    the layer as distinct elements when distinct_elements is on."""
    from repset.sets import SetDataset

    rng = np.random.default_rng(1)
    sizes = rng.integers(2, 9, 40)
    shape = DatasetShape("bbcsport", sizes, 4, 3, 5, [rng.choice(12, n, replace=False) for n in sizes])
    seen = []
    monkeypatch.setattr(SetDataset, "indexed_batch", lambda self, index, _f=SetDataset.indexed_batch:
                        seen.append(_f(self, index)) or seen[-1])
    for distinct in (False, True):
        seen.clear()
        out = calibrate(shape, "repset", {"n_hidden_sets": 2, "hidden_set_size": 2},
                        TrainConfig(batch_size=8, distinct_elements=distinct), sample=16)
        assert out["epoch_seconds"] > 0
        assert bool(seen) == distinct
    assert all(len(E) <= 12 for E, _, _ in seen)          # at most the 12 words of the vocabulary per batch


def test_budget_table_and_summary():
    table = budget_table([SHAPE], config(grid_splits=1), sample=16)
    assert table[["model", "point"]].values.tolist() == [["repset", "k2-m2"], ["repset", "k2-m3"],
                                                         ["deepsets", "default"]]
    assert table["runs"].tolist() == [6.0, 6.0, 10.0] and (table["epochs"] == 10).all()
    assert np.allclose(table["run_seconds"], 10 * (table["epoch_seconds"] + table["val_seconds"]))
    assert np.allclose(table["seconds"], table["runs"] * table["run_seconds"])
    assert (table["mem_mb"] > 500).all()
    per = summarize(table, config(grid_splits=1), cores=(2, None))
    # the jobs add up to the per-point estimate: 2 seeds x (2 points on split 0 + 4 chosen) for repset, 10 deepsets
    assert per.set_index("model")["jobs"].to_dict() == {"repset": 12, "deepsets": 10}
    assert per.attrs["n_jobs"] == 22 and per["share"].sum() == pytest.approx(1.0)
    assert per.attrs["total_hours"] == pytest.approx(table["seconds"].sum() / 3600)
    longest = table["run_seconds"].max() / 3600
    assert per.attrs["longest_job"]["hours"] == pytest.approx(longest)
    wall = per.attrs["wall_hours"]
    assert wall[None] <= wall[2] and wall[2] >= per.attrs["total_hours"] / 2 - 1e-12 and wall[None] >= longest


def test_memory_estimate_grows_with_the_hidden_sets():
    cfg = TrainConfig(batch_size=8)
    small = calibrate(SHAPE, "approx_repset", {"n_hidden_sets": 2, "hidden_set_size": 2}, cfg, sample=16)
    large = calibrate(SHAPE, "approx_repset", {"n_hidden_sets": 200, "hidden_set_size": 50}, cfg, sample=16)
    assert large["mem_mb"] > small["mem_mb"] > 500


def test_expected_epochs_from_finished_records_else_the_bound_and_the_start_per_job():
    import pandas as pd

    records = pd.DataFrame({"dataset": ["MUTAG"] * 3 + ["bbcsport"], "model": ["repset"] * 4, "epochs_run": [10, 20, 30, 7]})
    assert expected_epochs(records, "MUTAG", "repset", 50) == (20.0, "records (3)")
    assert expected_epochs(records, "MUTAG", "deepsets", 50) == (50.0, "bound")
    assert expected_epochs(None, "MUTAG", "repset", 50) == (50.0, "bound")
    shape = DatasetShape("MUTAG", SHAPE.train_sizes, 4, 2, 5)
    cfg = config()
    table = budget_table([shape], cfg, sample=16, records=records, start=3.0)
    assert table.set_index("model")["epochs"].to_dict() == {"repset": 20.0, "deepsets": 10.0}
    assert np.allclose(table["run_seconds"], table["epochs"] * (table["epoch_seconds"] + table["val_seconds"]) + 3.0)
    cfg["train_packs"] = {"datasets": ["mutag"], "runs": 30}      # a pack starts once for its 30 runs
    packed = budget_table([shape], cfg, sample=16, records=records, start=3.0)
    assert np.allclose(packed["start_seconds"], 0.1)


def test_records_against_the_estimate_per_dataset_model_and_cpu():
    import pandas as pd

    table = pd.DataFrame({"dataset": ["MUTAG"] * 3, "model": ["repset", "repset", "deepsets"],
                          "point": ["k2-m2", "k2-m3", "default"], "epoch_seconds": [1.0, 2.0, 0.5],
                          "val_seconds": [9.0, 9.0, 9.0]})
    records = pd.DataFrame({"dataset": ["MUTAG"] * 5 + ["twitter"], "model": ["repset"] * 3 + ["deepsets"] * 2 + ["repset"],
                            "point": ["k2-m2", "k2-m3", "k2-m3", "default", "default", "k2-m2"],
                            "cpu": ["AMD EPYC", "AMD EPYC", "Xeon", None, None, "AMD EPYC"],
                            "epoch_seconds": [3.0, 4.0, 1.0, 0.5, 1.5, 7.0]})
    check = records_against_estimate(table, records)
    got = {(r.model, r.cpu): (r.records, r.median_ratio) for r in check.itertuples()}
    # record / training epoch only (validation not in a record's epoch), medians per CPU; other datasets ignored
    assert got == {("repset", "AMD EPYC"): (2, 2.5), ("repset", "Xeon"): (1, 0.5),
                   ("deepsets", "not recorded"): (2, 2.0)}
    assert records_against_estimate(table, None).empty and records_against_estimate(table, records[["dataset"]]).empty


def test_seconds_per_run_takes_the_last_table_and_costs_chosen_at_the_mean():
    import pandas as pd

    from repset.protocol.budget import seconds_per_run

    first = pd.DataFrame({"dataset": ["MUTAG"] * 2, "model": ["repset"] * 2, "point": ["k10-m20", "k50-m100"],
                          "run_seconds": [1.0, 9.0]})
    second = pd.DataFrame({"dataset": ["MUTAG"] * 3, "model": ["repset"] * 3, "point": ["k10-m20", "k50-m100", "k20-m20"],
                           "run_seconds": [2.0, 10.0, float("nan")]})
    seconds = seconds_per_run(pd.concat([first, second]))
    assert seconds[("MUTAG", "repset", "k10-m20")] == 2.0 and seconds[("MUTAG", "repset", "k50-m100")] == 10.0
    assert ("MUTAG", "repset", "k20-m20") not in seconds                  # no figure, no estimate
    assert seconds[("MUTAG", "repset", "chosen")] == 6.0


def test_relayout_keeps_the_timings_and_costs_another_protocol():
    import pandas as pd

    from repset.protocol.budget import relayout

    cfg = config() | {"datasets": {"text": [], "graph": ["REDDIT-BINARY"]}}
    table = budget_table([DatasetShape("REDDIT-BINARY", SHAPE.train_sizes, 4, 2, 5)], cfg, sample=16, start=3.0)
    timing = ["epoch_seconds", "val_seconds", "mem_mb", "start_seconds"]
    pd.testing.assert_frame_equal(relayout(table, cfg), table)                 # its own protocol: the same table
    reduced = config() | {"datasets": cfg["datasets"]}
    reduced["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"graph_splits": 10, "grid_splits": 1}}
    reduced["models"] = dict(reversed(reduced["models"].items()))             # the table's row order is kept
    records = pd.DataFrame({"dataset": ["REDDIT-BINARY"] * 2, "model": ["repset"] * 2, "epochs_run": [4, 6]})
    moved = relayout(table, reduced, records)
    assert moved[["model", "point"]].values.tolist() == table[["model", "point"]].values.tolist()
    pd.testing.assert_frame_equal(moved[timing], table[timing])
    assert moved["runs"].tolist() == [11.0, 11.0, 20.0]                        # 2 seeds x (2 + 9 chosen); 2 x 10
    assert moved["epochs"].tolist() == [5.0, 5.0, 10.0]
    assert moved["epochs_from"].tolist() == ["records (2)", "records (2)", "bound"]
    assert np.allclose(moved["run_seconds"], moved["epochs"] * (moved["epoch_seconds"] + moved["val_seconds"]) + 3.0)
    assert np.allclose(moved["seconds"], moved["runs"] * moved["run_seconds"])
    assert summarize(moved, reduced).attrs["n_jobs"] == 2 * (2 + 9) + 20
    wider = config() | {"datasets": cfg["datasets"]}
    wider["models"]["repset"]["grid"]["n_hidden_sets"] = [2, 3, 4]
    with pytest.raises(ValueError, match="REDDIT-BINARY repset k2-m4: not in the budget table"):
        relayout(table, wider)


def test_relayout_counts_dropped_rows_takes_the_last_duplicate_and_checks_the_job_start():
    import pandas as pd

    from repset.protocol.budget import relayout

    cfg = config() | {"datasets": {"text": [], "graph": ["MUTAG"]}}
    rows = [{"dataset": d, "model": m, "point": p, "epoch_seconds": 1.0, "val_seconds": 0.5, "start_seconds": 4.0,
             "epochs": 0.0, "epochs_from": "", "run_seconds": 0.0, "runs": 0.0, "seconds": 0.0}
            for d in ("MUTAG", "PROTEINS") for m, p in (("repset", "k2-m2"), ("repset", "k2-m3"), ("deepsets", "default"))]
    table = pd.DataFrame(rows + [dict(rows[0], epoch_seconds=3.0)])          # a later timing of MUTAG repset k2-m2
    out = relayout(table, cfg)
    assert out.attrs["dropped"] == 3 and set(out["dataset"]) == {"MUTAG"}     # PROTEINS is not in the config
    by_point = out.set_index("point")                                         # the last row of a point counts
    assert by_point["epoch_seconds"].to_dict() == {"k2-m2": 3.0, "k2-m3": 1.0, "default": 1.0}
    assert by_point["run_seconds"].to_dict() == {"k2-m2": 10 * 3.5 + 4.0, "k2-m3": 10 * 1.5 + 4.0, "default": 19.0}
    packed = cfg | {"train_packs": {"datasets": ["mutag"], "runs": 20}}       # a pack's start is shared by 20 runs
    with pytest.raises(ValueError, match="MUTAG repset k2-m2: a job start of 4 s, not the 0.2 s of the config's packs"):
        relayout(table, packed)
    mixed = table.assign(start_seconds=[0.2] * 3 + [4.0] * 3 + [0.2])          # MUTAG packed, PROTEINS not
    assert relayout(mixed, packed).set_index("point")["run_seconds"].round(9).to_dict() == {
        "k2-m2": 35.2, "k2-m3": 15.2, "default": 15.2}
    with pytest.raises(ValueError, match="not a budget table: lacks start_seconds"):
        relayout(table.drop(columns="start_seconds"), cfg)
