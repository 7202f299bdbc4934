"""Exact RepSet on a device: solver seconds per batch and training-epoch seconds, one run.

Two tables, both on the same device in one process:

- ``solver_seconds``: one training batch's matchings, as the RepSet layer hands them over (edge weights
  ``F = ReLU(V H)`` (B N, m, K) on the device, identity index): our ``cuda`` solver as configured
  (``backend="auto"``: torch-linear-assignment's kernel on a GPU where installed) and its own lock-step
  method (``cuda-lockstep``; with ``torch.compile`` too when asked), the Numba JV solver on host arrays (``numba``) and with the layer's round
  trip (``numba+transfer``: ``F`` to the host, pairs back), ``torch-linear-assignment``'s batched solver on
  the padded costs (skipped, with the reason, when not installed), optionally SciPy. ``max_rel_err`` is
  each solver's largest relative value difference to ``numba`` (else ``cuda``) on the same problems.
- ``epoch_seconds``: RepSet training epochs (the real trainer, padded batches, synthetic Gaussian sets of
  the datasets' shapes) with the ``cuda`` solver (its ``backend`` column says which ran), ``cuda-lockstep``
  and the ``numba`` solver (CPU, its pairs copied to the device), after one warm-up epoch (its seconds in
  ``first_epoch_seconds``); ``speedup_vs_numba`` = numba seconds / the row's seconds on the same device.
  With ``--raw``, also ``reddit-fold0``: REDDIT-BINARY fold 0's training graphs with their real node counts
  (6-3,648, ragged) and Gaussian 20-d nodes, where the kernel meets a new padded shape batch after batch.

``python -m repset.bench.gpu --device cuda --out DIR`` writes ``solver_seconds.csv``,
``epoch_seconds.csv`` and ``environment.json`` (see ``.ci/gpu_check.sh``). Nothing here needs pandas,
and a missing Numba or torch-linear-assignment only skips its rows.
"""
from __future__ import annotations

import csv
import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from solvers import get_solver
from solvers.tla import TLA
from repset.bench.epoch import EpochShape, synthetic_sets
from repset.sets import SetDataset
from repset.threads import passive_numba_pool
from repset.training.classifier import SetClassifier, build_layer
from repset.training.trainer import TrainConfig, fit, seed_everything

__all__ = ["BATCH_SHAPES", "EPOCH_SHAPES", "solver_seconds", "epoch_seconds", "main"]

#: one training batch: name -> (B sets, N elements, m hidden sets, K hidden elements), as repset.bench.solvers
BATCH_SHAPES: dict[str, tuple[int, int, int, int]] = {
    "reddit": (64, 430, 50, 50), "bbcsport": (64, 117, 50, 20), "twitter": (64, 10, 50, 20)}
#: training sets of the datasets' shapes (REDDIT-BINARY: 80% of 2,000 graphs, struc2vec d = 20)
EPOCH_SHAPES: dict[str, EpochShape] = {
    "reddit": EpochShape(n_sets=1600, set_size=430, d=20, m=50, k=50, batch_size=64, n_classes=2),
    "bbcsport": EpochShape(n_sets=517, set_size=117, d=300, m=50, k=20, batch_size=64, n_classes=5),
    "twitter": EpochShape(n_sets=2176, set_size=10, d=300, m=50, k=20, batch_size=64, n_classes=3),
}
SOLVERS = ("cuda", "cuda-lockstep", "numba", "numba+transfer", TLA)
#: the epoch shape of REDDIT-BINARY's real, ragged set sizes (``--raw``): a new padded shape per batch
RAGGED = "reddit-fold0"


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def layer_batch(shape: Sequence[int], device: torch.device, seed: int = 0, dim: int = 16):
    """``(F (B N, m, K), index (B, N), lengths (B,), sizes (m,))`` on ``device``: ``ReLU(V H) / sqrt(dim)``
    of Gaussian ``V``, ``H`` (float32, seeded on the CPU), the layer's padded-batch form."""
    B, N, m, K = (int(s) for s in shape)
    g = torch.Generator().manual_seed(seed)
    V = torch.randn(B * N, dim, generator=g)
    H = torch.randn(dim, m * K, generator=g) / dim ** 0.5
    F = torch.relu(V @ H).view(B * N, m, K).to(device)
    index = torch.arange(B * N, device=device).view(B, N)
    return F, index, torch.full((B,), N, device=device), torch.full((m,), K, device=device)


