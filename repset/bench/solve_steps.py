"""The ``cuda`` solver's memory bound: one evaluation-sized batch solved in steps of at most ``max_elements`` padded
weights (:data:`solvers.cuda.SOLVE_ELEMENTS`), against larger steps: seconds, peak device memory and equality.

The batch is the RepSet layer's indexed form (:meth:`solvers.cuda.CudaSolver.solve_indexed_tensors`): ``sets``
sets of Gaussian ``dim``-d elements, their sizes drawn log-normally around ``median`` and the largest ``max_size``
(REDDIT-BINARY's graphs: median about 300 nodes, at most 3,782), sorted as evaluation batches are, against ``m``
hidden sets of ``k`` elements, weights ``ReLU(V H)`` in float32::

    python -m repset.bench.solve_steps --device cuda --steps 268435456 2147483647 4294967296

(REDDIT-BINARY's validation batch at m = 100, |Y| = 50: 180 sets x 100 hidden sets = 18,000 problems). Each row:
the step bound, the steps taken, the best of ``repeats`` seconds (after one untimed solve, which compiles the
kernel's shapes), the peak memory the solve allocated on a CUDA device (torch's allocator; none on the CPU), and
whether its values and assignments equal the first row's.
"""
from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Sequence

import numpy as np
import torch

import solvers.cuda as cuda_module

__all__ = ["indexed_batch", "solve_steps", "main"]


def indexed_batch(sets: int, max_size: int, median: float, m: int, k: int, dim: int, seed: int,
                  device: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(table (U, m, k) float32, row_index (sets, max_size) long, lengths (sets,))`` of one batch: ``U`` is the
    sets' elements together, row ``p`` of ``row_index`` lists set ``p``'s rows of the table (0 past its length)."""
    rng = np.random.default_rng(seed)
    sizes = np.clip(np.round(median * np.exp(rng.normal(0.0, 1.0, sets))), 1, max_size).astype(np.int64)
    sizes[np.argmax(sizes)] = max_size
    sizes.sort()
    V = rng.normal(size=(int(sizes.sum()), dim)).astype(np.float32)
    H = rng.normal(size=(dim, m * k)).astype(np.float32)
    table = np.maximum(V @ H, 0).reshape(-1, m, k)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    row_index = np.where(np.arange(max_size) < sizes[:, None], starts[:, None] + np.arange(max_size), 0)
    table, row_index, lengths = (torch.from_numpy(a).to(device) for a in (table, row_index, sizes))
    return table, row_index, lengths


def solve_steps(table: torch.Tensor, row_index: torch.Tensor, lengths: torch.Tensor, steps: Sequence[int],
                repeats: int = 2) -> list[dict]:
    """One row per step bound in ``steps`` (see the module docstring): the batch solved by the ``cuda`` solver with
    :data:`solvers.cuda.SOLVE_ELEMENTS` set to it."""
    solver, device = cuda_module.CudaSolver(table.device), table.device
    P, N = row_index.shape
    Q, K = table.shape[1:]
    rows, first = [], None
    default = cuda_module.SOLVE_ELEMENTS
    try:
        for bound in steps:
            cuda_module.SOLVE_ELEMENTS = int(bound)
            solve = functools.partial(solver.solve_indexed_tensors, table, row_index, lengths[:, None], check_values=False)
            result = solve()
            seconds = []
            for _ in range(repeats):
                if device.type == "cuda":
                    torch.cuda.synchronize(device)
                    torch.cuda.reset_peak_memory_stats(device)
                    base = torch.cuda.memory_allocated(device)
                start = time.perf_counter()
                result = solve()
                if device.type == "cuda":
                    torch.cuda.synchronize(device)
                seconds.append(time.perf_counter() - start)
            peak = (torch.cuda.max_memory_allocated(device) - base) / 2**30 if device.type == "cuda" else None
            first = result if first is None else first
            rows.append({"max_elements": int(bound), "problems": P * Q, "padded_weights": P * Q * N * K,
                         "steps": _steps(lengths, Q, K, max(1, int(bound) // (N * K))), "seconds": min(seconds),
                         "peak_gib": peak, "equal": bool(torch.equal(result.value, first.value)
                                                         and torch.equal(result.assignment, first.assignment))})
    finally:
        cuda_module.SOLVE_ELEMENTS = default
    return rows


def _steps(lengths: torch.Tensor, Q: int, K: int, per_step: int) -> int:
    """Steps the solver takes: its problems of each orientation (``n <= k``, ``n > k``) in groups of ``per_step``."""
    small = int((lengths <= K).sum()) * Q
    return -(-small // per_step) + -(-(lengths.numel() * Q - small) // per_step)


def main(argv: Sequence[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--sets", type=int, default=180, help="sets in the batch (REDDIT's validation fold: 180)")
    parser.add_argument("--max-size", type=int, default=3782, help="the largest set's elements")
    parser.add_argument("--median", type=float, default=300.0, help="the sets' median size (log-normal)")
    parser.add_argument("--m", type=int, default=100, help="hidden sets")
    parser.add_argument("--k", type=int, default=50, help="elements per hidden set")
    parser.add_argument("--dim", type=int, default=20, help="element dimension")
    parser.add_argument("--steps", type=int, nargs="+", required=True, help="step bounds (padded weights)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    batch = indexed_batch(args.sets, args.max_size, args.median, args.m, args.k, args.dim, args.seed, args.device)
    rows = solve_steps(*batch, args.steps, args.repeats)
    print(f"{'max_elements':>13} {'problems':>9} {'padded':>14} {'steps':>6} {'seconds':>9} {'vs first':>9} "
          f"{'peak GiB':>9} equal")
    for row in rows:
        peak = "n/a" if row["peak_gib"] is None else f"{row['peak_gib']:.2f}"
        print(f"{row['max_elements']:>13} {row['problems']:>9} {row['padded_weights']:>14} {row['steps']:>6} "
              f"{row['seconds']:>9.3f} {row['seconds'] / rows[0]['seconds']:>8.2f}x {peak:>9} {row['equal']}")
    return rows


if __name__ == "__main__":
    main()
