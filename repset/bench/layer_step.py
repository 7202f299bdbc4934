"""A model's training step with each set layer, eager and compiled, quiet and beside busy cores: what a
user's model pays for the layer, and how much a busy machine slows it.

    python -m repset.bench.layer_step [--busy 0 1] [--steps 20] [--threads 2] [--modes eager compiled]

The step: 64 sets of 30 elements in 64-d through the layer (m 50, |Y| 20), a linear head, cross-entropy,
backward and Adam, on ``--threads`` torch threads (the layers' Numba kernels follow torch's count). Models:
RepSet with the ``numba`` and ``scipy`` solvers, ApproxRepSet, and a sum-pooling floor (a linear map of
each element, summed). ``compiled`` wraps the model in ``torch.compile``. Each (model, mode, load) runs in
a fresh process beside ``busy`` processes spinning one core each; prints a table of median ms per step
and the busy / quiet ratio measured in the same run, and torch's thread count after the steps (a layer must
leave it at ``--threads``).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence

__all__ = ["CHILD", "MODELS", "MODES", "build_model", "time_step", "compare", "table", "main"]

MODELS = ("repset-numba", "repset-scipy", "approx", "sum")
MODES = ("eager", "compiled")

#: the step's sizes: B sets of N elements in D-d, m hidden sets of K elements
B, N, D, M, K = 64, 30, 64, 50, 20


def build_model(name: str):
    """The layer ``name`` of :data:`MODELS` (RepSet with the numba or scipy solver, ApproxRepSet, or the sum-pooling
    floor: a linear map of each element, summed) and a linear head: (B, N, D) -> (B, 2) logits."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; valid: {', '.join(MODELS)}")
    import torch

    from repset.layers import ApproxRepSet, RepSet

    class SumPool(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(D, M)

        def forward(self, V: torch.Tensor) -> torch.Tensor:
            return self.linear(V).sum(1)

    layer = {"repset-numba": lambda: RepSet(D, M, K, solver="numba"),
             "repset-scipy": lambda: RepSet(D, M, K, solver="scipy"),
             "approx": lambda: ApproxRepSet(D, M, K), "sum": SumPool}[name]()
    return torch.nn.Sequential(layer, torch.nn.Linear(M, 2))


#: the timed script, run as ``python -c CHILD <model> <mode> <steps> <threads>``
CHILD = r"""
import json, sys, time
import torch
model_name, mode, steps, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(threads)
from repset.bench.layer_step import B, N, D, build_model
torch.manual_seed(0)
model = build_model(model_name)
step_model = torch.compile(model) if mode == "compiled" else model
V, labels = torch.randn(B, N, D), torch.randint(0, 2, (B,))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
times = []
for step in range(steps + 3):
    start = time.perf_counter()
    loss = torch.nn.functional.cross_entropy(step_model(V), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step >= 3:                       # warm-up: kernels loaded, compiled graphs built
        times.append(time.perf_counter() - start)
times.sort()
print(json.dumps({"median_ms": 1000 * times[len(times) // 2], "torch_threads": torch.get_num_threads()}))
"""


def time_step(model: str, mode: str = "eager", steps: int = 20, threads: int = 2) -> dict:
    """Median ms per step (and torch's thread count at the end) of ``model`` in a fresh process."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; valid: {', '.join(MODELS)}")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid: {', '.join(MODES)}")
    out = subprocess.run([sys.executable, "-c", CHILD, model, mode, str(steps), str(threads)],
                         capture_output=True, text=True, env=dict(os.environ))
    if out.returncode != 0:
        raise RuntimeError(f"{model} ({mode}) failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _spinners(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def compare(busy: Sequence[int] = (0, 1), models: Sequence[str] = MODELS, modes: Sequence[str] = ("eager",),
            steps: int = 20, threads: int = 2) -> list[dict]:
    """One row per (model, mode): median ms per step beside each count of ``busy`` spinning processes, torch's
    thread count after the steps, and each busy count's ratio to the first (quiet) count."""
    rows = {(model, mode): {"model": model, "mode": mode} for model in models for mode in modes}
    for load in busy:
        spinners = _spinners(load)
        try:
            for (model, mode), row in rows.items():
                result = time_step(model, mode, steps, threads)
                row[f"busy {load}"] = result["median_ms"]
                row["torch threads after"] = result["torch_threads"]   # the layers must leave it as set
        finally:
            for process in spinners:
                process.kill()
                process.wait()
    for row in rows.values():
        for load in busy[1:]:
            row[f"ratio {load}/{busy[0]}"] = row[f"busy {load}"] / row[f"busy {busy[0]}"]
    return list(rows.values())


def table(rows: list[dict]) -> str:
    """Markdown table of :func:`compare`'s rows (ms with one decimal, ratios with two)."""
    keys = list(rows[0])

    def cell(key: str, value) -> str:
        if isinstance(value, float):
            return f"{value:.2f}" if key.startswith("ratio") else f"{value:.1f}"
        return str(value)

    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(cell(k, row[k]) for k in keys) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 1], help="spinning processes beside (first: quiet)")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--modes", nargs="+", default=["eager"], choices=MODES)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2, help="torch threads (the layers' kernels follow)")
    args = parser.parse_args(argv)
    print(table(compare(args.busy, args.models, args.modes, args.steps, args.threads)))


if __name__ == "__main__":
    main()
