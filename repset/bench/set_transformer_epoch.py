"""The Set Transformer's training epoch at REDDIT-BINARY's set sizes, one version of its layer module against
another: the same batches, the trainer's step (forward, backward, Adam), alternated in one process, best of
``--repeats``, one torch thread.

    python -m repset.bench.set_transformer_epoch [--raw ../shared/data/mirror] [--before 04846c7^]
        [--after repset/layers/set_transformer.py] [--sample 5] [--repeats 3]

``--before`` and ``--after`` name a copy of ``repset/layers/set_transformer.py`` (a file) or a git revision
whose copy ``git show`` reads; the default ``--before`` is 04846c7^, the last revision that computed
attention as the explicit masked product (the (B, heads, n, n) logits, ``-inf`` at padding keys, softmax),
and the default ``--after`` this checkout's layer (torch's fused ``scaled_dot_product_attention``). Each is
loaded as a module of ``repset.layers``, so it runs on this checkout's input checks and trainer.

The sets are synthetic (random 20-d node features: values do not change the cost) with the node counts of
fold 0's training graphs (the protocol's first split, split seed 0); the batches are those of the records'
training settings (64 sets, bucketed by size, not ragged, at most 65,536 padded elements per call: the
:class:`~repset.training.trainer.TrainConfig` defaults) in the first epoch of seed 0. ``--sample k`` times
every k-th of those batches by size, from the largest down (1: the whole epoch), since the explicit product
takes minutes per epoch at these sizes.

Printed: the padding of the epoch's forward calls (bucketed and not: :func:`call_padding`), the largest
difference between the versions' logits, and wall and CPU seconds per timing (CPU: this process's time, the
steadier figure on a busy machine), then the best of each and the before / after ratios.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

from repset.sets import SetDataset
from repset.training.classifier import SetClassifier
from repset.training.chunks import chunks
from repset.training.trainer import TrainConfig, batch_indices, seed_everything, train_step

from .graph_scale import fold_sizes, synthetic

__all__ = ["LAYER_FILE", "BEFORE", "layer_module", "epoch_batches", "call_padding", "time_batches", "compare",
           "max_difference", "main"]

#: the layer's file, relative to the repository root (what a git revision is read at)
LAYER_FILE = "repset/layers/set_transformer.py"
#: the last revision whose layer computed attention as the explicit masked product
BEFORE = "04846c7^"


def layer_module(source: str | os.PathLike, name: str) -> ModuleType:
    """The Set Transformer module in ``source`` (a file, else a git revision of :data:`LAYER_FILE` in this
    repository), loaded as ``repset.layers._bench_<name>`` (its relative imports resolve in this checkout)."""
    if Path(source).is_file():
        return _load(Path(source), name)
    root = Path(__file__).resolve().parents[2]
    shown = subprocess.run(["git", "-C", str(root), "show", f"{source}:{LAYER_FILE}"], capture_output=True, text=True)
    if shown.returncode:
        raise ValueError(f"--{name}: {str(source)!r} is neither a file nor a git revision holding {LAYER_FILE} "
                         f"({shown.stderr.strip()})")
    with tempfile.TemporaryDirectory(prefix="st_bench_") as tmp:
        path = Path(tmp) / "set_transformer.py"
        path.write_text(shown.stdout)
        return _load(path, name)


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"repset.layers._bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "SetTransformer"):
        raise ValueError(f"--{name}: {path} defines no SetTransformer")
    return module


def epoch_batches(lengths: torch.Tensor, config: TrainConfig, sample: int = 1) -> list[torch.Tensor]:
    """The batches of ``config``'s first epoch over sets of sizes ``lengths`` (N,), as :func:`fit` draws them;
    with ``sample`` k > 1, every k-th of them in decreasing order of their largest set (the largest first)."""
    if sample < 1:
        raise ValueError(f"sample must be >= 1, got {sample}")
    generator = torch.Generator().manual_seed(config.seed)
    batches = batch_indices(len(lengths), config.batch_size, generator, lengths if config.bucket else None)
    if sample == 1:
        return batches
    return sorted(batches, key=lambda b: -int(lengths[b].max()))[::sample]


def call_padding(lengths: torch.Tensor, batches: list[torch.Tensor], config: TrainConfig) -> dict[str, float]:
    """Padding of the forward calls that ``config``'s trainer makes of ``batches`` (:func:`chunks`): calls,
    padded over real elements (sets x largest set / elements), attention work over its unpadded floor
    (sets x largest set^2 / sum of squared sizes), the largest set in a call with the smallest set, and the
    call whose largest set is the most times its smallest (``worst``: those two sizes)."""
    calls = [lengths[b[part]] for b in batches for part in chunks(lengths[b], config.ragged, config.max_elements)]
    smallest = int(lengths.min())
    return {"calls": len(calls),
            "elements": sum(len(c) * int(c.max()) for c in calls) / float(lengths.sum()),
            "attention": sum(len(c) * float(c.max()) ** 2 for c in calls) / float((lengths.double() ** 2).sum()),
            "smallest": smallest, "beside_smallest": max(int(c.max()) for c in calls if int(c.min()) == smallest),
            "worst": max(((int(c.min()), int(c.max())) for c in calls), key=lambda w: w[1] / w[0])}


def time_batches(module: ModuleType, data: SetDataset, batches: list[torch.Tensor],
                 config: TrainConfig) -> tuple[float, float]:
    """Wall and CPU seconds (this process: with one thread, the time it ran, not the time it waited on a busy
    machine) of the training steps over ``batches`` (forward, backward, fused Adam as in :func:`fit`) of a
    freshly seeded classifier on ``module.SetTransformer`` (the paper's configuration)."""
    seed_everything(config.seed)
    model = SetClassifier(module.SetTransformer(data.dim), data.n_classes)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, fused=True)
    model.train()
    wall, cpu = time.perf_counter(), time.process_time()
    for index in batches:
        opt.zero_grad(set_to_none=True)
        train_step(model, data, index, config)
        opt.step()
    return time.perf_counter() - wall, time.process_time() - cpu


