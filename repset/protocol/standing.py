"""Where a model stands against the others on the same splits: per dataset, its validation-selected test result
paired split by split with each other model's, the mean paired difference, its standard error, a two-sided paired
t-test, and a rank that ties the models it is not significantly different from.

Values are in the result tables' metric: test error (%) on text datasets (lower is better), accuracy (%) on graph
datasets (higher is better); a difference is the model's value minus the other's. The unit of the test is a split
of a text dataset, and a CV repetition of a graph dataset (the mean over its folds: folds of one repetition share
most of their training sets, so they are not independent), falling back to the folds where fewer than two whole
repetitions are paired (e.g. a reduced protocol's first repetition). Several seeds of one split are averaged first.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from repset.datasets.registry import get_spec

from .paired import repetition_means

__all__ = ["ALPHA", "TEST", "STANDING_COLUMNS", "RANK_COLUMNS", "table_values", "paired_units", "compare",
           "standing_table", "rank_table"]

#: the level at which a difference counts as significant (each comparison on its own, two-sided)
ALPHA = 0.05
#: the test, as the report states it
TEST = "two-sided paired t-test (scipy.stats.ttest_rel)"
#: the columns of :func:`standing_table`
STANDING_COLUMNS = ("dataset", "model", "other", "metric", "splits", "units", "n", "mean", "other mean", "diff",
                    "s.e.", "t", "p", "won / lost", "verdict")
#: the columns of :func:`rank_table`
RANK_COLUMNS = ("dataset", "model", "metric", "mean", "rank", "of", "ahead of", "tied with", "behind")


def table_values(selected: pd.DataFrame, dataset: str, model: str) -> pd.Series:
    """The validation-selected test result (``selected``: :func:`~repset.protocol.selection.select`'s rows) of
    ``model`` on ``dataset`` per split (the mean over seeds), in the tables' metric: accuracy % on a graph dataset,
    test error % on a text one."""
    column = "test_accuracy" if get_spec(dataset).kind == "graph" else "test_error"
    part = selected[(selected["dataset"] == dataset) & (selected["model"] == model)]
    return part.groupby("split")[column].mean().sort_index() * 100


def paired_units(ours: pd.Series, theirs: pd.Series, dataset: str) -> tuple[pd.Series, pd.Series, str]:
    """``ours`` and ``theirs`` (per split) on their common splits, as the units of the test: the CV repetitions'
    means where two or more whole repetitions are common (:func:`~repset.protocol.paired.repetition_means`), else
    the splits themselves; and the units' name (``repetitions``, ``folds`` or ``splits``)."""
    common = ours.index.intersection(theirs.index)
    ours, theirs = ours.loc[common], theirs.loc[common]
    if get_spec(dataset).kind != "graph":
        return ours, theirs, "splits"
    mine, other = repetition_means(ours, dataset), repetition_means(theirs, dataset)
    if len(mine) >= 2:
        return mine, other, "repetitions"
    return ours, theirs, "folds"


def compare(ours: pd.Series, theirs: pd.Series, dataset: str, alpha: float = ALPHA) -> dict:
    """One model (``ours``, per split, :func:`table_values`) against another (``theirs``) on ``dataset``'s common
    splits: the two means and their paired difference over those splits, its standard error and :data:`TEST` over
    the units of :func:`paired_units`, splits won / lost, and the verdict: ``better`` or ``worse`` where p < ``alpha``,
    else ``tie`` (no test under two units: ``tie``, p NaN)."""
    common = ours.index.intersection(theirs.index)
    diff = ours.loc[common] - theirs.loc[common]
    a, b, units = paired_units(ours, theirs, dataset)
    t = p = se = float("nan")
    if len(a) >= 2:
        from scipy import stats

        se = float((a - b).std(ddof=1) / np.sqrt(len(a)))
        with warnings.catch_warnings():       # identical units: scipy warns and gives NaN (all equal) or inf
            warnings.simplefilter("ignore", RuntimeWarning)
            result = stats.ttest_rel(a.to_numpy(), b.to_numpy(), alternative="two-sided")
        t, p = float(result.statistic), float(result.pvalue)
    higher = get_spec(dataset).kind == "graph"
    ahead = diff.mean() > 0 if higher else diff.mean() < 0
    verdict = "tie" if not p < alpha else "better" if ahead else "worse"
    won = int((diff > 0).sum() if higher else (diff < 0).sum())
    lost = int((diff < 0).sum() if higher else (diff > 0).sum())
    return {"metric": "accuracy" if higher else "error", "splits": len(common), "units": units, "n": len(a),
            "mean": float(ours.loc[common].mean()), "other mean": float(theirs.loc[common].mean()),
            "diff": float(diff.mean()), "s.e.": se, "t": t, "p": p, "won / lost": f"{won} / {lost}", "verdict": verdict}


def standing_table(selected: pd.DataFrame, models: list[str], alpha: float = ALPHA) -> pd.DataFrame:
    """Every model of ``models`` against every other model of ``selected`` (:func:`~repset.protocol.selection.
    select`'s rows) on each dataset where both ran, by :func:`compare`; :data:`STANDING_COLUMNS`, the text datasets
    first (as the result tables), each kind in the frame's order."""
    rows = []
    for dataset in sorted(dict.fromkeys(selected["dataset"]), key=lambda d: get_spec(d).kind != "text"):
        here = list(dict.fromkeys(selected.loc[selected["dataset"] == dataset, "model"]))
        for model in (m for m in models if m in here):
            ours = table_values(selected, dataset, model)
            for other in (m for m in here if m not in models):
                theirs = table_values(selected, dataset, other)
                if len(ours.index.intersection(theirs.index)):
                    rows.append({"dataset": dataset, "model": model, "other": other,
                                 **compare(ours, theirs, dataset, alpha)})
    return pd.DataFrame(rows, columns=list(STANDING_COLUMNS))


def rank_table(standing: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and model of :func:`standing_table`: its rank (1 = best) among itself and the models it was
    compared with, ties where a difference is not significant: ``rank`` runs from one plus the models significantly
    ahead of it to that plus the models it ties with (``2-4``; one number without ties); ``of``: the models ranked;
    and the other models it is significantly ahead of, tied with, and significantly behind. :data:`RANK_COLUMNS`."""
    rows = []
    for (dataset, model), part in standing.groupby(["dataset", "model"], sort=False):
        names = {v: sorted(part.loc[part["verdict"] == v, "other"]) for v in ("better", "tie", "worse")}
        first, last = 1 + len(names["worse"]), 1 + len(names["worse"]) + len(names["tie"])
        rows.append({"dataset": dataset, "model": model, "metric": part["metric"].iloc[0],
                     "mean": _table_mean(part), "rank": str(first) if first == last else f"{first}-{last}",
                     "of": len(part) + 1, "ahead of": names["better"], "tied with": names["tie"],
                     "behind": names["worse"]})
    return pd.DataFrame(rows, columns=list(RANK_COLUMNS))


def _table_mean(part: pd.DataFrame) -> float:
    """The model's mean over the most splits it shares with any other model of ``part`` (its table cell where every
    model ran every split)."""
    return float(part.sort_values("splits", ascending=False, kind="stable")["mean"].iloc[0])
