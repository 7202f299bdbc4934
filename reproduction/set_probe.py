"""How much of a graph's class a fixed summary of its node set carries: an L2 logistic-regression probe per CV fold on
(a) the mean of the raw node embeddings, (b) their mean, max and min, (c) the graph's structure alone (node and edge
counts, the degree histogram, the largest degree: no embedding). A measurement for REDDIT-BINARY's cells: how much of
the class the graphs carry (c), and how much fixed pooled summaries of the embedding keep (a, b). The set models learn
a map of each element before they pool, so (a) and (b) bound nothing; the models' own cells on the same embedding
(NN-max, RepSet) say how much of the class it holds.
Run from the repository root with the dataset's store and raw files (data/sets, data/raw):

    python reproduction/set_probe.py --dataset REDDIT-BINARY [--folds 10]

Per fold: features standardised on the training part; the L2 weight chosen among 1e-4..1 on the validation part (its
error, then its loss); test accuracy (%) of that choice. Prints each probe's mean and std over the folds (population
std, as the report's cells)."""
from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd
import torch

sys.path.insert(0, ".")
from repset.datasets import build_graph_collection  # noqa: E402
from repset.datasets.store import load_collection  # noqa: E402
from repset.pipeline.pack import load_config  # noqa: E402
from repset.protocol.plan import store_path  # noqa: E402

WEIGHTS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
DEGREE_BINS = (1, 2, 3, 4, 6, 11, 51)          # lower edges: 1, 2, 3, 4-5, 6-10, 11-50, 51+


def structure_features(n_nodes: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """(G, 10) per graph: log node count, log edge count, the share of nodes per degree bin, log largest degree.
    ``edges`` (E, 2) global node ids, graphs' nodes numbered contiguously in graph order."""
    starts = np.concatenate([[0], np.cumsum(n_nodes)])
    degree = np.bincount(edges.ravel(), minlength=int(starts[-1]))
    graph = np.repeat(np.arange(len(n_nodes)), n_nodes)
    n_edges = np.bincount(graph[edges[:, 0]], minlength=len(n_nodes))
    bins = np.searchsorted(DEGREE_BINS, degree, side="right") - 1          # -1: isolated nodes, left out
    shares = np.zeros((len(n_nodes), len(DEGREE_BINS)))
    keep = bins >= 0
    np.add.at(shares, (graph[keep], bins[keep]), 1.0)
    shares /= np.maximum(n_nodes, 1)[:, None]
    largest = np.maximum.reduceat(degree, starts[:-1]) if len(degree) else np.zeros(len(n_nodes))
    return np.column_stack([np.log1p(n_nodes), np.log1p(n_edges), shares, np.log1p(largest)])


def set_features(values: np.ndarray, offsets: np.ndarray, kind: str) -> np.ndarray:
    """(G, d) mean of each set's rows, or (G, 3d) their mean, max and min (``kind``: mean / mean_max_min)."""
    sums = np.add.reduceat(values, offsets[:-1], axis=0)
    mean = sums / np.diff(offsets)[:, None]
    if kind == "mean":
        return mean
    return np.hstack([mean, np.maximum.reduceat(values, offsets[:-1], axis=0),
                      np.minimum.reduceat(values, offsets[:-1], axis=0)])


def probe(x: np.ndarray, y: np.ndarray, split: dict[str, np.ndarray], n_classes: int) -> float:
    """Test accuracy (%) of the L2 logistic regression whose weight (:data:`WEIGHTS`) validation chose."""
    mu, sd = x[split["train"]].mean(0), x[split["train"]].std(0) + 1e-8
    xs = torch.tensor((x - mu) / sd, dtype=torch.float64)
    yt = torch.tensor(y)
    train, val, test = (torch.tensor(split[part]) for part in ("train", "val", "test"))
    best = None
    for weight in WEIGHTS:
        torch.manual_seed(0)
        lin = torch.nn.Linear(x.shape[1], n_classes).double()
        opt = torch.optim.LBFGS(lin.parameters(), max_iter=500, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(lin(xs[train]), yt[train]) + weight * lin.weight.pow(2).sum()
            loss.backward()
            return loss
        opt.step(closure)
        with torch.no_grad():
            logits = lin(xs[val])
            key = (float((logits.argmax(1) != yt[val]).double().mean()),
                   float(torch.nn.functional.cross_entropy(logits, yt[val])))
            if best is None or key < best[0]:
                best = (key, float((lin(xs[test]).argmax(1) == yt[test]).double().mean()) * 100)
    return best[1]


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="REDDIT-BINARY")
    parser.add_argument("--folds", type=int, default=10)
    args = parser.parse_args(argv)
    config = load_config("config.yaml", [])
    coll, _ = load_collection(store_path(args.dataset, config))
    graphs = build_graph_collection(args.dataset, "data/raw")
    if not np.array_equal(np.diff(coll.offsets), graphs.n_nodes) or not np.array_equal(coll.labels, graphs.labels):
        raise SystemExit(f"{args.dataset}: the store's sets and the raw graphs disagree (sizes or labels)")
    features = {"embedding mean": set_features(coll.values, coll.offsets, "mean"),
                "embedding mean, max, min": set_features(coll.values, coll.offsets, "mean_max_min"),
                "structure (no embedding)": structure_features(graphs.n_nodes, graphs.edges)}
    rows = [{"probe": name, "fold": f, "test accuracy": probe(x, coll.labels, coll.splits[f], len(coll.class_names))}
            for name, x in features.items() for f in range(args.folds)]
    accuracy = pd.DataFrame(rows).groupby("probe", sort=False)["test accuracy"]
    table = pd.DataFrame({"mean": accuracy.mean(), "std": accuracy.std(ddof=0), "folds": accuracy.size()}).round(2)
    print(f"## {args.dataset}: linear probes, test accuracy (%) over folds 0-{args.folds - 1}\n")
    print(table.to_markdown())
    return table


if __name__ == "__main__":
    main()