def _median_seconds(call: Callable[[], np.ndarray], device: torch.device, repeats: int) -> tuple[float, np.ndarray]:
    """Median seconds of ``repeats`` calls of ``call`` (after one untimed warm-up) and its last values."""
    values = call()
    times = []
    for _ in range(max(1, repeats)):
        _sync(device)
        start = time.perf_counter()
        values = call()
        _sync(device)
        times.append(time.perf_counter() - start)
    return statistics.median(times), values


def _timers(F, index, lengths, sizes, names: Sequence[str], compile_step: bool) -> dict[str, Callable | str]:
    """name -> a call returning the values (P,) float64 of the batch's problems, or a reason it is skipped."""
    rows, cols = lengths[:, None], sizes[None, :]
    out: dict[str, Callable | str] = {}
    variants = [("cuda", "auto", False), ("cuda-lockstep", "lockstep", False)]
    variants += [("cuda-lockstep/compiled", "lockstep", True)] if compile_step else []
    for name, backend, compiled in variants:
        if name.split("/")[0] in names:
            solver = get_solver("cuda", device=F.device, compile=compiled, backend=backend)
            out[name] = lambda s=solver: s.solve_indexed_tensors(F, index, rows, cols, False).value.cpu().numpy().ravel()
    for name in ("numba", "numba+transfer", "scipy"):
        if name not in names:
            continue
        try:
            with passive_numba_pool():   # a spinning Numba pool would starve torch's ops (repset.threads)
                solver = get_solver(name.split("+")[0])
        except ImportError as err:
            out[name] = f"skipped: {err}"
            continue
        host = [t.cpu().numpy() for t in (F, index, rows, cols)]
        if name == "numba+transfer":   # the layer's path for a host solver: F over, pairs back
            def call(s=solver):
                result = s.solve_indexed(F.cpu().numpy(), index.cpu().numpy(), rows.cpu().numpy(),
                                         cols.cpu().numpy(), check_values=False)
                for pairs in result.pairs():
                    torch.from_numpy(pairs).to(F.device, torch.long)
                return result.value.ravel()
            out[name] = call
        else:
            out[name] = lambda s=solver: s.solve_indexed(*host, check_values=False).value.ravel()
    if TLA in names:
        out[TLA] = _tla_timer(F, index)
    return out


def _tla_timer(F: torch.Tensor, index: torch.Tensor) -> Callable | str:
    """``torch-linear-assignment`` on the padded costs ``-w`` (B m, N, K) (rectangular as they are)."""
    try:
        from torch_linear_assignment import batch_linear_assignment
    except ImportError as err:
        return f"skipped: {TLA} is not installed ({err}; pip install {TLA}, offline: pip install --no-deps its wheel)"
    B, N = index.shape
    W = F[index].permute(0, 2, 1, 3).reshape(-1, N, F.shape[2]).contiguous()      # (B m, N, K)
    cost = -W

    def call() -> np.ndarray:
        assignment = batch_linear_assignment(cost)                                     # (B m, N): column or -1
        picked = W.gather(2, assignment.clamp(min=0)[:, :, None]).squeeze(2).double()
        return torch.where(assignment >= 0, picked, 0.0).sum(1).cpu().numpy()
    return call


