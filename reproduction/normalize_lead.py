"""RepSet and ApproxRepSet dividing each matching value by |X| (the authors' RepSet code; normalize_lead.yaml) against
the record's, on the same folds: each fold's validation-selected test accuracy, selected among the same grid points,
paired fold by fold. Run from the repository root:

    python reproduction/normalize_lead.py [--dataset PROTEINS] [--points k10-]

Reads reproduction/runs.csv (the record) and reproduction/normalize_lead/runs.csv; uses the folds on which the lead
holds every point of the (sub-)grid."""
import argparse
import sys

import pandas as pd

sys.path.insert(0, ".")
from repset.protocol.selection import select  # noqa: E402

LEAD = {"repset": "repset_input_size", "approx_repset": "approx_repset_input_size"}


def selected(runs: pd.DataFrame, model: str, points: set[str], folds: list[int]) -> pd.Series:
    """Test accuracy (%) of the validation-selected point per fold, among ``points``."""
    part = runs[(runs["model"] == model) & runs["point"].isin(points) & runs["split"].isin(folds)]
    return select(part).set_index("split")["test_accuracy"].sort_index() * 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="PROTEINS")
    parser.add_argument("--points", default="", help="only the grid points whose name starts so, e.g. k10-")
    args = parser.parse_args()
    record = pd.read_csv("reproduction/runs.csv")
    lead = pd.read_csv("reproduction/normalize_lead/runs.csv")
    record, lead = (f[(f["dataset"] == args.dataset) & f["point"].astype(str).str.startswith(args.points)]
                    for f in (record, lead))
    rows = []
    for model, variant in LEAD.items():
        points = set(record.loc[record["model"] == model, "point"])
        have = lead[lead["model"] == variant].groupby("split")["point"].unique().map(set)
        folds = sorted(k for k, got in have.items() if points and points <= got)
        if not folds:
            continue
        ours, theirs = selected(record, model, points, folds), selected(lead, variant, points, folds)
        diff = theirs - ours
        rows.append({"model": model, "folds": f"{len(folds)} ({folds[0]}-{folds[-1]})", "points": len(points),
                     "record": ours.mean(), "divided by |X|": theirs.mean(), "paired diff": diff.mean(),
                     "s.e.": diff.std(ddof=1) / len(diff) ** 0.5 if len(diff) > 1 else float("nan"),
                     "folds won / lost": f"{int((diff > 0).sum())} / {int((diff < 0).sum())}"})
    print(pd.DataFrame(rows).round(2).to_markdown(index=False))


if __name__ == "__main__":
    main()
