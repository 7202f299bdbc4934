"""One graph dataset's models across struc2vec draws and skip-gram objectives, from the records under reproduction/:
the record (seed 0) and embed_seed/seed<S>/ (our objective, negative sampling only), struc2vec_hs/seed<S>/ (the
reference implementation's, hierarchical softmax beside 5 negative samples). Run from the repository root:

    python reproduction/embedding_draws.py [--dataset IMDB-BINARY] [--folds 30] [--points k10-]

Per model and draw: the mean test accuracy (%) over folds 0..folds-1 of the validation-selected grid point
(``repset.protocol.selection.select``), for the draws whose records hold every point of those folds; then the two
objectives compared over draws (Welch's t: the draw is the unit, as all folds of a draw share its embedding).
``--points``: only the grid points whose name starts so (a sub-grid, selected among its own points on both sides)."""
import argparse
import os
import sys

import pandas as pd
from scipy import stats

sys.path.insert(0, ".")
from repset.protocol.selection import select  # noqa: E402

#: (objective, struc2vec seed) -> the runs.csv holding that draw's records
DRAWS = {("ours", 0): "reproduction/runs.csv",
         **{("ours", s): f"reproduction/embed_seed/seed{s}/runs.csv" for s in (1, 2)},
         **{("hs", s): f"reproduction/struc2vec_hs/seed{s}/runs.csv" for s in (0, 1, 2)}}
BASELINES = ["deepsets", "nn_mean", "nn_max", "nn_attention", "set_transformer"]


def draw_means(dataset: str, folds: int, points: str) -> pd.DataFrame:
    """Mean selected test accuracy (%) per model (rows) and draw (columns: objective, seed), for the draws that
    hold every grid point of the record (restricted to ``points``) on every one of the folds."""
    def runs_of(path: str) -> pd.DataFrame:
        frame = pd.read_csv(path)
        return frame[(frame.dataset == dataset) & (frame.split < folds) & frame.point.str.startswith(points)]
    grid = runs_of(DRAWS[("ours", 0)]).groupby("model").point.unique().map(set)
    means = {}
    for draw, path in DRAWS.items():
        if not os.path.isfile(path):
            continue
        for model, runs in runs_of(path).groupby("model"):
            whole = runs.groupby("split").point.unique().map(set)
            if model in grid and len(whole) == folds and all(grid[model] <= have for have in whole):
                means[(model, *draw)] = 100 * select(runs[runs.point.isin(grid[model])]).test_accuracy.mean()
    table = pd.Series(means, dtype=float).unstack([1, 2])
    return table.reindex(columns=sorted(table.columns))


def compare(table: pd.DataFrame) -> pd.DataFrame:
    """Per model (and the baselines' mean per draw): each objective's mean and sd over its draws, the
    difference hs - ours and Welch's t and p."""
    rows = {}
    base = [m for m in BASELINES if m in table.index]
    for name, row in [*table.iterrows(), ("mean of the baselines", table.loc[base].mean() if base else None)]:
        if row is None:
            continue
        ours, hs = (row[o].dropna() if o in row.index.get_level_values(0) else pd.Series(dtype=float)
                    for o in ("ours", "hs"))
        out = {"ours": ours.mean(), "ours sd": ours.std(), "draws ours": len(ours),
               "hs": hs.mean(), "hs sd": hs.std(), "draws hs": len(hs), "hs - ours": hs.mean() - ours.mean()}
        if len(ours) > 1 and len(hs) > 1:
            test = stats.ttest_ind(hs, ours, equal_var=False)
            out.update({"Welch t": test.statistic, "p": test.pvalue})
        rows[name] = out
    return pd.DataFrame(rows).T


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="IMDB-BINARY")
    parser.add_argument("--folds", type=int, default=30)
    parser.add_argument("--points", default="", help="only the grid points whose name starts so, e.g. k10-")
    args = parser.parse_args()
    table = draw_means(args.dataset, args.folds, args.points)
    result = compare(table)
    where = f"{args.dataset}, folds 0-{args.folds - 1}" + (f", points {args.points}*" if args.points else "")
    print(f"## Mean selected test accuracy (%) per draw ({where})\n")
    print(table.set_axis([f"{objective} s{seed}" for objective, seed in table.columns], axis=1).round(2).to_markdown())
    print("\n## The two objectives over draws\n")
    print(result.round(3).to_markdown())

if __name__ == "__main__":
    main()
