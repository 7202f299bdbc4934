"""Ragged aggregation against the padded layer on real set sizes (REDDIT-BINARY's graphs: 6 to 3,782
nodes), forward + backward per batch, one run (ratios are measured in the same process).

    python -m repset.bench.aggregation [--raw data/raw/REDDIT-BINARY/REDDIT-BINARY.zip] [--batches 5]

Both paths see the same random batches of graphs with random d-dim node features (struc2vec's 20 by
default); the padded path pads each batch to its largest graph (``pad_sets``), the ragged one stacks
the nodes (``repset.layers.aggregation``).
"""
from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

import numpy as np
import torch

from repset.layers import layer_class
from repset.layers.aggregation import HiddenSetAggregation
from repset.sets import pad_sets

__all__ = ["graph_sizes", "compare_paths", "main"]


def graph_sizes(raw: str) -> np.ndarray:
    """Nodes per graph of a graph archive: GIN's text format (REDDIT-BINARY's zip) or TU's
    (``<NAME>.zip`` or its folder of ``<NAME>_*.txt``)."""
    from pathlib import Path

    from repset.datasets.graphs import read_gin_txt, read_tu

    name = Path(raw).name.split(".")[0]
    try:
        coll = read_tu(raw, name)
    except FileNotFoundError:
        coll = read_gin_txt(raw)
    return np.diff(np.asarray(coll.node_offsets))


def _timed(fn, repeats: int) -> float:
    fn()                                                    # warm-up (Numba compile or cache load)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def compare_paths(sizes: np.ndarray, layers: Sequence[tuple[str, dict]], m: int = 50, k: int = 50, d: int = 20,
                  batch_size: int = 64, batches: int = 5, repeats: int = 3, seed: int = 0) -> list[dict]:
    """Per layer and batch: ms per forward + backward, padded and ragged, and the padded rows' share."""
    rng = np.random.default_rng(seed)
    rows = []
    for b in range(batches):
        chosen = rng.choice(len(sizes), batch_size, replace=False)
        g = torch.Generator().manual_seed(seed + b)
        sets = [torch.randn(int(sizes[i]), d, generator=g) for i in chosen]
        index = torch.repeat_interleave(torch.arange(batch_size), torch.tensor([len(s) for s in sets]))
        for name, options in layers:
            torch.manual_seed(seed)
            layer = layer_class(name)(d, m, k, **options)
            aggr = HiddenSetAggregation(layer)

            def padded():
                V, lengths = pad_sets(sets)
                layer(V.requires_grad_(), lengths).sum().backward()

            def ragged():
                aggr(torch.cat(sets).requires_grad_(), index).sum().backward()

            padded_ms, ragged_ms = _timed(padded, repeats), _timed(ragged, repeats)
            n = np.asarray([len(s) for s in sets])
            rows.append({"layer": f"{name} {options}".replace("{}", "").strip(), "batch": b,
                         "elements": int(n.sum()), "largest": int(n.max()),
                         "padded rows %": 100 * (1 - n.sum() / (n.max() * len(n))),
                         "padded ms": padded_ms, "ragged ms": ragged_ms, "padded / ragged": padded_ms / ragged_ms})
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", default="data/raw/REDDIT-BINARY/REDDIT-BINARY.zip")
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("-m", type=int, default=50)
    parser.add_argument("-k", type=int, default=50)
    args = parser.parse_args(argv)
    import pandas as pd

    sizes = graph_sizes(args.raw)
    print(f"{args.raw}: {len(sizes)} graphs of {sizes.min()} to {sizes.max()} nodes (median {np.median(sizes):.0f}); "
          f"batches of 64, d 20, m {args.m}, |Y| {args.k}, torch threads {torch.get_num_threads()}")
    table = pd.DataFrame(compare_paths(sizes, [("repset", {"solver": "numba"}), ("approx_repset", {})],
                                       m=args.m, k=args.k, batches=args.batches, repeats=args.repeats))
    print(table.round(2).to_markdown(index=False))
    print(table.groupby("layer")[["padded ms", "ragged ms"]].sum().assign(
        ratio=lambda t: t["padded ms"] / t["ragged ms"]).round(2).to_markdown())


if __name__ == "__main__":
    main()
