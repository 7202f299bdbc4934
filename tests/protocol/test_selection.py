"""Selection on validation and aggregation over splits."""
import numpy as np
import pandas as pd
import pytest
import yaml
from repo_paths import ROOT

from repset.protocol.jobs import runs
from repset.protocol.selection import (TIE_COLUMNS, TRAINING_COLUMNS, aggregate, count_training_paths, random_tie_cells,
                                       records_frame, select, selected_point, tie_break_cells, tie_spread, training_path,
                                       training_paths)


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


def test_graph_std_is_over_the_repetitions_means():
    rows = [{"dataset": "MUTAG", "model": "m", "split": s, "point": "p", "test_error": e, "test_accuracy": 1 - e,
             "epoch_seconds": 1.0} for s, e in zip(range(40), [0.1] * 10 + [0.3] * 10 + [0.0, 0.2] * 5 + [0.2] * 10)]
    agg = aggregate(pd.DataFrame(rows)).iloc[0]
    assert agg["repetitions"] == 4 and agg["std_over"] == "repetitions" and agg["splits"] == 40
    assert agg["test_error_mean"] == pytest.approx(17.5)
    assert agg["test_accuracy_std"] == pytest.approx(pd.Series([10.0, 30.0, 10.0, 20.0]).std(ddof=0))  # not over folds
    one = aggregate(pd.DataFrame(rows[:10] + [{**r, "dataset": "bbcsport"} for r in rows[:5]]))
    assert one.set_index("dataset")["std_over"].to_dict() == {"MUTAG": "folds", "bbcsport": "splits"}


