"""Training epoch, validation pass and peak memory of one graph-scale job, on the original path (padded
batches, 256-set evaluation batches) against the bounded, ragged one (``TrainConfig.ragged``,
``max_elements``), each in a fresh process (its peak resident memory is the job's), one after the other.

    python -m repset.bench.graph_scale [--raw ../shared/data/mirror] [--dataset REDDIT-BINARY]
        [--models repset approx_repset set_transformer] [--paths old new]

The sets are synthetic (random d-dim node features, struc2vec's 20 by default) with the node counts of
fold 0's training and validation graphs; the hidden-set layers at the grid's largest point (m = 100
hidden sets of 50 elements). One thread, as a training job. Seconds: one (second, warm) training epoch
over the whole training part, one validation pass.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import resource
import time

import numpy as np
import torch

from repset.sets import SetDataset
from repset.training.classifier import SetClassifier, build_layer
from repset.training.trainer import LEGACY_DEFAULTS, TrainConfig, eval_options, evaluate, fit, seed_everything

__all__ = ["PATHS", "MODELS", "fold_sizes", "measure", "main"]

#: the training paths compared: the records' original one and this code's default
PATHS = {"old": {k: LEGACY_DEFAULTS[k] for k in ("ragged", "max_elements")},
         "new": {"ragged": TrainConfig.ragged, "max_elements": TrainConfig.max_elements}}
#: layer and options per model (the hidden-set layers at their grid's largest point)
MODELS = {"repset": ("repset", {"n_hidden_sets": 100, "hidden_set_size": 50, "solver": "numba"}),
          "approx_repset": ("approx_repset", {"n_hidden_sets": 100, "hidden_set_size": 50}),
          "set_transformer": ("set_transformer", {}),
          "set_transformer_isab": ("set_transformer", {"num_inds": 32})}


def fold_sizes(dataset: str, raw_dir: str, val_fraction: float = 0.1, seed: int = 0) -> dict[str, np.ndarray]:
    """Node counts of fold 0's ``train`` and ``val`` graphs (the protocol's first split)."""
    from repset.datasets import build_graph_collection, graph_cv_splits

    coll = build_graph_collection(dataset, raw_dir)
    split = graph_cv_splits(coll, val_fraction=val_fraction, seed=seed)[0]
    return {part: np.asarray(coll.n_nodes[split[part]]) for part in ("train", "val")}


def synthetic(sizes: np.ndarray, dim: int, seed: int) -> SetDataset:
    """Random sets with ``sizes`` elements of ``dim`` features, two classes."""
    rng = np.random.default_rng(seed)
    offsets = torch.from_numpy(np.concatenate([[0], np.cumsum(sizes)]))
    values = torch.from_numpy(rng.standard_normal((int(sizes.sum()), dim), dtype=np.float32))
    return SetDataset(values, offsets, torch.from_numpy(rng.integers(0, 2, len(sizes))))


def measure(sizes: dict[str, np.ndarray], model: str, path: dict, dim: int = 20, seed: int = 0) -> dict:
    """In this process: seconds of a warm training epoch and of a validation pass, peak RSS (MB)."""
    torch.set_num_threads(1)
    train, val = synthetic(sizes["train"], dim, seed), synthetic(sizes["val"], dim, seed + 1)
    layer, options = MODELS[model]
    seed_everything(seed)
    net = SetClassifier(build_layer(layer, dim, **options), 2)
    config = TrainConfig(epochs=2, batch_size=64, lr=0.01, patience=None, seed=seed, **path)
    epoch = fit(net, train, config)["epoch_seconds"][1]
    start = time.perf_counter()
    metrics = evaluate(net, val, **eval_options(config))
    return {"epoch_seconds": epoch, "val_seconds": time.perf_counter() - start, "val_loss": metrics["loss"],
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _child(queue, *args) -> None:
    queue.put(measure(*args))


def measure_apart(sizes: dict[str, np.ndarray], model: str, path: dict, dim: int = 20) -> dict:
    """:func:`measure` in a fresh (spawned) process, so that its peak memory is its own."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue, sizes, model, path, dim))
    proc.start()
    out = queue.get()
    proc.join()
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", default="../shared/data/mirror")
    parser.add_argument("--dataset", default="REDDIT-BINARY")
    parser.add_argument("--dim", type=int, default=20)
    parser.add_argument("--models", nargs="+", default=["repset", "approx_repset", "set_transformer"])
    parser.add_argument("--paths", nargs="+", default=list(PATHS))
    args = parser.parse_args(argv)
    sizes = fold_sizes(args.dataset, args.raw)
    print(f"{args.dataset} fold 0: {len(sizes['train'])} training graphs ({sizes['train'].min()}-"
          f"{sizes['train'].max()} nodes, median {np.median(sizes['train']):.0f}), {len(sizes['val'])} validation")
    rows = []
    for model in args.models:
        for name in args.paths:
            row = {"model": model, "path": name, **measure_apart(sizes, model, PATHS[name], args.dim)}
            row["val_per_epoch"] = row["val_seconds"] / row["epoch_seconds"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    print("| model | path | epoch (s) | validation (s) | validation / epoch | peak (MB) |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['path']} | {r['epoch_seconds']:.2f} | {r['val_seconds']:.2f} | "
              f"{r['val_per_epoch']:.2f} | {r['peak_mb']:.0f} |")


if __name__ == "__main__":
    main()