def solver_seconds(shapes: dict[str, Sequence[int]] | None = None, device: str | torch.device = "cuda",
                   solvers: Sequence[str] = SOLVERS, repeats: int = 5, seed: int = 0, dim: int = 16,
                   compile_step: bool = False) -> list[dict]:
    """One row per (shape, solver): median seconds for one batch's matchings (see the module docstring)."""
    device = torch.device(device)
    rows = []
    for shape_name, shape in (shapes or BATCH_SHAPES).items():
        F, index, lengths, sizes = layer_batch(shape, device, seed, dim)
        timed = {}
        for name, call in _timers(F, index, lengths, sizes, solvers, compile_step).items():
            if isinstance(call, str):
                rows.append(_row(shape_name, shape, name, device, status=call))
                continue
            seconds, values = _median_seconds(call, device, repeats)
            timed[name] = (seconds, values)
            print(f"  {shape_name} {name}: {seconds:.4g} s per batch", flush=True)   # survives a timeout
        reference = timed.get("numba", timed.get("cuda", (None, None)))[1]
        for name, (seconds, values) in timed.items():
            err = float(np.max(np.abs(values - reference) / np.maximum(np.abs(reference), 1e-30)))
            rows.append(_row(shape_name, shape, name, device, seconds=seconds, max_rel_err=err, repeats=repeats))
    return rows


def _row(shape_name: str, shape: Sequence[int], solver: str, device: torch.device, **fields) -> dict:
    B, N, m, K = shape
    return {"shape": shape_name, "solver": solver, "device": str(device), "sets": B, "problems": B * m, "n": N,
            "k": K, "seconds": float("nan"), "max_rel_err": float("nan"), "repeats": 0, "status": "ok", **fields}


def epoch_seconds(shapes: dict[str, EpochShape] | None = None, device: str | torch.device = "cuda",
                  solvers: Sequence[str] = ("cuda", "cuda-lockstep", "numba"), repeats: int = 3, seed: int = 0,
                  max_sets: int | None = None, datasets: dict[str, SetDataset] | None = None) -> list[dict]:
    """One row per (shape, solver): median, min and max seconds of ``repeats`` RepSet training epochs
    after a warm-up epoch (``first_epoch_seconds``: with the ``cuda`` solver's kernel, it compiles each new
    padded shape) on ``device``; ``max_sets`` caps the synthetic training sets (a shorter epoch: for CPUs).
    ``datasets``: shape name -> the sets to train on instead of the shape's synthetic ones (ragged sizes;
    the shape gives d, m, |Y|, batch size and classes)."""
    device = torch.device(device)
    rows = []
    for shape_name, shape in (shapes or EPOCH_SHAPES).items():
        if datasets and shape_name in datasets:
            data = datasets[shape_name]
        else:
            if max_sets is not None:
                shape = replace(shape, n_sets=min(shape.n_sets, int(max_sets)))
            data = synthetic_sets(shape, seed)
        sizes = np.diff(data.offsets.numpy())
        seconds_by_solver = {}
        for name in solvers:
            try:
                seed_everything(seed)
                solver = get_solver("cuda", device=device, backend="lockstep") if name == "cuda-lockstep" else name
                layer = build_layer("repset", data.dim, n_hidden_sets=shape.m, hidden_set_size=shape.k, solver=solver)
            except ImportError as err:
                rows.append({"shape": shape_name, "solver": name, "status": f"skipped: {err}"})
                continue
            config = TrainConfig(epochs=repeats + 1, batch_size=shape.batch_size, lr=1e-3, patience=None,
                                 seed=seed, device=str(device), distinct_elements=False)
            first, *seconds = fit(SetClassifier(layer, shape.n_classes), data, config)["epoch_seconds"]
            seconds_by_solver[name] = statistics.median(seconds)
            print(f"  {shape_name} {name}: first epoch {first:.3f} s, then {[round(s, 3) for s in seconds]} s",
                  flush=True)
            rows.append({"shape": shape_name, "solver": name, "device": str(device), "sets": len(sizes),
                         "set_size": float(sizes.mean()), "max_set_size": int(sizes.max()), "d": data.dim,
                         "m": shape.m, "k": shape.k, "batch_size": shape.batch_size,
                         "epoch_seconds": statistics.median(seconds), "min_seconds": min(seconds),
                         "max_seconds": max(seconds), "first_epoch_seconds": first, "repeats": repeats, "status": "ok",
                         "backend": layer.solver.backend_for(device) if hasattr(layer.solver, "backend_for") else ""})
        if "numba" in seconds_by_solver:
            for row in rows[-len(seconds_by_solver):]:
                if row["solver"] in seconds_by_solver:
                    row["speedup_vs_numba"] = seconds_by_solver["numba"] / seconds_by_solver[row["solver"]]
    return rows


