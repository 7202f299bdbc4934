"""Training-epoch seconds of RepSet / ApproxRepSet against the forward-matmul floors, one run.

Every variant trains with the real trainer on the same data: synthetic sets (seeded; optionally words of
a vocabulary, or every element its own id) or a built store (word sets keep their ids). Two floors are
timed in the same process over the epoch's own batches (bucketed as the trainer makes them): the dense
forward matmul ``V H`` over the padded batches, and the distinct-element matmul ``E H`` over each
batch's distinct elements (data with element ids only). Each floor is timed right after its epoch, so
the ratios ``epoch / floor`` are meaningful on a noisy machine.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from repset.sets import SetDataset
from repset.layers import HiddenSetLayer, layer_class
from repset.training.classifier import SetClassifier, build_layer
from repset.training.trainer import TrainConfig, batch_indices, fit, seed_everything


@dataclass(frozen=True)
class EpochShape:
    """A dataset shape: ``n_sets`` sets of ``set_size`` elements of dim ``d``; layer m x |Y|.
    ``vocabulary``: None = Gaussian elements without ids; 0 = the same, every element its own id (no
    element shared); V > 0 = words drawn from a vocabulary of V Gaussian vectors (ids = words)."""

    n_sets: int = 517
    set_size: int = 117
    d: int = 300
    m: int = 50
    k: int = 20
    batch_size: int = 64
    n_classes: int = 5
    vocabulary: int | None = None


#: variant name -> (layer name, layer options); hidden-set layers also get m and |Y| from the shape.
#: A name ending in "/padded" trains the same layer on padded batches (``distinct_elements=False``).
VARIANTS: dict[str, tuple[str, dict]] = {
    "repset/scipy": ("repset", {"solver": "scipy"}),
    "repset/numba": ("repset", {"solver": "numba"}),
    "repset/numba/padded": ("repset", {"solver": "numba"}),
    "repset/numba/dense-grad": ("repset", {"solver": "numba", "grad_mode": "dense"}),
    "repset/auction": ("repset", {"solver": "auction"}),
    "approx_repset": ("approx_repset", {}),
    "approx_repset/padded": ("approx_repset", {}),
    "approx_repset/dense-grad": ("approx_repset", {"grad_mode": "dense"}),
    "deepsets": ("deepsets", {}),
}


def check_variants(variants: list[str]) -> None:
    """Raise ValueError naming unknown variants and listing the valid ones."""
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        raise ValueError(f"unknown variants {unknown}; valid: {', '.join(VARIANTS)}")


def _model(variant: str, shape: EpochShape, seed: int, data: SetDataset) -> SetClassifier:
    layer_name, options = VARIANTS[variant]
    if issubclass(layer_class(layer_name), HiddenSetLayer):
        options = {"n_hidden_sets": shape.m, "hidden_set_size": shape.k, **options}
    seed_everything(seed)
    return SetClassifier(build_layer(layer_name, data.dim, **options), max(data.n_classes, 2))


def _train_config(variant: str, shape: EpochShape, epochs: int, seed: int) -> TrainConfig:
    return TrainConfig(epochs=epochs, batch_size=shape.batch_size, lr=1e-3, patience=None, seed=seed,
                       distinct_elements=not variant.endswith("/padded"))


def epoch_seconds(variant: str, data: SetDataset, shape: EpochShape, repeats: int, seed: int = 0) -> float:
    """Median seconds of a training epoch of ``variant`` on ``data`` (after one warm-up epoch)."""
    return statistics.median(epoch_seconds_all(variant, data, shape, repeats, seed))


def epoch_seconds_all(variant: str, data: SetDataset, shape: EpochShape, repeats: int, seed: int = 0) -> list[float]:
    """Seconds of each of ``repeats`` training epochs of ``variant`` on ``data`` (after one warm-up epoch)."""
    history = fit(_model(variant, shape, seed, data), data, _train_config(variant, shape, repeats + 1, seed))
    return list(history["epoch_seconds"][1:])


def paired_seconds(variant: str, data: SetDataset, shape: EpochShape, repeats: int,
                   seed: int = 0) -> tuple[list[float], list[float], list[float]]:
    """``repeats`` (epoch, dense floor, distinct floor) seconds, each floor timed right after its epoch
    so that all see the same machine load (after one warm-up epoch and floors); the distinct floor is
    NaN for data without element ids."""
    model, config = _model(variant, shape, seed, data), _train_config(variant, shape, 1, seed)
    padded, distinct = _floor_batches(data, config)
    W = torch.randn(data.dim, shape.m * shape.k)
    epochs, floors, distinct_floors = [], [], []
    for _ in range(repeats + 1):
        epochs.append(fit(model, data, config)["epoch_seconds"][0])   # the same batches each call (seeded)
        floors.append(_matmul_seconds(padded, W))
        distinct_floors.append(_matmul_seconds(distinct, W) if distinct else float("nan"))
    return epochs[1:], floors[1:], distinct_floors[1:]


def synthetic_sets(shape: EpochShape, seed: int = 0) -> SetDataset:
    """Sets of fixed size with random labels (timing only): Gaussian elements, or words of a Gaussian
    vocabulary (see :class:`EpochShape`)."""
    rng = np.random.default_rng(seed)
    offsets = torch.arange(shape.n_sets + 1) * shape.set_size
    labels = torch.from_numpy(rng.integers(0, shape.n_classes, shape.n_sets))
    total = shape.n_sets * shape.set_size
    if not shape.vocabulary:
        values = torch.from_numpy(rng.standard_normal((total, shape.d), dtype=np.float32))
        return SetDataset(values, offsets, labels, None if shape.vocabulary is None else torch.arange(total))
    if shape.vocabulary < shape.set_size:
        raise ValueError(f"vocabulary ({shape.vocabulary}) must hold at least set_size ({shape.set_size}) words")
    vectors = rng.standard_normal((shape.vocabulary, shape.d), dtype=np.float32)
    ids = np.concatenate([rng.choice(shape.vocabulary, shape.set_size, replace=False) for _ in range(shape.n_sets)])
    return SetDataset(torch.from_numpy(vectors[ids]), offsets, labels, torch.from_numpy(ids))


def with_random_vectors(data: SetDataset, dim: int, seed: int = 0) -> SetDataset:
    """``data``'s sets, labels and element ids with a random Gaussian ``dim``-d vector per id (timing
    only: the shapes and the sharing of a word-set dataset at another embedding dimension)."""
    if data.element_ids is None:
        raise ValueError("with_random_vectors needs a SetDataset with element_ids (word sets)")
    rng = np.random.default_rng(seed)
    vectors = torch.from_numpy(rng.standard_normal((int(data.element_ids.max()) + 1, dim), dtype=np.float32))
    return SetDataset(vectors[data.element_ids], data.offsets, data.labels, data.element_ids)


def _floor_batches(data: SetDataset, config: TrainConfig) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """The epoch's own batches (as :func:`~repset.training.trainer.fit` draws them): padded element
    rows (B N, d), and each batch's distinct elements (U, d) where the data has element ids."""
    batches = batch_indices(len(data), config.batch_size, torch.Generator().manual_seed(config.seed),
                            data.lengths() if config.bucket else None)
    padded = [data.batch(index)[0].reshape(-1, data.dim) for index in batches]
    distinct = [data.indexed_batch(index)[0] for index in batches] if data.element_ids is not None else []
    return padded, distinct


