"""Models across draws of their input (e.g. struc2vec runs of different seeds or objectives), on the same folds:
each draw's mean selected test accuracy, and two groups of draws compared with the draw as the unit (all folds of
a draw share its input, so folds are not independent samples of the draw's effect)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
from scipy import stats

from .selection import select

__all__ = ["draw_means", "compare_draws"]


def draw_means(frames: Mapping[tuple[str, int], pd.DataFrame], reference: tuple[str, int], dataset: str,
               folds: int, points: str = "") -> pd.DataFrame:
    """Mean test accuracy (%) of the validation-selected point over splits ``0..folds-1``, per model (rows) and
    draw (columns: the ``frames`` keys, ``(group, seed)``, sorted).

    ``frames``: each draw's runs (:func:`~repset.protocol.selection.records_frame` columns). The grid is the
    ``reference`` draw's points of each model (only those whose name starts with ``points``: a sub-grid); a
    draw counts for a model only if it holds every one of them on every one of the folds, and selects among
    them alone. Draws and models that do not: no cell (NaN)."""
    if reference not in frames:
        raise KeyError(f"draw_means: the reference draw {reference!r} is not among the frames ({sorted(frames)})")
    if folds < 1:
        raise ValueError(f"draw_means: folds must be at least 1, got {folds}")

    def runs_of(frame: pd.DataFrame) -> pd.DataFrame:
        return frame[(frame["dataset"] == dataset) & (frame["split"] < folds)
                     & frame["point"].astype(str).str.startswith(points)]

    grid = runs_of(frames[reference]).groupby("model")["point"].unique().map(set)
    means = {}
    for draw, frame in frames.items():
        for model, runs in runs_of(frame).groupby("model"):
            have = runs.groupby("split")["point"].unique().map(set)
            if model in grid and len(have) == folds and all(grid[model] <= points_of for points_of in have):
                chosen = select(runs[runs["point"].isin(grid[model])])
                means[(model, *draw)] = 100 * chosen["test_accuracy"].mean()
    table = pd.Series(means, dtype=float)
    if table.empty:
        return pd.DataFrame()
    table = table.unstack([1, 2])
    return table.reindex(columns=sorted(table.columns))


def compare_draws(table: pd.DataFrame, first: str, second: str, pooled: Sequence[str] = ()) -> pd.DataFrame:
    """Per model of ``table`` (:func:`draw_means`), and for the mean per draw of the ``pooled`` models (a row
    ``mean of <n> models`` where all of them are in ``table``): each group's mean and sd over its draws, their
    number, ``second - first``, and Welch's t and two-sided p (NaN with fewer than two draws a side)."""
    rows = {}
    lines = list(table.iterrows())
    if pooled and all(m in table.index for m in pooled):
        lines.append((f"mean of {len(pooled)} models", table.loc[list(pooled)].mean(skipna=False)))
    groups = table.columns.get_level_values(0)
    for name, row in lines:
        a, b = (row[[g == group for g in groups]].dropna() for group in (first, second))
        out = {first: a.mean(), f"{first} sd": a.std(), f"{first} draws": len(a),
               second: b.mean(), f"{second} sd": b.std(), f"{second} draws": len(b),
               f"{second} - {first}": b.mean() - a.mean(), "Welch t": float("nan"), "p": float("nan")}
        if len(a) > 1 and len(b) > 1:
            test = stats.ttest_ind(b.to_numpy(), a.to_numpy(), equal_var=False)
            out.update({"Welch t": float(test.statistic), "p": float(test.pvalue)})
        rows[name] = out
    return pd.DataFrame(rows).T
