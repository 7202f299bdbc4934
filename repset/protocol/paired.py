"""A lead's models against the record's, on the same folds: each fold's validation-selected test accuracy, selected
among the same grid points, paired fold by fold (a measurement's runs, e.g. another attention or a higher epoch
cap, against the protocol's records of the model it varies)."""
from __future__ import annotations

import pandas as pd

from .selection import repetition, select

__all__ = ["selected", "repetition_means", "repetition_std", "paired_table"]


def selected(runs: pd.DataFrame, model: str, points: set[str], folds: list[int]) -> pd.Series:
    """Test accuracy (%) of the validation-selected point per fold, among ``points``."""
    part = runs[(runs["model"] == model) & runs["point"].isin(points) & runs["split"].isin(folds)]
    return select(part).set_index("split")["test_accuracy"].sort_index() * 100


def repetition_means(values: pd.Series, dataset: str) -> pd.Series:
    """The means of ``values`` (indexed by fold) per CV repetition of ``dataset``, over the repetitions whose every
    fold it holds (indexed by repetition); empty for a dataset whose protocol is not repeated CV."""
    from repset.datasets.registry import get_spec

    if values.empty:
        return values.iloc[:0]
    reps = pd.Series([repetition(dataset, int(s)) for s in values.index], index=values.index)
    if reps.isna().all():
        return values.iloc[:0]
    counts = reps.value_counts()
    whole = reps.isin(counts[counts == get_spec(dataset).n_splits].index)
    return values[whole].groupby(reps[whole].astype(int)).mean()


def repetition_std(accuracy: pd.Series, dataset: str) -> float:
    """Std (ddof=0) of the per-repetition means of ``accuracy`` (indexed by fold) over the CV repetitions whose every
    fold it holds (:func:`repetition_means`), as the paper's graph std; NaN under two whole repetitions."""
    means = repetition_means(accuracy, dataset)
    return float(means.std(ddof=0)) if len(means) >= 2 else float("nan")


def paired_table(record: pd.DataFrame, lead: pd.DataFrame, pairs: dict[str, str], dataset: str, points: str = "",
                 label: str = "lead") -> pd.DataFrame:
    """One row per ``pairs`` (lead model -> record model) with folds, points, both means, the paired difference
    (lead - record) and its standard error, folds won / lost, on ``dataset``'s folds where the lead is complete; with
    two or more whole CV repetitions, both stds over the repetitions' means (the paper's graph std)."""
    record, lead = (f[(f["dataset"] == dataset) & f["point"].astype(str).str.startswith(points)]
                    for f in (record, lead))
    rows = []
    for variant, model in pairs.items():
        grid = set(record.loc[record["model"] == model, "point"])
        have = lead[lead["model"] == variant].groupby("split")["point"].unique().map(set)
        folds = sorted(k for k, got in have.items() if grid and grid <= got)
        if not folds:
            continue
        ours, theirs = selected(record, model, grid, folds), selected(lead, variant, grid, folds)
        diff = theirs - ours
        rows.append({"model": model, "lead model": variant, "folds": f"{len(folds)} ({folds[0]}-{folds[-1]})",
                     "points": len(grid), "record": ours.mean(), label: theirs.mean(), "paired diff": diff.mean(),
                     "s.e.": diff.std(ddof=1) / len(diff) ** 0.5 if len(diff) > 1 else float("nan"),
                     "folds won / lost": f"{int((diff > 0).sum())} / {int((diff < 0).sum())}",
                     "record std (reps)": repetition_std(ours, dataset),
                     f"{label} std (reps)": repetition_std(theirs, dataset)})
    return pd.DataFrame(rows)
