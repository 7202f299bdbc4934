"""Seeded training with Adam and early stopping, evaluation, and JSON run records."""
from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from repset.provenance import LEGACY_DEFAULTS
from repset.sets import SetDataset

from .chunks import chunks, eval_batches

__all__ = ["TrainConfig", "LEGACY_DEFAULTS", "seed_everything", "fit", "evaluate", "eval_options"]


@dataclass
class TrainConfig:
    """Training hyper-parameters. ``patience=None`` disables early stopping (no validation needed)."""

    epochs: int = 100
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.0
    patience: int | None = 20
    seed: int = 0
    device: str = "cpu"
    bucket: bool = True   # batches of similar set sizes (see batch_indices): 3-8x less padding on the text datasets
    # layers that take element ids get each batch's distinct elements once (data with element_ids: word sets)
    distinct_elements: bool = True
    # each batch computed in groups of similar set size (at most 25 % padding per call; repset.training.chunks):
    # the padded batch's values and gradients up to float rounding; off by default: with bucketed batches and
    # max_elements (which groups a batch over the bound by size anyway) it measured 0.97-1.01x on REDDIT-BINARY's
    # sizes and BBCSPORT (python -m repset.bench.ragged)
    ragged: bool = False
    # at most this many padded elements (sets x largest size) per forward call, in training (the calls'
    # gradients add up to the batch's) and evaluation (batches of <= 256 sets sorted by size): a batch over it
    # runs in groups of similar size under it; one within it runs as it is (small sets: the original path op
    # for op); None: no bound
    max_elements: int | None = 65536

    def __post_init__(self) -> None:
        for key in ("epochs", "batch_size"):
            if getattr(self, key) < 1:
                raise ValueError(f"TrainConfig.{key} must be >= 1, got {getattr(self, key)}")
        if not self.lr > 0:
            raise ValueError(f"TrainConfig.lr must be > 0, got {self.lr}")
        if self.max_elements is not None and self.max_elements < 1:
            raise ValueError(f"TrainConfig.max_elements must be >= 1 or None, got {self.max_elements}")
        if self.patience is not None and self.patience < 1:
            raise ValueError(f"TrainConfig.patience must be >= 1 or None, got {self.patience}")

    @classmethod
    def from_record(cls, settings: dict, **overrides) -> "TrainConfig":
        """The config a record (or a config's ``train`` block) describes: a field it lacks takes its
        :data:`LEGACY_DEFAULTS` value, the behaviour of the code before the field existed, so that an
        old record reruns on the path that made it."""
        return cls(**{**LEGACY_DEFAULTS, **settings, **overrides})


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch (CPU and CUDA) generators."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


#: batches per pool sorted by set size when ``TrainConfig.bucket`` is on
BUCKET_POOL = 50


def batch_indices(n: int, batch_size: int, generator: torch.Generator | None,
                  lengths: torch.Tensor | None = None) -> list[torch.Tensor]:
    """Index batches: shuffled with ``generator`` (else in order). With ``lengths``, batches hold sets
    of similar size (less padding): shuffled pools of ``BUCKET_POOL`` batches are sorted by length,
    cut into batches, and the batches shuffled again; without a generator, all sets sorted by length."""
    order = torch.randperm(n, generator=generator) if generator is not None else torch.arange(n)
    if lengths is None:
        return list(order.split(batch_size))
    if generator is None:
        return list(torch.argsort(lengths, stable=True).split(batch_size))
    batches = []
    for pool in order.split(batch_size * BUCKET_POOL):
        batches += pool[torch.argsort(lengths[pool], stable=True)].split(batch_size)
    return [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]


def model_inputs(model: nn.Module, data: SetDataset, index: torch.Tensor, device: str = "cpu",
                 distinct_elements: bool = True) -> tuple[tuple[torch.Tensor, ...], dict]:
    """``(args, kwargs)`` for ``model`` on the sets ``index``: each distinct element once plus element ids
    (:meth:`SetDataset.indexed_batch`) where the data has ids, the model takes them and
    ``distinct_elements`` is on; else the padded batch."""
    if distinct_elements and data.element_ids is not None and getattr(model, "takes_element_ids", False):
        E, ids, lengths = data.indexed_batch(index)
        return (E.to(device), lengths.to(device)), {"element_ids": ids.to(device)}
    V, lengths = data.batch(index)
    return (V.to(device), lengths.to(device)), {}


def eval_options(config: TrainConfig) -> dict:
    """The keyword arguments of :func:`evaluate` that follow a run's ``config`` (its device and paths)."""
    return {"device": config.device, "distinct_elements": config.distinct_elements, "ragged": config.ragged,
            "max_elements": config.max_elements}