def compare(modules: dict[str, ModuleType], data: SetDataset, batches: list[torch.Tensor], config: TrainConfig,
            repeats: int = 3, progress: Callable[[str, float, float], None] | None = None) -> dict[str, float]:
    """Best-of-``repeats`` wall seconds (``name``) and CPU seconds (``name_cpu``) per module over the same
    batches, the modules alternated on one torch thread (``progress(name, wall, cpu)`` after each timing);
    ``ratio`` and ``ratio_cpu``: the first module's over the second's."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        best: dict[str, float] = {}
        for _ in range(repeats):
            for name, module in modules.items():
                wall, cpu = time_batches(module, data, batches, config)
                best[name] = min(best.get(name, float("inf")), wall)
                best[f"{name}_cpu"] = min(best.get(f"{name}_cpu", float("inf")), cpu)
                if progress is not None:
                    progress(name, wall, cpu)
    finally:
        torch.set_num_threads(threads)
    first, second = list(modules)[:2]
    return {**best, "ratio": best[first] / best[second], "ratio_cpu": best[f"{first}_cpu"] / best[f"{second}_cpu"]}


@torch.no_grad()
def max_difference(modules: dict[str, ModuleType], data: SetDataset, index: torch.Tensor, seed: int = 0) -> float:
    """Largest difference between the modules' logits on the sets ``index``, each model seeded alike (the
    versions compute the same function: a check that the timed models are the same model)."""
    outs = []
    for module in modules.values():
        seed_everything(seed)
        V, lengths = data.batch(index)
        outs.append(SetClassifier(module.SetTransformer(data.dim), data.n_classes)(V, lengths))
    return max(float((o - outs[0]).abs().max()) for o in outs)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", default="../shared/data/mirror")
    parser.add_argument("--dataset", default="REDDIT-BINARY")
    parser.add_argument("--dim", type=int, default=20)
    parser.add_argument("--before", default=BEFORE, help="a file or a git revision (default: %(default)s)")
    parser.add_argument("--after", default=str(Path(__file__).resolve().parents[1] / "layers" / "set_transformer.py"))
    parser.add_argument("--sample", type=int, default=5, help="every k-th batch by size, the largest first; 1: all")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    modules = {"before": layer_module(args.before, "before"), "after": layer_module(args.after, "after")}
    sizes = fold_sizes(args.dataset, args.raw)["train"]
    data = synthetic(sizes, args.dim, 0)
    config = TrainConfig(patience=None)
    batches = epoch_batches(data.lengths(), config, args.sample)
    every = epoch_batches(data.lengths(), config)
    print(f"{args.dataset} fold 0: {len(sizes)} training graphs ({sizes.min()}-{sizes.max()} nodes, median "
          f"{np.median(sizes):.0f}); {len(batches)} of the epoch's {len(every)} batches (largest sets "
          f"{[int(data.lengths()[b].max()) for b in batches]}), best of {args.repeats}, one thread")
    for bucket in (True, False):
        variant = TrainConfig(patience=None, bucket=bucket)
        pad = call_padding(data.lengths(), epoch_batches(data.lengths(), variant), variant)
        print(f"bucket={bucket}, ragged={variant.ragged}, max_elements={variant.max_elements}: {pad['calls']} calls, "
              f"padded / real elements {pad['elements']:.2f}, attention work / unpadded {pad['attention']:.2f}, "
              f"the {pad['smallest']}-node graph padded to {pad['beside_smallest']}, at worst a {pad['worst'][0]}-node "
              f"graph to {pad['worst'][1]}")
    difference = max_difference(modules, data, min(every, key=lambda b: int(data.lengths()[b].max())))
    out = compare(modules, data, batches, config, args.repeats,
                  lambda name, wall, cpu: print(f"  {name}: {wall:.2f} s ({cpu:.2f} s CPU)", flush=True))
    print(f"before ({args.before}): {out['before']:.2f} s ({out['before_cpu']:.2f} s CPU)   after ({args.after}): "
          f"{out['after']:.2f} s ({out['after_cpu']:.2f} s CPU)   before / after: {out['ratio']:.2f} "
          f"({out['ratio_cpu']:.2f} in CPU seconds; logits differ by at most {difference:.1e})")


if __name__ == "__main__":
    main()
