"""Sensitivity grid and heatmap."""
import pandas as pd
import pytest

from repset.report.sensitivity import plot_sensitivity, sensitivity_grid


def runs():
    rows = [{"dataset": "TWITTER", "model": "repset", "split": s, "point": f"k{k}-m{m}", "test_error": e + s * 0.02}
            for s in range(2) for (k, m, e) in [(10, 20, 0.30), (10, 50, 0.28), (20, 20, 0.26), (20, 50, 0.25)]]
    return pd.DataFrame(rows)


def test_grid_means_over_splits(tmp_path):
    grid = sensitivity_grid(runs(), "TWITTER")
    assert grid.index.tolist() == [10, 20] and grid.columns.tolist() == [20, 50]
    assert grid.loc[20, 50] == pytest.approx(26.0)
    plot_sensitivity(grid, "TWITTER", tmp_path / "s.pdf", tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 0
    with pytest.raises(ValueError, match="no runs of model 'repset' on dataset 'RECIPE'"):
        sensitivity_grid(runs(), "RECIPE")


def test_grid_uses_only_the_splits_that_trained_every_point():
    more = pd.concat([runs(), pd.DataFrame([{"dataset": "TWITTER", "model": "repset", "split": 2, "point": "k20-m50",
                                             "test_error": 0.90}])])
    grid = sensitivity_grid(more, "TWITTER")
    assert grid.loc[20, 50] == pytest.approx(26.0)      # split 2 (one point only) is left out
