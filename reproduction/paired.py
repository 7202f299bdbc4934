"""A lead's models against the record's, on the same folds: each fold's validation-selected test accuracy, selected
among the same grid points, paired fold by fold. Run from the repository root:

    python reproduction/paired.py LEAD_FOLDER VARIANT=MODEL... [--dataset PROTEINS] [--points k10-]
    python reproduction/paired.py reproduction/attention_variant nn_attention_gated=nn_attention \
        nn_attention_query=nn_attention --dataset PROTEINS

Reads reproduction/runs.csv (the record) and LEAD_FOLDER/runs.csv; uses the folds on which the lead holds every point
of the record's (sub-)grid of MODEL."""
from __future__ import annotations

import argparse
import sys

import pandas as pd

sys.path.insert(0, ".")
from repset.protocol.selection import repetition, select  # noqa: E402


def selected(runs: pd.DataFrame, model: str, points: set[str], folds: list[int]) -> pd.Series:
    """Test accuracy (%) of the validation-selected point per fold, among ``points``."""
    part = runs[(runs["model"] == model) & runs["point"].isin(points) & runs["split"].isin(folds)]
    return select(part).set_index("split")["test_accuracy"].sort_index() * 100


def repetition_std(accuracy: pd.Series, dataset: str) -> float:
    """Std (ddof=0) of the per-repetition means of ``accuracy`` (indexed by fold) over the CV repetitions whose every
    fold it holds, as the paper's graph std; NaN under two whole repetitions."""
    from repset.datasets.registry import get_spec

    reps = pd.Series([repetition(dataset, int(s)) for s in accuracy.index], index=accuracy.index)
    if reps.isna().all():
        return float("nan")
    counts = reps.value_counts()
    whole = counts[counts == get_spec(dataset).n_splits].index
    means = accuracy[reps.isin(whole)].groupby(reps[reps.isin(whole)]).mean()
    return float(means.std(ddof=0)) if len(means) >= 2 else float("nan")


def paired_table(record: pd.DataFrame, lead: pd.DataFrame, pairs: dict[str, str], dataset: str, points: str = "",
                 label: str = "lead") -> pd.DataFrame:
    """One row per ``pairs`` (lead model -> record model) with folds, points, both means, the paired difference
    (lead - record) and its standard error, folds won / lost, on ``dataset``'s folds where the lead is complete; with
    two or more whole CV repetitions, both stds over the repetitions' means (the paper's graph std)."""
    record, lead = (f[(f["dataset"] == dataset) & f["point"].astype(str).str.startswith(points)] for f in (record, lead))
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
                     "record std (reps)": repetition_std(ours, dataset), f"{label} std (reps)": repetition_std(theirs, dataset)})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None, label: str = "lead") -> None:
    """The command line (``argv``: sys.argv[1:] by default); ``label`` names the lead's mean column."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lead_folder", help="a folder of records with runs.csv, e.g. reproduction/attention_variant")
    parser.add_argument("pairs", nargs="+", metavar="VARIANT=MODEL", help="a lead model and the record's model")
    parser.add_argument("--dataset", default="PROTEINS")
    parser.add_argument("--points", default="", help="only the grid points whose name starts so, e.g. k10-")
    args = parser.parse_args(argv)
    bad = [p for p in args.pairs if p.count("=") != 1]
    if bad:
        parser.error(f"pairs: {bad[0]!r} is not VARIANT=MODEL")
    record = pd.read_csv("reproduction/runs.csv")
    lead = pd.read_csv(f"{args.lead_folder}/runs.csv")
    table = paired_table(record, lead, dict(p.split("=") for p in args.pairs), args.dataset, args.points, label)
    if table.empty:
        sys.exit(f"{args.lead_folder}: no fold of {args.dataset} where a lead model holds its record model's grid")
    print(table.round(2).to_markdown(index=False))


if __name__ == "__main__":
    main()
