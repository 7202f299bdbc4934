"""Compiled against eager training steps of one model, interleaved in one process: the ratio, not the times.

    python -m repset.bench.compile_ratio [--models repset approx sum] [--rounds 8] [--steps 10] [--threads 1]

The step is :mod:`repset.bench.layer_step`'s (64 sets of 30 elements in 64-d, m 50, |Y| 20, a linear head,
cross-entropy, backward, Adam). Each model runs in a fresh process: its eager and ``torch.compile``-d
(inductor) versions alternate, ``--steps`` steps per round, so that the machine's drift reaches both
alike; prints each model's median ms per step and the median and range over rounds of compiled / eager.
The sum-pooling floor shows what compiling costs a model with nothing but torch operators.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from collections.abc import Sequence

from repset.bench.layer_step import B, D, N
from repset.bench.layer_step import build_model as step_model

__all__ = ["MODELS", "build_model", "ratio", "main"]

#: this benchmark's names of :func:`repset.bench.layer_step.build_model`'s models
MODELS = {"repset": "repset-numba", "approx": "approx", "sum": "sum"}


def build_model(name: str):
    """The layer ``name`` of :data:`MODELS` (RepSet with the numba solver, ApproxRepSet, or sum pooling) and a
    linear head, as :mod:`repset.bench.layer_step` times it."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; valid: {', '.join(MODELS)}")
    return step_model(MODELS[name])


def ratio(name: str, rounds: int = 8, steps: int = 10, threads: int = 1) -> dict[str, float]:
    """In this process: median ms per step eager and compiled, and compiled / eager per round (median, min,
    max), the two alternating."""
    import time

    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = build_model(name)
    compiled = torch.compile(model)
    V, labels = torch.randn(B, N, D), torch.randint(0, 2, (B,))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

    def step(run) -> None:
        loss = torch.nn.functional.cross_entropy(run(V), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    for run in (model, compiled):          # warm-up: kernels loaded, graphs compiled
        for _ in range(5):
            step(run)
    times: dict[str, list[float]] = {"eager": [], "compiled": []}
    for _ in range(rounds):
        for mode, run in (("eager", model), ("compiled", compiled)):
            start = time.perf_counter()
            for _ in range(steps):
                step(run)
            times[mode].append((time.perf_counter() - start) / steps * 1e3)
    ratios = [c / e for e, c in zip(times["eager"], times["compiled"])]
    return {"eager_ms": statistics.median(times["eager"]), "compiled_ms": statistics.median(times["compiled"]),
            "ratio": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--child", help=argparse.SUPPRESS)       # the fresh process's model
    args = parser.parse_args(argv)
    if args.child:
        r = ratio(args.child, args.rounds, args.steps, args.threads)
        print(" ".join(f"{value:.4f}" for value in r.values()))
        return
    print("| model | eager ms | compiled ms | compiled / eager (median, range over rounds) |\n|---|---|---|---|")
    for name in args.models:
        out = subprocess.run([sys.executable, "-m", "repset.bench.compile_ratio", "--child", name,
                              "--rounds", str(args.rounds), "--steps", str(args.steps), "--threads", str(args.threads)],
                             capture_output=True, text=True, check=True).stdout.split()
        eager, compiled, mid, low, high = map(float, out[-5:])
        print(f"| {name} | {eager:.2f} | {compiled:.2f} | {mid:.2f} ({low:.2f}-{high:.2f}) |")


if __name__ == "__main__":
    main()
