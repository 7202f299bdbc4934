"""Draws of a model's input compared on the same folds (repset.protocol.draws)."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from repset.protocol.draws import compare_draws, draw_means

POINTS = ["k10-m20", "k10-m30", "k20-m20"]


def _runs(shift: float, folds: int = 4, points=POINTS, model: str = "m", dataset: str = "D") -> pd.DataFrame:
    """Every point of every fold; the lowest val error at k10-m30 except on k20-m20, whose accuracy is the
    fold's best (so a sub-grid without it selects k10-m30)."""
    rows = []
    for split in range(folds):
        for point in points:
            val = {"k10-m20": 0.3, "k10-m30": 0.2, "k20-m20": 0.1}[point]
            acc = {"k10-m20": 0.5, "k10-m30": 0.6, "k20-m20": 0.7}[point] + shift + 0.01 * split
            rows.append({"dataset": dataset, "model": model, "split": split, "point": point, "val_error": val,
                         "val_loss": val, "test_accuracy": acc, "test_error": 1 - acc})
    return pd.DataFrame(rows)


def test_draw_means_selects_per_fold_and_keeps_only_whole_draws():
    frames = {("a", 0): _runs(0.0), ("a", 1): _runs(0.02), ("b", 0): _runs(0.05),
              ("b", 1): _runs(0.1, folds=3),                                  # a fold short: no cell
              ("b", 2): _runs(0.1, points=POINTS[:2])}                        # a point short: no cell
    table = draw_means(frames, ("a", 0), "D", folds=4)
    assert list(table.columns) == [("a", 0), ("a", 1), ("b", 0)]
    mean_split = 0.01 * np.mean(range(4))
    assert table.loc["m", ("a", 0)] == pytest.approx(100 * (0.7 + mean_split))   # k20-m20 selected on every fold
    assert table.loc["m", ("b", 0)] == pytest.approx(100 * (0.75 + mean_split))
    # fewer folds than a draw holds: the rest are ignored, and the short draw now counts
    assert draw_means(frames, ("a", 0), "D", folds=3).loc["m", ("b", 1)] == pytest.approx(100 * (0.8 + 0.01))


def test_draw_means_on_a_sub_grid_selects_among_its_points():
    frames = {("a", 0): _runs(0.0), ("b", 0): _runs(0.1, points=POINTS[:2])}
    table = draw_means(frames, ("a", 0), "D", folds=4, points="k10-")
    assert table.loc["m", ("a", 0)] == pytest.approx(100 * (0.6 + 0.015))       # k10-m30, not k20-m20
    assert table.loc["m", ("b", 0)] == pytest.approx(100 * (0.7 + 0.015))
    assert draw_means(frames, ("a", 0), "E", folds=4).empty                     # another dataset: nothing


def test_compare_draws_is_welch_over_draws_and_pools_named_models():
    a, b = [70.0, 70.5, 69.5], [71.0, 72.0, 71.5]
    cols = pd.MultiIndex.from_tuples([("ours", s) for s in range(3)] + [("hs", s) for s in range(3)])
    table = pd.DataFrame([a + b, [x + 1 for x in a] + [x - 1 for x in b]], index=["m1", "m2"], columns=cols)
    out = compare_draws(table, "ours", "hs", pooled=["m1", "m2"])
    welch = stats.ttest_ind(b, a, equal_var=False)
    assert out.loc["m1", "hs - ours"] == pytest.approx(np.mean(b) - np.mean(a))
    assert out.loc["m1", "Welch t"] == pytest.approx(welch.statistic)
    assert out.loc["m1", "p"] == pytest.approx(welch.pvalue)
    assert out.loc["m1", "ours draws"] == 3 and out.loc["m1", "hs sd"] == pytest.approx(np.std(b, ddof=1))
    pooled = out.loc["mean of 2 models"]
    assert pooled["ours"] == pytest.approx(np.mean(a) + 0.5) and pooled["hs"] == pytest.approx(np.mean(b) - 0.5)
    assert "mean of 1 models" not in compare_draws(table, "ours", "hs", pooled=["m1", "x"]).index   # x absent
    one = compare_draws(table[[("ours", 0), ("hs", 0), ("hs", 1)]], "ours", "hs")
    assert one.loc["m1", "ours draws"] == 1 and np.isnan(one.loc["m1", "p"])   # one draw a side: no test


def test_draw_means_refuses_a_missing_reference_and_no_folds():
    frames = {("a", 0): _runs(0.0)}
    with pytest.raises(KeyError, match="reference draw"):
        draw_means(frames, ("b", 0), "D", folds=4)
    with pytest.raises(ValueError, match="folds"):
        draw_means(frames, ("a", 0), "D", folds=0)