def environment(device: torch.device) -> dict:
    """Versions and the device's name, for the record."""
    info = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": str(device),
            "torch_threads": torch.get_num_threads()}
    if device.type == "cuda":
        info["device_name"] = torch.cuda.get_device_name(device)
    for package in ("numba", "triton", "torch_linear_assignment"):
        try:
            info[package] = getattr(__import__(package), "__version__", "installed")
        except ImportError:
            info[package] = None
    return info


def _write(rows: list[dict], path: Path) -> None:
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)


def _print(title: str, rows: list[dict]) -> None:
    print(f"\n{title}")
    for row in rows:
        print("  " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m repset.bench.gpu [--device cuda] [--out DIR] [--shapes ...] [--max-sets N] [--compile]``."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--out", default=None, help="folder for the CSV tables and environment.json")
    parser.add_argument("--shapes", nargs="+", default=list(BATCH_SHAPES), choices=list(BATCH_SHAPES))
    parser.add_argument("--solvers", nargs="+", default=list(SOLVERS))
    parser.add_argument("--batch-sets", type=int, default=None, help="sets per timed batch (default 64)")
    parser.add_argument("--repeats", type=int, default=5, help="timed solver calls per solver and shape")
    parser.add_argument("--epoch-repeats", type=int, default=3, help="timed epochs (after one warm-up)")
    parser.add_argument("--max-sets", type=int, default=None, help="cap on training sets per epoch shape")
    parser.add_argument("--no-epochs", action="store_true", help="solver table only")
    parser.add_argument("--epoch-solvers", nargs="+", default=["cuda", "cuda-lockstep", "numba"],
                        choices=["cuda", "cuda-lockstep", "numba"], help="solvers of the epoch table")
    parser.add_argument("--compile", action="store_true", help="also time the cuda solver with torch.compile")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    parser.add_argument("--raw", default=None, help="folder holding REDDIT-BINARY/REDDIT-BINARY.zip: adds the "
                        "epoch shape reddit-fold0 (fold 0's training graphs' node counts, Gaussian nodes)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: CUDA is not available on this machine (torch.cuda.is_available() is False)")
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
        (out / "environment.json").write_text(json.dumps(environment(device), indent=2))
    shapes = {s: BATCH_SHAPES[s] if args.batch_sets is None else (args.batch_sets,) + BATCH_SHAPES[s][1:]
              for s in args.shapes}
    rows = solver_seconds(shapes, device, args.solvers, args.repeats, compile_step=args.compile)
    _print(f"solver seconds per batch on {device}", rows)
    if out:
        _write(rows, out / "solver_seconds.csv")
    if not args.no_epochs:
        epoch_shapes, datasets = {s: EPOCH_SHAPES[s] for s in args.shapes}, {}
        if args.raw:
            from repset.bench.graph_scale import fold_sizes, synthetic

            sizes = fold_sizes("REDDIT-BINARY", args.raw)["train"]
            epoch_shapes[RAGGED] = EPOCH_SHAPES["reddit"]      # its d, m, |Y| and batches; the sets are the data's
            datasets[RAGGED] = synthetic(sizes, EPOCH_SHAPES["reddit"].d, seed=0)
        rows = epoch_seconds(epoch_shapes, device, args.epoch_solvers, repeats=args.epoch_repeats,
                             max_sets=args.max_sets, datasets=datasets)
        _print(f"RepSet training-epoch seconds on {device}", rows)
        if out:
            _write(rows, out / "epoch_seconds.csv")


if __name__ == "__main__":  # pragma: no cover
    main()
