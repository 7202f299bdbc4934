"""Training epochs on the padded path against the ragged one (``TrainConfig.ragged``: each batch in groups
of similar set size), both under the default element bound, on graphs (synthetic sets with REDDIT-BINARY
fold 0's node counts) and text (a built store's split 0, its word vectors), in one process, alternating
the paths over ``--repeats`` warm epochs (medians).

    python -m repset.bench.ragged [--raw ../shared/data/mirror] [--text data/sets/bbcsport.glove-6b-50d.npz]
"""
from __future__ import annotations

import argparse
import statistics

import torch

from repset.training.classifier import SetClassifier, build_layer
from repset.training.trainer import TrainConfig, fit, seed_everything

from .graph_scale import MODELS, fold_sizes, synthetic

__all__ = ["epoch_ratio", "main"]


def epoch_ratio(data, layer: str, options: dict, repeats: int = 3, lr: float = 0.01) -> dict[str, float]:
    """Median warm epoch seconds of the padded and ragged paths on ``data`` (a SetDataset), alternated."""
    torch.set_num_threads(1)
    seconds: dict[str, list[float]] = {"padded": [], "ragged": []}
    for _ in range(repeats):
        for name in seconds:
            seed_everything(0)
            model = SetClassifier(build_layer(layer, data.dim, **options), data.n_classes)
            config = TrainConfig(epochs=2, lr=lr, patience=None, ragged=name == "ragged")
            seconds[name].append(fit(model, data, config)["epoch_seconds"][1])
    out = {name: statistics.median(s) for name, s in seconds.items()}
    out["speedup"] = out["padded"] / out["ragged"]
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", default="../shared/data/mirror")
    parser.add_argument("--text", default="data/sets/bbcsport.glove-6b-50d.npz")
    parser.add_argument("--models", nargs="+", default=["repset", "approx_repset"])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    from repset.datasets.store import load_store

    sizes = fold_sizes("REDDIT-BINARY", args.raw)
    data, splits, _ = load_store(args.text)
    sets = {"REDDIT-BINARY (synthetic)": synthetic(sizes["train"], 20, 0), args.text: data.subset(splits[0]["train"])}
    print("| data | model | padded epoch (s) | ragged epoch (s) | padded / ragged |\n|---|---|---|---|---|")
    for name, d in sets.items():
        for model in args.models:
            layer, options = MODELS[model]
            r = epoch_ratio(d, layer, options, args.repeats)
            print(f"| {name} | {model} | {r['padded']:.2f} | {r['ragged']:.2f} | {r['speedup']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
