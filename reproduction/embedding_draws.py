"""One graph dataset's models across struc2vec draws and skip-gram objectives, from the records under reproduction/:
the record (seed 0) and embed_seed/seed<S>/ (ours: negative sampling only), struc2vec_hs/seed<S>/ (the reference
implementation's: hierarchical softmax beside 5 negative samples). Run from the repository root:

    python reproduction/embedding_draws.py [--dataset IMDB-BINARY] [--folds 30] [--points k10-]

Prints each model's mean selected test accuracy (%) per draw over folds 0..folds-1 and the two objectives compared
over draws, the draw as the unit (``repset.protocol.draws``). ``--points``: a sub-grid, the grid points whose name
starts so, selected among themselves in every draw."""
import argparse
import os
import sys

import pandas as pd

sys.path.insert(0, ".")
from repset.protocol.draws import compare_draws, draw_means  # noqa: E402

#: (objective, struc2vec seed) -> the runs.csv holding that draw's records
DRAWS = {("ours", 0): "reproduction/runs.csv",
         **{("ours", s): f"reproduction/embed_seed/seed{s}/runs.csv" for s in (1, 2)},
         **{("hs", s): f"reproduction/struc2vec_hs/seed{s}/runs.csv" for s in (0, 1, 2)}}
BASELINES = ["deepsets", "nn_mean", "nn_max", "nn_attention", "set_transformer"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="IMDB-BINARY")
    parser.add_argument("--folds", type=int, default=30)
    parser.add_argument("--points", default="", help="only the grid points whose name starts so, e.g. k10-")
    args = parser.parse_args()
    frames = {draw: pd.read_csv(path) for draw, path in DRAWS.items() if os.path.isfile(path)}
    table = draw_means(frames, ("ours", 0), args.dataset, args.folds, args.points)
    where = f"{args.dataset}, folds 0-{args.folds - 1}" + (f", points {args.points}*" if args.points else "")
    print(f"## Mean selected test accuracy (%) per draw ({where})\n")
    print(table.set_axis([f"{objective} s{seed}" for objective, seed in table.columns], axis=1).round(2).to_markdown())
    compared = compare_draws(table, "ours", "hs", pooled=BASELINES)
    if compared["hs draws"].max() == 0:     # a dataset with draws of our objective only: their mean and sd
        print("\n## Over the draws of our objective\n")
        print(compared[["ours", "ours sd", "ours draws"]].round(3).to_markdown())
    else:
        print("\n## The two objectives over draws\n")
        print(compared.round(3).to_markdown())


if __name__ == "__main__":
    main()
