"""The majority-class predictor on a dataset's protocol splits: what a classifier that learned nothing scores.

On each split it predicts, for every test set, the class most frequent among the split's training sets (train
and validation parts; a tie goes to the lower class index). Its mean and std follow the report's convention
(:func:`~repset.protocol.selection.aggregate`: graphs, the std of the CV repetitions' means). A reported cell
at this rate says that model predicted one class::

    python -m repset.protocol.majority data/sets/PROTEINS.struc2vec.npz --dataset PROTEINS
    python -m repset.protocol.majority data/sets/PROTEINS.struc2vec.npz --splits 100 --out PROTEINS.json   # the report's
"""
from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from repset.datasets.store import load_collection, read_sidecar
from repset.io import write_atomic
from repset.protocol.selection import aggregate

__all__ = ["majority_runs", "majority_summary", "write_majority"]


def majority_runs(labels: np.ndarray, splits: Sequence[dict[str, np.ndarray]], dataset: str) -> pd.DataFrame:
    """One row per split (the columns :func:`~repset.protocol.selection.aggregate` reads, model "majority"):
    the majority class of the split's training sets and its test error and accuracy (fractions)."""
    labels = np.asarray(labels)
    rows = []
    for k, split in enumerate(splits):
        seen = np.concatenate([split[part] for part in ("train", "val") if part in split])
        if not len(seen) or not len(split.get("test", ())):
            raise ValueError(f"{dataset}: split {k} has no training or no test sets")
        majority = int(np.bincount(labels[seen]).argmax())
        accuracy = float(np.mean(labels[split["test"]] == majority))
        rows.append({"dataset": dataset, "model": "majority", "point": "default", "split": k, "majority": majority,
                     "test_error": 1.0 - accuracy, "test_accuracy": accuracy, "epoch_seconds": float("nan")})
    return pd.DataFrame(rows)


def majority_summary(store: str | os.PathLike, dataset: str, n_splits: int | None = None) -> pd.DataFrame:
    """:func:`~repset.protocol.selection.aggregate`'s row for the majority-class predictor on the first
    ``n_splits`` splits of ``store`` (all if None), plus ``class_rates`` (each class's share of the whole dataset,
    in %)."""
    coll = load_collection(store)[0]
    splits = coll.splits if n_splits is None else coll.splits[:n_splits]
    if n_splits is not None and len(splits) < n_splits:
        raise ValueError(f"{store}: {len(coll.splits)} splits, fewer than the {n_splits} asked for")
    summary = aggregate(majority_runs(coll.labels, splits, dataset))
    counts = np.bincount(np.asarray(coll.labels), minlength=len(coll.class_names))
    rates = ", ".join(f"{name}: {100 * c / counts.sum():.2f}" for name, c in zip(coll.class_names, counts))
    return summary.assign(class_rates=rates)


def write_majority(store: str | os.PathLike, dataset: str, n_splits: int | None, out: str | os.PathLike,
                   summary: pd.DataFrame | None = None) -> dict:
    """``results/majority/<dataset>.json`` (atomically): :func:`majority_summary` on the protocol's ``n_splits``
    splits (mean and std in %, as the report's rows; ``summary``: that frame when already computed), with the store's
    sha256. Returns the record."""
    row = (majority_summary(store, dataset, n_splits) if summary is None else summary).iloc[0]
    record = {"dataset": dataset, "method": "majority", **{k: float(row[k]) for k in (
        "test_error_mean", "test_error_std", "test_accuracy_mean", "test_accuracy_std")},
        "splits": int(row["splits"]), "repetitions": int(row["repetitions"]), "std_over": row["std_over"],
        "class_rates": row["class_rates"], "store": str(store),
        "store_sha256": read_sidecar(store)["sha256"]}
    text = json.dumps(record, indent=1) + "\n"
    write_atomic(out, lambda tmp: tmp.write_text(text))
    return record


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - thin CLI
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", nargs="+", help="built stores (data/sets/<dataset>.<embedding>.npz)")
    parser.add_argument("--dataset", action="append", help="each store's dataset name (default: the file's stem)")
    parser.add_argument("--splits", type=int, help="the first N splits only (default: all of the store's)")
    parser.add_argument("--out", help="also write the report's JSON (report/majority/<dataset>.json) here; one store")
    args = parser.parse_args(argv)
    names = args.dataset or [os.path.basename(s).split(".")[0] for s in args.store]
    if len(names) != len(args.store):
        parser.error("give one --dataset per store, or none")
    if args.out and len(args.store) != 1:
        parser.error("--out takes one store")
    table = pd.concat([majority_summary(s, d, args.splits) for s, d in zip(args.store, names)], ignore_index=True)
    if args.out:
        write_majority(args.store[0], names[0], args.splits, args.out, summary=table)
    columns = ["dataset", "test_accuracy_mean", "test_accuracy_std", "test_error_mean", "splits", "repetitions",
               "std_over", "class_rates"]
    print(table[columns].round(2).to_markdown(index=False))


if __name__ == "__main__":  # pragma: no cover
    main()