def _matmul_seconds(batches: list[torch.Tensor], W: torch.Tensor) -> float:
    """Seconds of the forward matmul of every batch's rows with ``W`` (one epoch's worth)."""
    start = time.perf_counter()
    for rows in batches:
        rows @ W
    return time.perf_counter() - start


def epoch_benchmark(variants: list[str], shape: EpochShape = EpochShape(), repeats: int = 5,
                    seed: int = 0, data: SetDataset | None = None, data_name: str = "synthetic") -> pd.DataFrame:
    """One row per variant: median epoch seconds (after a warm-up epoch), median dense and distinct
    matmul floors, and the medians of the per-epoch ratios epoch / floor (each floor timed right after
    its epoch). ``data``: the sets to train on (default: :func:`synthetic_sets` of ``shape``; from a
    store, only ``shape``'s m, |Y| and batch size apply), named ``data_name`` in the rows."""
    check_variants(variants)
    data = synthetic_sets(shape, seed) if data is None else data
    lengths = data.lengths().double()
    described = {"data": data_name, "sets": len(data), "mean_set_size": float(lengths.mean()), "dim": data.dim}
    rows = []
    for name in variants:
        epochs, floors, distinct = paired_seconds(name, data, shape, repeats, seed)
        rows.append({"variant": name, **described, "epoch_seconds": statistics.median(epochs),
                     "matmul_seconds": statistics.median(floors),
                     "distinct_matmul_seconds": statistics.median(distinct),
                     "epoch_over_matmul": statistics.median([e / f for e, f in zip(epochs, floors)]),
                     "epoch_over_distinct_matmul": statistics.median([e / f for e, f in zip(epochs, distinct)]),
                     "repeats": repeats, "torch_threads": torch.get_num_threads(),
                     **{f"shape_{k}": v for k, v in vars(shape).items()}})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    """``python -m repset.bench.epoch [--store PATH] [--variants ...]``: print the table (one run)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", help="a built store (data/sets/*.npz); default: synthetic sets of the shape")
    parser.add_argument("--variants", nargs="+", default=["repset/numba", "repset/numba/padded", "approx_repset",
                                                          "approx_repset/padded"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    for field in ("n_sets", "set_size", "d", "m", "k", "batch_size"):
        parser.add_argument(f"--{field.replace('_', '-')}", type=int, default=getattr(EpochShape(), field))
    parser.add_argument("--vocabulary", type=int, default=None,
                        help="synthetic words: 0 = every element its own id, V = words of a V-word vocabulary")
    parser.add_argument("--store-dim", type=int, default=None,
                        help="keep the store's sets and word ids but give every word a random vector of this "
                             "dimension (timing only: e.g. 300, word2vec's, for a store built from GloVe 50-d)")
    args = parser.parse_args(argv)
    shape = EpochShape(args.n_sets, args.set_size, args.d, args.m, args.k, args.batch_size, vocabulary=args.vocabulary)
    data, name = None, "synthetic"
    if args.store:
        from pathlib import Path

        from repset.datasets.store import load_store

        data, name = load_store(args.store)[0], Path(args.store).stem
        if args.store_dim:
            data, name = with_random_vectors(data, args.store_dim, args.seed), f"{name} (random {args.store_dim}-d)"
    table = epoch_benchmark(args.variants, shape, args.repeats, args.seed, data, name)
    columns = ["variant", "data", "sets", "mean_set_size", "dim", "epoch_seconds", "matmul_seconds",
               "distinct_matmul_seconds", "epoch_over_matmul", "epoch_over_distinct_matmul"]
    print(table[columns].to_string(index=False, float_format=lambda x: f"{x:.3f}"))


if __name__ == "__main__":
    main()
