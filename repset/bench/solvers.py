"""Solver benchmark: every matching solver on the same seeded RepSet-shaped instances.

Instances are made as the RepSet layer makes them: ``F = ReLU(V H)`` of shape ``(B, N, m, K)``
(float32, Gaussian ``V`` (B*N, d) and ``H`` (d, m*K), scaled by ``1/sqrt(d)``) handed to the solver as
the transposed view ``(B, m, N, K)``: ``B * m`` problems of ``N x K``. Default shapes follow the
paper's datasets (average set size x hidden-set size).
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from solvers import get_solver

__all__ = ["SHAPES", "make_instances", "solver_benchmark"]

#: name -> (B, N, m, K): B sets of N elements against m hidden sets of K elements
SHAPES: dict[str, tuple[int, int, int, int]] = {
    "bbcsport": (517, 117, 50, 20),   # 25,850 problems of 117 x 20
    "twitter": (2176, 10, 50, 20),    # 108,800 problems of 10 x 20
    "reddit": (800, 430, 50, 50),     # 40,000 problems of 430 x 50
}

REFERENCE = "scipy"


def make_instances(shape: Sequence[int], seed: int = 0, dim: int = 16, chunk: int = 64) -> np.ndarray:
    """Seeded float32 weights ``ReLU(V H) / sqrt(dim)`` of shape (B, N, m, K), returned as the (B, m, N, K) view.

    Generated ``chunk`` sets at a time so that the peak memory is about the output's size.
    """
    B, N, m, K = (int(s) for s in shape)
    rng = np.random.default_rng(seed)
    H = (rng.standard_normal((dim, m * K), dtype=np.float32) / np.float32(np.sqrt(dim)))
    F = np.empty((B, N, m, K), dtype=np.float32)
    for start in range(0, B, chunk):
        stop = min(B, start + chunk)
        V = rng.standard_normal(((stop - start) * N, dim), dtype=np.float32)
        block = F[start:stop].reshape((stop - start) * N, m * K)
        np.matmul(V, H, out=block)
        np.maximum(block, 0, out=block)
    return F.transpose(0, 2, 1, 3)


def _limit(max_problems: Mapping | None, solver: str, shape_name: str) -> int | None:
    """Problem cap for ``solver`` on ``shape_name``: ``max_problems[solver]`` is an int or {shape: int}."""
    if not max_problems or solver not in max_problems:
        return None
    cap = max_problems[solver]
    if isinstance(cap, Mapping):
        cap = cap.get(shape_name)
    return None if cap is None else int(cap)


def _time(solver, w: np.ndarray, repeats: int) -> tuple[float, np.ndarray]:
    """Median wall time of ``repeats`` calls (after one warm-up call) and the values of the last one."""
    solver.solve(w[:1, :1])  # warm-up: JIT compilation / cache loading excluded
    times = []
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        result = solver.solve(w)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result.value.reshape(-1)


def solver_benchmark(shapes: Mapping[str, Sequence[int]] | None = None, solvers: Sequence[str] = ("scipy", "numba"),
                     repeats: int = 5, seed: int = 0, max_problems: Mapping | None = None,
                     dim: int = 16, solver_options: Mapping[str, dict] | None = None) -> pd.DataFrame:
    """Time every solver on every shape; one row per (shape, solver).

    Args:
        shapes: name -> (B, N, m, K) (default :data:`SHAPES`).
        solvers: registry names; the reference ``"scipy"`` is always run (first) for speedups and errors.
        repeats: timed calls per solver (median reported), after one untimed warm-up call.
        seed: instance seed (the same instances for every solver).
        max_problems: per-solver cap on the problems timed, ``{solver: int}`` or
            ``{solver: {shape: int}}``; a capped solver runs on the first whole sets reaching the cap
            and its time is extrapolated linearly to all problems (column ``extrapolated``).
        dim: inner dimension d of the Gaussian product.
        solver_options: per-solver keyword options for :func:`solvers.get_solver`.

    Returns columns: shape, solver, exact, problems, n, k, subsample (problems timed), extrapolated,
    seconds (median, for all problems), seconds_measured (median on the subsample), us_per_problem,
    speedup_vs_scipy (scipy seconds / seconds, both for all problems), max_rel_err (max
    |value - scipy| / scipy over the problems both solved; 0 where scipy's value is 0 and equal),
    threads (``numba.get_num_threads()``), repeats, dim.
    """
    import numba

    shapes = dict(SHAPES if shapes is None else shapes)
    names = [REFERENCE] + [s for s in solvers if s != REFERENCE]
    options = dict(solver_options or {})
    rows = []
    for shape_name, shape in shapes.items():
        w = make_instances(shape, seed=seed, dim=dim)
        B, m, N, K = w.shape
        total = B * m
        reference_values = None
        reference_seconds = None
        for name in names:
            solver = get_solver(name, **options.get(name, {}))
            cap = _limit(max_problems, name, shape_name)
            sets = B if cap is None else max(1, min(B, -(-cap // m)))
            sub = w[:sets]
            measured, values = _time(solver, sub, repeats)
            timed = sets * m
            seconds = measured * total / timed
            if name == REFERENCE:
                reference_values, reference_seconds = values, seconds
            common = min(len(values), len(reference_values))
            ref, got = reference_values[:common], values[:common]
            denom = np.where(ref != 0, np.abs(ref), 1.0)
            err = float(np.max(np.abs(got - ref) / denom)) if common else float("nan")
            rows.append(dict(shape=shape_name, solver=name, exact=bool(solver.exact), problems=total, n=N, k=K,
                             subsample=timed, extrapolated=timed < total, seconds=seconds,
                             seconds_measured=measured, us_per_problem=1e6 * seconds / total,
                             speedup_vs_scipy=reference_seconds / seconds, max_rel_err=err,
                             threads=numba.get_num_threads(), repeats=repeats, dim=dim))
        del w
    return pd.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - thin CLI
    """``python -m repset.bench.solvers [--solvers scipy numba auction] [--repeats 5] [--out file.csv]``."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--solvers", nargs="*", default=["scipy", "numba", "auction"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument("--max-problems", type=json.loads, default=None,
                        help='JSON, e.g. \'{"scipy": {"reddit": 4000}}\'')
    parser.add_argument("--out", default=None, help="write the table as CSV")
    args = parser.parse_args(argv)
    table = solver_benchmark({s: SHAPES[s] for s in args.shapes}, args.solvers, args.repeats, args.seed,
                             args.max_problems, args.dim)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(table.to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)


if __name__ == "__main__":  # pragma: no cover
    main()
