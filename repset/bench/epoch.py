"""Training-epoch seconds of RepSet / ApproxRepSet against the forward-matmul floor, one run.

Every variant trains on the same synthetic data (seeded) with the real trainer; the floor is the
forward matmul ``V H`` alone over the same batches, timed in the same process, so the ratio
``epoch / matmul`` is meaningful on a noisy machine.
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
from repset.training.trainer import TrainConfig, fit, seed_everything


@dataclass(frozen=True)
class EpochShape:
    """A dataset shape: ``n_sets`` sets of ``set_size`` elements of dim ``d``; layer m x |Y|."""

    n_sets: int = 517
    set_size: int = 117
    d: int = 300
    m: int = 50
    k: int = 20
    batch_size: int = 64
    n_classes: int = 5


#: variant name -> (layer name, layer options); hidden-set layers also get m and |Y| from the shape
VARIANTS: dict[str, tuple[str, dict]] = {
    "repset/scipy": ("repset", {"solver": "scipy"}),
    "repset/numba": ("repset", {"solver": "numba"}),
    "repset/numba/dense-grad": ("repset", {"solver": "numba", "grad_mode": "dense"}),
    "repset/auction": ("repset", {"solver": "auction"}),
    "approx_repset": ("approx_repset", {}),
    "approx_repset/dense-grad": ("approx_repset", {"grad_mode": "dense"}),
    "deepsets": ("deepsets", {}),
}


def check_variants(variants: list[str]) -> None:
    """Raise ValueError naming unknown variants and listing the valid ones."""
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        raise ValueError(f"unknown variants {unknown}; valid: {', '.join(VARIANTS)}")


def _model(variant: str, shape: EpochShape, seed: int) -> SetClassifier:
    layer_name, options = VARIANTS[variant]
    if issubclass(layer_class(layer_name), HiddenSetLayer):
        options = {"n_hidden_sets": shape.m, "hidden_set_size": shape.k, **options}
    seed_everything(seed)
    return SetClassifier(build_layer(layer_name, shape.d, **options), shape.n_classes)


def _train_config(shape: EpochShape, epochs: int, seed: int) -> TrainConfig:
    return TrainConfig(epochs=epochs, batch_size=shape.batch_size, lr=1e-3, patience=None, seed=seed)


def epoch_seconds(variant: str, data: SetDataset, shape: EpochShape, repeats: int, seed: int = 0) -> float:
    """Median seconds of a training epoch of ``variant`` on ``data`` (after one warm-up epoch)."""
    return statistics.median(epoch_seconds_all(variant, data, shape, repeats, seed))


def epoch_seconds_all(variant: str, data: SetDataset, shape: EpochShape, repeats: int, seed: int = 0) -> list[float]:
    """Seconds of each of ``repeats`` training epochs of ``variant`` on ``data`` (after one warm-up epoch)."""
    history = fit(_model(variant, shape, seed), data, _train_config(shape, repeats + 1, seed))
    return list(history["epoch_seconds"][1:])


def paired_seconds(variant: str, data: SetDataset, shape: EpochShape, repeats: int,
                   seed: int = 0) -> tuple[list[float], list[float]]:
    """``repeats`` (epoch, matmul floor) second pairs, each floor timed right after its epoch so
    that both see the same machine load (after one warm-up epoch and floor)."""
    model, config = _model(variant, shape, seed), _train_config(shape, 1, seed)
    batches = _floor_batches(data, shape)
    epochs, floors = [], []
    for _ in range(repeats + 1):
        epochs.append(fit(model, data, config)["epoch_seconds"][0])
        floors.append(_floor_pass(batches, shape))
    return epochs[1:], floors[1:]


def synthetic_sets(shape: EpochShape, seed: int = 0) -> SetDataset:
    """Gaussian sets of fixed size with random labels (timing only)."""
    rng = np.random.default_rng(seed)
    values = torch.from_numpy(rng.standard_normal((shape.n_sets * shape.set_size, shape.d), dtype=np.float32))
    offsets = torch.arange(shape.n_sets + 1) * shape.set_size
    return SetDataset(values, offsets, torch.from_numpy(rng.integers(0, shape.n_classes, shape.n_sets)))


def _floor_batches(data: SetDataset, shape: EpochShape) -> list[torch.Tensor]:
    return [data.batch(idx)[0] for idx in torch.arange(len(data)).split(shape.batch_size)]


def _floor_pass(batches: list[torch.Tensor], shape: EpochShape) -> float:
    """Seconds of the forward matmul ``V H`` over ``batches`` (one epoch's worth)."""
    W = torch.randn(shape.d, shape.m * shape.k)
    start = time.perf_counter()
    for V in batches:
        V.reshape(-1, shape.d) @ W
    return time.perf_counter() - start


def epoch_benchmark(variants: list[str], shape: EpochShape = EpochShape(), repeats: int = 5,
                    seed: int = 0) -> pd.DataFrame:
    """One row per variant: median epoch seconds (after a warm-up epoch), median matmul floor, and the
    median of the per-epoch ratios epoch / floor (each floor timed right after its epoch)."""
    check_variants(variants)
    data = synthetic_sets(shape, seed)
    rows = []
    for name in variants:
        epochs, floors = paired_seconds(name, data, shape, repeats, seed)
        rows.append({"variant": name, "epoch_seconds": statistics.median(epochs),
                     "matmul_seconds": statistics.median(floors),
                     "epoch_over_matmul": statistics.median([e / f for e, f in zip(epochs, floors)]),
                     "repeats": repeats, "torch_threads": torch.get_num_threads(),
                     **{f"shape_{k}": v for k, v in vars(shape).items()}})
    return pd.DataFrame(rows)
