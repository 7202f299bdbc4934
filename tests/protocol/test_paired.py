"""A lead's runs paired fold by fold with the record's (repset.protocol.paired)."""
import math

import numpy as np
import pandas as pd
import pytest

from repset.protocol.paired import paired_table, repetition_means, repetition_std

POINTS = ["k10-m20", "k20-m20"]


def _runs(model: str, folds, shift: float = 0.0, points=POINTS, dataset: str = "MUTAG") -> pd.DataFrame:
    """Every point of every fold; validation prefers k20-m20, whose test accuracy is 0.70 + shift + fold / 1000."""
    rows = []
    for split in folds:
        for point in points:
            val = {"k10-m20": 0.3, "k20-m20": 0.1}[point]
            acc = {"k10-m20": 0.5, "k20-m20": 0.7}[point] + shift + split / 1000
            rows.append({"dataset": dataset, "model": model, "split": split, "point": point, "val_error": val,
                         "val_loss": val, "test_accuracy": acc, "test_error": 1 - acc})
    return pd.DataFrame(rows)


def test_paired_table_pairs_the_selected_runs_on_the_folds_where_the_lead_holds_the_grid():
    record = _runs("repset", range(30))
    lead = pd.concat([_runs("variant", range(20), shift=0.01),            # two whole MUTAG repetitions (10 folds)
                      _runs("variant", [20], points=POINTS[:1]),           # a fold short of a point: left out
                      _runs("lost", range(5), shift=-0.02)], ignore_index=True)
    table = paired_table(record, lead, {"variant": "repset", "lost": "repset", "absent": "repset"}, "MUTAG",
                         label="lead").set_index("lead model")
    assert list(table.index) == ["variant", "lost"]                         # a lead model with no fold: no row
    row = table.loc["variant"]
    assert row["folds"] == "20 (0-19)" and row["points"] == 2 and row["folds won / lost"] == "20 / 0"
    assert row["record"] == pytest.approx(70 + np.mean(range(20)) / 10)
    assert row["paired diff"] == pytest.approx(1.0) and row["s.e."] == pytest.approx(0.0, abs=1e-9)
    # the std over the repetitions' means (folds 0-9 and 10-19: means 70.45 and 71.45) is the paper's graph std
    assert row["record std (reps)"] == pytest.approx(0.5) and row["lead std (reps)"] == pytest.approx(0.5)
    lost = table.loc["lost"]
    assert lost["folds"] == "5 (0-4)" and lost["folds won / lost"] == "0 / 5"
    assert lost["paired diff"] == pytest.approx(-2.0) and math.isnan(lost["record std (reps)"])   # no whole one
    # a sub-grid: only the points named so, selected among themselves
    sub = paired_table(record, lead, {"variant": "repset"}, "MUTAG", points="k10-").iloc[0]
    assert sub["points"] == 1 and sub["folds"] == "21 (0-20)"
    assert sub["record"] == pytest.approx(50 + np.mean(range(21)) / 10)


def test_repetition_std_needs_two_whole_repetitions_of_a_repeated_cv():
    accuracy = pd.Series(np.r_[np.full(10, 70.0), np.full(10, 72.0), np.full(5, 90.0)], index=range(25))
    assert repetition_std(accuracy, "MUTAG") == pytest.approx(1.0)             # the third repetition is partial
    assert repetition_means(accuracy, "MUTAG").to_dict() == {0: 70.0, 1: 72.0}
    assert repetition_means(accuracy, "bbcsport").empty
    assert math.isnan(repetition_std(accuracy.iloc[:15], "MUTAG"))
    assert math.isnan(repetition_std(accuracy, "bbcsport"))                   # random splits: no repetitions
    assert math.isnan(repetition_std(pd.Series(dtype=float), "MUTAG"))