@torch.no_grad()
def evaluate(model: nn.Module, data: SetDataset, batch_size: int | None = None, device: str = "cpu",
             distinct_elements: bool = True, ragged: bool = False, max_elements: int | None = None) -> dict[str, float]:
    """Mean cross-entropy, accuracy and error of ``model`` on ``data``, in calls of sets sorted by size
    (:func:`~repset.training.chunks.eval_batches`: 256 sets, cut further into similar sizes when ``ragged``
    and to at most ``max_elements`` padded elements; ``batch_size`` overrides the 256 sets)."""
    model.eval()
    loss_sum, correct = 0.0, 0
    lengths = data.lengths()
    if batch_size is None:
        batches = eval_batches(lengths, ragged, max_elements)
    else:
        batches = [b[c] for b in batch_indices(len(data), batch_size, None, lengths)
                   for c in chunks(lengths[b], ragged, max_elements)]
    for index in batches:   # by size: metrics do not depend on order
        args, kwargs = model_inputs(model, data, index, device, distinct_elements)
        logits = model(*args, **kwargs)
        y = data.labels[index].to(device)
        loss_sum += float(nn.functional.cross_entropy(logits, y, reduction="sum"))
        correct += int((logits.argmax(1) == y).sum())
    n = max(len(data), 1)
    return {"loss": loss_sum / n, "accuracy": correct / n, "error": 1.0 - correct / n}


def train_step(model: nn.Module, data: SetDataset, index: torch.Tensor, config: TrainConfig) -> float:
    """Gradients of the mean cross-entropy over the sets ``index`` accumulated into ``model``'s
    parameters (zeroed first); returns the loss summed over the sets. The batch is computed in the calls
    of :func:`~repset.training.chunks.chunks` (``config.ragged``, ``config.max_elements``), each backward
    on its share of the mean (same gradient up to rounding, at most one call's activations alive)."""
    parts = chunks(data.lengths()[index], config.ragged, config.max_elements)
    if len(parts) == 1 and not config.ragged:   # the batch as it is: the original path, op for op
        args, kwargs = model_inputs(model, data, index, config.device, config.distinct_elements)
        loss = nn.functional.cross_entropy(model(*args, **kwargs), data.labels[index].to(config.device))
        loss.backward()
        return float(loss.detach()) * len(index)
    total = 0.0
    for part in parts:
        sub = index[part]
        args, kwargs = model_inputs(model, data, sub, config.device, config.distinct_elements)
        loss = nn.functional.cross_entropy(model(*args, **kwargs), data.labels[sub].to(config.device), reduction="sum")
        (loss / len(index)).backward()
        total += float(loss.detach())
    return total


def fit(model: nn.Module, train: SetDataset, config: TrainConfig, val: SetDataset | None = None,
        progress: Callable[[dict], None] | None = None) -> dict:
    """Train ``model`` in place; with ``val`` and ``patience``, keep the weights of the best epoch
    (lowest validation loss) and stop after ``patience`` epochs without improvement.

    ``progress`` is called after every epoch with ``epoch`` (1-based), ``epochs``, ``train_loss``,
    ``val`` (metrics or None), ``seconds`` (this epoch's), ``best_epoch`` and ``eta_seconds`` (the
    remaining epochs at the mean pace so far; early stopping may end sooner).
    Returns a history dict: per-epoch train loss, validation metrics, seconds, best epoch.
    """
    if config.patience is not None and val is None:
        raise ValueError("fit: early stopping (patience) needs a validation set; pass val= or patience=None")
    model.to(config.device)
    generator = torch.Generator().manual_seed(config.seed)
    # fused Adam: one kernel per step instead of a dozen per parameter (a third of the step on CPU)
    fused = torch.device(config.device).type in ("cpu", "cuda")
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay, fused=fused)
    history: dict = {"train_loss": [], "val": [], "epoch_seconds": [], "best_epoch": None, "config": asdict(config)}
    best_loss, best_state, waited = float("inf"), None, 0
    for epoch in range(config.epochs):
        model.train()
        start, total = time.perf_counter(), 0.0
        for index in batch_indices(len(train), config.batch_size, generator, train.lengths() if config.bucket else None):
            opt.zero_grad(set_to_none=True)
            total += train_step(model, train, index, config)
            opt.step()
        history["epoch_seconds"].append(time.perf_counter() - start)
        history["train_loss"].append(total / len(train))
        if val is None:
            _report(progress, history, epoch, config.epochs)
            continue
        metrics = evaluate(model, val, **eval_options(config))
        history["val"].append(metrics)
        stop = False
        if metrics["loss"] < best_loss:
            best_loss, best_state, waited = metrics["loss"], copy.deepcopy(model.state_dict()), 0
            history["best_epoch"] = epoch
        elif config.patience is not None:
            waited += 1
            stop = waited >= config.patience
        _report(progress, history, epoch, config.epochs)
        if stop:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    history["epochs_run"] = len(history["train_loss"])
    return history


def _report(progress: Callable[[dict], None] | None, history: dict, epoch: int, epochs: int) -> None:
    if progress is None:
        return
    seconds = history["epoch_seconds"]
    progress({"epoch": epoch + 1, "epochs": epochs, "train_loss": history["train_loss"][-1],
              "val": history["val"][-1] if history["val"] else None, "seconds": seconds[-1],
              "best_epoch": history["best_epoch"],
              "eta_seconds": (epochs - epoch - 1) * sum(seconds) / len(seconds)})
