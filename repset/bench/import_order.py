"""Training-step milliseconds of RepSet whichever of torch and repset a script imports first, each order
in a fresh process, beside ``busy`` spinning processes (a shared node, other pipeline jobs).

    python -m repset.bench.import_order [--busy 0 1 8] [--repeats 3] [--steps 200]

The step: 32 sets of 5-20 x 50-d, RepSet (numba solver, m 10, |Y| 5), a linear head, forward, backward
and Adam, on ``torch.get_num_threads()`` threads. Prints one table (median ms per step over the steps
of a process; min/median/max over ``repeats`` processes per order and load) and the ratio of the two
orders measured in the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

__all__ = ["CHILD", "time_order", "compare_orders", "main"]

#: the timed script, run as ``python -c CHILD <order> <steps> <threads>``
CHILD = r"""
import json, sys, time
order, steps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if order == "torch-first":
    import torch
    import repset.layers
else:
    import repset.layers
    import torch
from repset.layers import RepSet
from repset.sets import pad_sets
torch.manual_seed(0)
torch.set_num_threads(threads)
sets = [torch.randn(int(n), 50) for n in torch.randint(5, 21, (32,))]
V, lengths = pad_sets(sets)
labels = torch.randint(0, 2, (32,))
layer, head = RepSet(50, 10, 5, solver="numba"), torch.nn.Linear(10, 2)
opt = torch.optim.Adam([*layer.parameters(), *head.parameters()], lr=0.01)
times = []
for step in range(steps + 20):
    start = time.perf_counter()
    loss = torch.nn.functional.cross_entropy(head(layer(V, lengths)), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step >= 20:                      # warm-up: Numba's compile/cache load, allocator
        times.append(time.perf_counter() - start)
times.sort()
print(json.dumps({"median_ms": 1000 * times[len(times) // 2], "threads": torch.get_num_threads()}))
"""

ORDERS = ("torch-first", "repset-first")


def _user_env(policy: str | None = None) -> dict[str, str]:
    """The environment of a user who exported OpenMP wait policy ``policy`` (None: none)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    return env if policy is None else {**env, "OMP_WAIT_POLICY": policy}


def time_order(order: str, steps: int = 200, threads: int = 2, policy: str | None = None) -> float:
    """Median ms per training step in a fresh process importing in ``order`` (one of :data:`ORDERS`),
    with ``OMP_WAIT_POLICY=policy`` exported (None: unset)."""
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; valid: {', '.join(ORDERS)}")
    out = subprocess.run([sys.executable, "-c", CHILD, order, str(steps), str(threads)], capture_output=True,
                         text=True, check=False, env=_user_env(policy))
    if out.returncode != 0:
        raise RuntimeError(f"the {order} child failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])["median_ms"]


#: what a busy neighbour runs: a spinning interpreter, or a torch job on its own 2-thread OpenMP pool
BUSY = {"spin": "while True: pass",
        "torch": "import torch\ntorch.set_num_threads(2)\nx = torch.randn(256, 256)\nwhile True: x @ x"}


def _busy(n: int, kind: str = "spin") -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", BUSY[kind]], env=_user_env()) for _ in range(n)]


def compare_orders(busy: Sequence[int] = (0, 1), repeats: int = 3, steps: int = 200, threads: int = 2,
                   kind: str = "spin", policy: str | None = None) -> list[dict]:
    """Per load (``busy`` neighbour processes of ``kind``, see :data:`BUSY`) and order: min, median and
    max over ``repeats`` fresh processes (orders interleaved) of the median ms per step."""
    if kind not in BUSY:
        raise ValueError(f"unknown busy kind {kind!r}; valid: {', '.join(BUSY)}")
    rows = []
    for n in busy:
        procs = _busy(n, kind)
        try:
            time.sleep(0.5 if n else 0)
            samples: dict[str, list[float]] = {o: [] for o in ORDERS}
            for _ in range(repeats):
                for order in ORDERS:
                    samples[order].append(time_order(order, steps, threads, policy))
        finally:
            for p in procs:
                p.kill()
                p.wait()
        for order in ORDERS:
            s = samples[order]
            rows.append({"busy": f"{n} {kind}", "OMP_WAIT_POLICY": policy or "unset", "order": order, "min_ms": min(s), "median_ms": statistics.median(s),
                         "max_ms": max(s)})
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 1], help="spinning processes beside (per row)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--kind", default="spin", choices=sorted(BUSY), help="what each busy neighbour runs")
    parser.add_argument("--omp-wait-policy", default=None, help="exported to the timed processes (default: unset)")
    args = parser.parse_args(argv)
    import pandas as pd

    table = pd.DataFrame(compare_orders(args.busy, args.repeats, args.steps, args.threads, args.kind,
                                        args.omp_wait_policy))
    print(table.round(2).to_markdown(index=False))
    wide = table.pivot(index="busy", columns="order", values="median_ms")
    for n, row in wide.iterrows():
        print(f"busy {n}: torch-first / repset-first = {row['torch-first'] / row['repset-first']:.2f}")


if __name__ == "__main__":
    main()