def test_the_first_repetition_of_a_reduced_dataset_reports_its_std_over_folds():
    """``protocol.per_dataset: {REDDIT-BINARY: {graph_splits: 10, grid_splits: 1}}`` trains the first CV
    repetition: its cells' std is over folds (REPORT.md then gives no sigma verdict), MUTAG's over repetitions."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["datasets"] = {"text": [], "graph": ["MUTAG", "REDDIT-BINARY"]}
    config["protocol"].update(graph_splits=20, per_dataset={"REDDIT-BINARY": {"graph_splits": 10, "grid_splits": 1}})
    rows = [{"dataset": r.dataset, "model": r.model, "split": r.split, "point": r.point, "test_error": 0.01 * r.split,
             "test_accuracy": 1 - 0.01 * r.split, "epoch_seconds": 1.0, "val_error": 0.1, "val_loss": 0.1}
            for r in runs(config) if r.model == "repset"]
    agg = aggregate(select(pd.DataFrame(rows))).set_index("dataset")
    assert agg.loc["REDDIT-BINARY", ["splits", "repetitions", "std_over"]].tolist() == [10, 1, "folds"]
    assert agg.loc["MUTAG", ["splits", "repetitions", "std_over"]].tolist() == [20, 2, "repetitions"]


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


def test_no_records_give_empty_tables_with_their_columns():
    frame = records_frame([])
    assert list(frame.columns) == ["dataset", "model", "split", "point", "seed", "val_error", "val_loss",
                                   "test_error", "test_accuracy", "epoch_seconds", "epochs_run"] and frame.empty
    chosen = select(frame)
    assert chosen.empty and list(chosen.columns) == list(frame.columns)
    summary = aggregate(chosen)
    assert summary.empty and {"dataset", "model", "test_error_mean", "test_accuracy_std", "splits",
                              "std_over", "points"} <= set(summary.columns)


def test_training_paths_count_the_runs_of_each_path_taken_per_dataset():
    def record(dataset, layout, sha="a" * 64, **train):
        return {"dataset": dataset, "train_config": {"seed": 0, **train}, "store_meta": {"layout": layout, "sha256": sha}}

    words, values = "vectors+element_ids", "values"
    records = [record("bbcsport", words),                                          # before the options: padded
               record("bbcsport", words, distinct_elements=False, ragged=False, max_elements=None),   # the same path
               record("bbcsport", words, distinct_elements=True, ragged=True, max_elements=4096),
               record("MUTAG", values, distinct_elements=True, max_elements=65536),     # a store of values pads
               record("MUTAG", values, distinct_elements=True, max_elements=65536, device="cuda"),
               record("MUTAG", values, distinct_elements=False, max_elements=65536, device="cpu"),
               record("MUTAG", values, sha="b" * 64, max_elements=65536),               # another store: its own row
               {"dataset": "MUTAG", "train_config": {"seed": 0, "max_elements": 65536}}]  # no store named
    table = training_paths(records)
    assert list(table.columns) == list(TRAINING_COLUMNS)
    assert table.astype(object).where(table.notna(), None).values.tolist() == [
        ["MUTAG", False, False, 65536, "cpu", "", 1], ["MUTAG", False, False, 65536, "cpu", "a" * 64, 2],
        ["MUTAG", False, False, 65536, "cpu", "b" * 64, 1], ["MUTAG", False, False, 65536, "cuda", "a" * 64, 1],
        ["bbcsport", False, False, None, "cpu", "a" * 64, 2], ["bbcsport", True, True, 4096, "cpu", "a" * 64, 1]]
    # the per-record key is what the table counts: counting the keys gives the same table
    keys = [training_path(r) for r in records]
    assert keys[0] == keys[1] == ("bbcsport", False, False, None, "cpu", "a" * 64)
    assert keys[3] == ("MUTAG", False, False, 65536, "cpu", "a" * 64)
    assert count_training_paths(keys).equals(table)
    assert count_training_paths([]).empty and list(count_training_paths([]).columns) == list(TRAINING_COLUMNS)


def test_tie_spread_counts_ties_and_bounds_the_cell_over_every_tie_break():
    """Split 0: points a and b tie on validation error (b has the lower loss, so select takes b, test 0.30; a's
    test 0.10); split 1: no tie (c, test 0.20); split 2: a and c tie on error and loss (grid order: a). A model
    with one point (no grid) is left out."""
    rows = [(0, "a", 0.1, 0.9, 0.10), (0, "b", 0.1, 0.5, 0.30), (0, "c", 0.2, 0.1, 0.00),
            (1, "a", 0.3, 0.5, 0.40), (1, "c", 0.1, 0.5, 0.20),
            (2, "a", 0.1, 0.5, 0.50), (2, "c", 0.1, 0.5, 0.10)]
    frame = pd.DataFrame([{"dataset": "d", "model": "m", "split": s, "point": p, "seed": 0, "val_error": v,
                           "val_loss": lo, "test_error": t, "test_accuracy": 1 - t} for s, p, v, lo, t in rows]
                         + [{"dataset": "d", "model": "fixed", "split": 0, "point": "default", "seed": 0,
                             "val_error": 0.1, "val_loss": 0.1, "test_error": 0.1, "test_accuracy": 0.9}])
    ties = tie_spread(frame)
    assert list(ties.columns) == list(TIE_COLUMNS) and ties["model"].tolist() == ["m"]
    row = ties.iloc[0]
    assert (row["choices"], row["tied_error"], row["tied_both"]) == (3, 2, 1)
    assert row["error_selected"] == pytest.approx(100 * (0.30 + 0.20 + 0.50) / 3)   # as select chooses
    assert row["error_random"] == pytest.approx(100 * (0.20 + 0.20 + 0.30) / 3)    # each split's tied mean
    assert row["error_low"] == pytest.approx(100 * (0.10 + 0.20 + 0.10) / 3)
    assert row["error_high"] == pytest.approx(100 * (0.30 + 0.20 + 0.50) / 3)
    assert row["error_low"] <= row["error_selected"] <= row["error_high"]


def test_tie_spread_counts_a_reduced_protocols_chosen_runs_in_the_cell_and_refuses_missing_validation():
    """Split 0 searched (a and b tie), splits 1-2 train the chosen point only: the cell is the result table's (every
    split), only split 0 is a choice; no seed column needed; a NaN validation loss is an error, not a silent drop."""
    rows = [(0, "a", 0.1, 0.9, 0.10), (0, "b", 0.1, 0.5, 0.30), (1, "chosen", 0.2, 0.5, 0.50),
            (2, "chosen", 0.2, 0.5, 0.20)]
    frame = pd.DataFrame([{"dataset": "d", "model": "m", "split": s, "point": p, "val_error": v, "val_loss": lo,
                           "test_error": t, "test_accuracy": 1 - t, "epoch_seconds": 1.0} for s, p, v, lo, t in rows])
    row = tie_spread(frame).iloc[0]
    assert (row["choices"], row["tied_error"]) == (1, 1)
    assert row["error_selected"] == pytest.approx(aggregate(select(frame)).loc[0, "test_error_mean"])
    assert (row["error_low"], row["error_high"]) == (pytest.approx(100 * 0.8 / 3), pytest.approx(100 * 1.0 / 3))
    with pytest.raises(ValueError, match="without a validation error or loss"):
        tie_spread(frame.assign(val_loss=[0.9, float("nan"), 0.5, 0.5]))


def test_tie_break_cells_and_random_tie_cells_stay_within_tie_spreads_bounds():
    """Two splits, each with a and b tied on validation error: the higher-loss rule takes a on split 0 (test 0.10) and b
    on split 1 (0.40); random draws take only the four tied combinations, their mean near error_random."""
    rows = [(0, "a", 0.1, 0.9, 0.10), (0, "b", 0.1, 0.5, 0.30), (0, "c", 0.3, 0.1, 0.00),
            (1, "a", 0.2, 0.2, 0.20), (1, "b", 0.2, 0.6, 0.40)]
    frame = pd.DataFrame([{"dataset": "d", "model": "m", "split": s, "point": p, "seed": 0, "val_error": v,
                           "val_loss": lo, "test_error": t} for s, p, v, lo, t in rows])
    cells = tie_break_cells(frame, {"low loss": ("val_loss", True), "high loss": ("val_loss", False)}).iloc[0]
    assert cells["low loss"] == pytest.approx(100 * (0.30 + 0.20) / 2)      # as select
    assert cells["high loss"] == pytest.approx(100 * (0.10 + 0.40) / 2)
    draws = random_tie_cells(frame, 4000, seed=1)
    assert set(np.round(draws, 6)) == {15.0, 25.0, 35.0}
    spread = tie_spread(frame).iloc[0]
    assert draws.mean() == pytest.approx(spread["error_random"], abs=0.5)
    assert spread["error_low"] <= draws.min() and draws.max() <= spread["error_high"]
