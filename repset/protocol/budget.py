"""What the full protocol costs on this machine, from measured epoch seconds, before running it.

For every dataset x model x grid point of a config, :func:`calibrate` trains the real layer with the
real trainer on synthetic sets that have the dataset's training-set sizes, dimension and classes, or
on the dataset's own sets where a built store gives them (:attr:`DatasetShape.sets`: real values, which
the matching solvers find harder than normal vectors), a random sample of ``sample`` sets (seconds
scaled to the full training set), and times one validation pass. :func:`budget_table` multiplies by
the epochs a run is expected to train (:func:`expected_epochs`: the mean ``epochs_run`` of the finished
records of that dataset and model where there are any, else the model's ``train.epochs``, an upper
bound: early stopping ends runs sooner), adds the job's start (the interpreter and torch; shared by a
pack's runs, :mod:`repset.protocol.packs`), and multiplies by the runs the protocol asks for (splits x
seeds, the grid searched on ``protocol.grid_splits`` splits, or that many folds of each CV repetition with a
dataset's ``grid_scope: repetition``); :func:`summarize` lays the runs out as
the workflow's jobs (one per split and grid point) and replays them on 2, 8, 64 and unboundedly many
cores. Only the timing matters: the values are synthetic or, from a store, not kept.
"""
from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from repset.sets import SetDataset
from repset.training.classifier import SetClassifier, build_layer
from repset.training.chunks import chunks, eval_batches
from repset.training.trainer import TrainConfig, batch_indices, eval_options, evaluate, fit, seed_everything

from .grid import grid_points, point_id
from .jobs import CHOSEN, grid_blocks
from .packs import packed_datasets
from .plan import datasets, layer_options, models_for, train_settings
from .schedule import job_costs, wall_seconds

__all__ = ["DatasetShape", "calibrate", "protocol_runs", "expected_epochs", "records_against_estimate",
           "seconds_per_run", "start_seconds", "budget_table", "relayout", "summarize", "CORES"]

#: core counts the budget reports wall-clock estimates for (None: an unbounded cluster, the critical path)
CORES = (2, 8, 64, None)


@dataclass(frozen=True)
class DatasetShape:
    """What a training run sees: the sizes of the training sets, element dim, classes, val sets and,
    for word sets, each training set's word ids (``train_ids[i]`` has ``train_sizes[i]`` entries).
    ``sets`` / ``val_sets``: the dataset's own training and validation sets (a built store's split 0;
    ``sets`` has the sizes ``train_sizes``), timed instead of synthetic ones where given."""

    name: str
    train_sizes: np.ndarray
    dim: int
    n_classes: int
    n_val: int
    train_ids: list[np.ndarray] | None = None
    sets: SetDataset | None = None
    val_sets: SetDataset | None = None

    def __post_init__(self) -> None:
        if self.sets is not None and not np.array_equal(self.sets.lengths().numpy(), self.train_sizes):
            raise ValueError(f"{self.name}: sets' sizes differ from train_sizes")
        if (self.sets is None) != (self.val_sets is None):
            raise ValueError(f"{self.name}: sets and val_sets come together")

    @property
    def values(self) -> str:
        """What :func:`calibrate` times: ``"store"`` (the dataset's own sets) or ``"synthetic"``."""
        return "synthetic" if self.sets is None else "store"


def _synthetic(sizes: np.ndarray, dim: int, n_classes: int, seed: int,
               ids: list[np.ndarray] | None = None) -> SetDataset:
    """Random sets of ``sizes``; with ``ids`` (one array per set), words of a random vocabulary, so that
    the sets share elements as the dataset's do."""
    rng = np.random.default_rng(seed)
    offsets = torch.from_numpy(np.concatenate([[0], np.cumsum(sizes)]))
    labels = torch.from_numpy(rng.integers(0, n_classes, len(sizes)))
    if ids is None:
        return SetDataset(torch.from_numpy(rng.standard_normal((int(sizes.sum()), dim), dtype=np.float32)), offsets, labels)
    flat = np.concatenate(ids).astype(np.int64)
    vocabulary = rng.standard_normal((int(flat.max()) + 1, dim), dtype=np.float32)
    return SetDataset(torch.from_numpy(vocabulary[flat]), offsets, labels, torch.from_numpy(flat))


def calibrate(shape: DatasetShape, layer: str, options: dict, train: TrainConfig, sample: int = 256,
              seed: int = 0) -> dict[str, float]:
    """Seconds of one training epoch on the full training set and of one validation pass, and an
    estimate of the job's peak memory (MB).

    Cuts the training sizes into the trainer's batches (bucketed by size when ``train.bucket``), trains
    on the sets of ``sample // batch_size`` random batches (a warm-up epoch, then a timed one) and
    scales by the fraction of batches timed; the validation pass is timed on ``shape.n_val`` sets. The
    sets are ``shape.sets`` and ``shape.val_sets`` where given, else synthetic.
    """
    rng = np.random.default_rng(seed)
    lengths = torch.from_numpy(shape.train_sizes)
    # the epoch's own batches (bucketed by size as the trainer does), a random subset of them timed
    batches = batch_indices(len(lengths), train.batch_size, torch.Generator().manual_seed(seed),
                            lengths if train.bucket else None)
    pick = rng.choice(len(batches), min(len(batches), max(1, sample // train.batch_size)), replace=False)
    chosen = np.concatenate([batches[i].numpy() for i in pick])
    if shape.sets is not None:
        data = shape.sets.subset(chosen)
    else:
        ids = None if shape.train_ids is None else [shape.train_ids[i] for i in chosen]
        data = _synthetic(shape.train_sizes[chosen], shape.dim, shape.n_classes, seed, ids)
    seed_everything(seed)
    model = SetClassifier(build_layer(layer, shape.dim, **options), shape.n_classes)
    cfg = TrainConfig(epochs=2, batch_size=train.batch_size, lr=train.lr, patience=None, seed=seed, bucket=train.bucket,
                      distinct_elements=train.distinct_elements, ragged=train.ragged, max_elements=train.max_elements)
    epoch = fit(model, data, cfg)["epoch_seconds"][1] * len(batches) / len(pick)
    if shape.val_sets is not None:
        val = shape.val_sets
    else:
        some = rng.choice(len(shape.train_sizes), max(shape.n_val, 1))
        val = _synthetic(shape.train_sizes[some], shape.dim, shape.n_classes, seed + 1,
                         None if shape.train_ids is None else [shape.train_ids[i] for i in some])
    start = time.perf_counter()
    evaluate(model, val, **eval_options(cfg))
    return {"epoch_seconds": epoch, "val_seconds": time.perf_counter() - start,
            "mem_mb": _memory_mb(shape, batches, layer, options, train)}


#: floats kept per padded element and unit of width, fitted to measured peaks (REDDIT-BINARY, bounded and
#: original paths, ``python -m repset.bench.graph_scale``): hidden-set layers ~1.07 m x |Y|, the Set
#: Transformer ~29 x its hidden width; a margin on both
WIDTH_PER_HIDDEN_EDGE, WIDTH_PER_ATTENTION_UNIT, WIDTH_PER_INPUT = 1.25, 32, 8


def _memory_mb(shape: DatasetShape, batches: list[torch.Tensor], layer: str, options: dict, train: TrainConfig) -> float:
    """Peak memory estimate (MB) of a training job: the interpreter with torch (~500 MB), the dataset's
    elements (train + val + test, float32, ~1.5x the training set) and the activations of the largest
    padded call (:mod:`repset.training.chunks`; evaluation's: the validation part's size of the largest
    sets, cut as the config cuts them): per element d inputs plus a width of kept floats, for hidden-set
    layers ``WIDTH_PER_HIDDEN_EDGE`` x m x |Y|, for the Set Transformer ``WIDTH_PER_ATTENTION_UNIT`` x its
    hidden width, else ``WIDTH_PER_INPUT`` x d. Checked against measured peaks: REDDIT-BINARY RepSet
    m = 100, |Y| = 50: 16.3 GB estimated / 13.8 GB measured (original path), 2.1 / 1.8 GB (bounded);
    the Set Transformer 5.8 / 2.0 GB and 1.1 / 1.0 GB."""
    sizes = torch.from_numpy(shape.train_sizes)
    calls = [b[c] for b in batches for c in chunks(sizes[b], train.ragged, train.max_elements)]
    largest = max(len(c) * int(sizes[c].max()) for c in calls)
    val = sizes[torch.argsort(sizes)[-max(shape.n_val, 1):]]          # the largest sets, as a validation part
    largest = max([largest] + [len(c) * int(val[c].max()) for c in eval_batches(val, train.ragged, train.max_elements)])
    edges = options.get("n_hidden_sets", 0) * options.get("hidden_set_size", 0)
    if edges:
        width = WIDTH_PER_HIDDEN_EDGE * edges
    elif layer == "set_transformer":
        width = WIDTH_PER_ATTENTION_UNIT * options.get("dim_hidden", 64)
    else:
        width = WIDTH_PER_INPUT * shape.dim
    data = 1.5 * float(shape.train_sizes.sum()) * shape.dim * 4
    return 500 + (data + largest * (shape.dim + width) * 4) / 2**20


def protocol_runs(config: dict, dataset: str, model: str) -> dict[str, float]:
    """Expected runs per grid point of ``model`` on ``dataset``: splits x seeds when the grid is searched
    on every split; else the searched splits (the dataset's first ``grid_splits``, or first ``grid_splits`` folds
    of each repetition: :func:`~.jobs.grid_blocks`) train every point and each later split one point, counted
    here as ``1 / len(grid)`` run of every point (the mean cost of the grid)."""
    points = [point_id(p) for p in grid_points(config["models"][model]["grid"])]
    blocks, seeds = grid_blocks(config, dataset, model), len(config["protocol"]["seeds"])
    searched, later = sum(len(s) for s, _ in blocks), sum(len(c) for _, c in blocks)
    return {p: seeds * (searched + later / len(points)) for p in points}


def expected_epochs(records: pd.DataFrame | None, dataset: str, model: str, bound: int) -> tuple[float, str]:
    """Epochs a run of ``model`` on ``dataset`` is expected to train and where the figure comes from: the
    mean ``epochs_run`` of the finished ``records`` (rows with dataset, model, epochs_run, e.g.
    reproduction/runs.csv) of that dataset and model, else ``bound`` (``train.epochs``)."""
    if records is not None and len(records):
        mine = records[(records["dataset"] == dataset) & (records["model"] == model)]
        if len(mine):
            return float(mine["epochs_run"].mean()), f"records ({len(mine)})"
    return float(bound), "bound"


def seconds_per_run(table: pd.DataFrame) -> dict[tuple[str, str, str], float]:
    """A budget ``table``'s estimated seconds of one run per (dataset, model, point) (rows without a figure
    left out; of tables concatenated, the last row of a point counts); a ``chosen`` run (trained at the
    point its searched splits chose) at the mean of its model's points, as :func:`summarize` costs it."""
    rows = table.dropna(subset=["run_seconds"]).drop_duplicates(["dataset", "model", "point"], keep="last")
    seconds = {(r.dataset, r.model, r.point): float(r.run_seconds) for r in rows.itertuples()}
    for (dataset, model), group in rows.groupby(["dataset", "model"]):
        seconds[(dataset, model, CHOSEN)] = float(group["run_seconds"].mean())
    return seconds


def records_against_estimate(table: pd.DataFrame, records: pd.DataFrame | None) -> pd.DataFrame:
    """How the finished ``records`` (reproduction/runs.csv rows: dataset, model, point, cpu, epoch_seconds:
    a run's median training epoch) compare with the ``table``'s estimate of one training epoch of the same
    dataset, model and point: per dataset, model and CPU kind, the records and the median of record /
    estimate. Empty where there are no records or they lack those columns."""
    columns = ["dataset", "model", "cpu", "records", "median_ratio"]
    if records is None or not len(records) or not {"point", "cpu", "epoch_seconds"} <= set(records.columns):
        return pd.DataFrame(columns=columns)
    estimate = table.rename(columns={"epoch_seconds": "estimate"})[["dataset", "model", "point", "estimate"]]
    mine = records.dropna(subset=["epoch_seconds"])
    mine = mine.assign(cpu=mine["cpu"].fillna("not recorded"))
    both = mine.merge(estimate, on=["dataset", "model", "point"])
    if not len(both):
        return pd.DataFrame(columns=columns)
    both = both.assign(ratio=both["epoch_seconds"] / both["estimate"])
    out = both.groupby(["dataset", "model", "cpu"], sort=False).agg(records=("ratio", "size"),
                                                                    median_ratio=("ratio", "median"))
    return out.reset_index()[columns]


def start_seconds(repeats: int = 3) -> float:
    """Median seconds of a job's start: a fresh interpreter importing the training stage and torch's
    optimizer (which imports ``torch._dynamo``), before any data is read."""
    code = ("import torch, repset.pipeline.train; "
            "torch.optim.Adam([torch.zeros(1, requires_grad=True)], fused=True)")
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def runs_per_job(config: dict, dataset: str) -> int:
    """Runs that share one job's start on ``dataset``: a pack's ``train_packs.runs`` (default 50) where the config
    packs it (:func:`~.packs.packed_datasets`), else 1."""
    return (config.get("train_packs") or {}).get("runs", 50) if dataset in packed_datasets(config) else 1


def costed(timing: dict, epochs: float, source: str, job_start: float, runs: float) -> dict:
    """A budget row's cost columns from one point's ``timing`` (``epoch_seconds``, ``val_seconds``): the expected
    ``epochs`` and their ``source``, the job's start, seconds per run (epochs x (epoch + validation) + start), the
    protocol's ``runs`` of the point and their seconds."""
    per_run = epochs * (timing["epoch_seconds"] + timing["val_seconds"]) + job_start
    return {"epochs": epochs, "epochs_from": source, "start_seconds": job_start, "run_seconds": per_run, "runs": runs,
            "seconds": runs * per_run}


def budget_table(shapes: list[DatasetShape], config: dict, sample: int = 256, seed: int = 0,
                 progress=None, records: pd.DataFrame | None = None, start: float = 0.0) -> pd.DataFrame:
    """One row per dataset x model x grid point: measured seconds and the protocol's estimated total.
    ``records``: finished runs for :func:`expected_epochs`; ``start``: a job's start (s), counted once
    per run, or once per pack of ``train_packs.runs`` runs for a packed dataset."""
    rows = []
    for shape in shapes:
        per_pack = runs_per_job(config, shape.name)
        for model in models_for(config, shape.name):
            spec = config["models"][model]
            train = TrainConfig(**train_settings(config, model))
            runs = protocol_runs(config, shape.name, model)
            epochs, source = expected_epochs(records, shape.name, model, train.epochs)
            for pid, options in layer_options(config, model).items():
                measured = calibrate(shape, spec["layer"], options, train, sample, seed)
                rows.append({"dataset": shape.name, "model": model, "point": pid, "values": shape.values,
                             "train_sets": len(shape.train_sizes),
                             "mean_set_size": float(np.mean(shape.train_sizes)), "dim": shape.dim,
                             **measured, **costed(measured, epochs, source, start / per_pack, runs[pid])})
                if progress is not None:
                    progress(rows[-1])
    return pd.DataFrame(rows)


def relayout(table: pd.DataFrame, config: dict, records: pd.DataFrame | None = None) -> pd.DataFrame:
    """A budget ``table`` (:func:`budget_table`) costed as ``config``'s protocol, its timings kept: for every dataset
    of the config, model and grid point, the runs (:func:`protocol_runs`), the epochs expected from ``records``
    (:func:`expected_epochs`), the seconds per run (:func:`costed`) and in all, in the table's row order. The timings
    do not depend on the protocol (nor, where the table's values say ``synthetic``, on the store). ``attrs``:
    ``dropped``, the table's rows the config has no run for; ``start``, a job's start. ValueError naming the first
    dataset, model and point the table has not timed, or a row whose job start does not follow the config's packs
    (a job's start: the table's largest ``start_seconds``, which an unpacked dataset's rows carry)."""
    required = {"dataset", "model", "point", "epoch_seconds", "val_seconds", "start_seconds"}
    if not required <= set(table.columns):
        raise ValueError(f"not a budget table: lacks {', '.join(sorted(required - set(table.columns)))}")
    timed = table.drop_duplicates(["dataset", "model", "point"], keep="last").set_index(["dataset", "model", "point"])
    order = {key: i for i, key in enumerate(timed.index)}
    start = float(timed["start_seconds"].max())
    rows = []
    for dataset in datasets(config):
        for model in models_for(config, dataset):
            epochs, source = expected_epochs(records, dataset, model, TrainConfig(**train_settings(config, model)).epochs)
            for pid, runs in protocol_runs(config, dataset, model).items():
                if (dataset, model, pid) not in timed.index:
                    raise ValueError(f"{dataset} {model} {pid}: not in the budget table; time it (snakemake "
                                     "results/budget/protocol.md with the config's --configfile)")
                row = timed.loc[(dataset, model, pid)].to_dict()
                job_start = start / runs_per_job(config, dataset)
                if not np.isclose(row["start_seconds"], job_start):
                    raise ValueError(f"{dataset} {model} {pid}: a job start of {row['start_seconds']:.3g} s, not the "
                                     f"{job_start:.3g} s of the config's packs (train_packs); time it again")
                rows.append(row | {"dataset": dataset, "model": model, "point": pid,
                                   **costed(row, epochs, source, job_start, runs)})
    rows.sort(key=lambda r: order[(r["dataset"], r["model"], r["point"])])   # the table's order
    out = pd.DataFrame(rows, columns=list(table.columns))
    out.attrs.update(dropped=len(timed) - len(out), start=start)
    return out


def summarize(table: pd.DataFrame, config: dict, cores: tuple[int | None, ...] = CORES) -> pd.DataFrame:
    """Hours per dataset x model with their share of the total, job count and longest job; ``attrs``:
    the protocol's total CPU hours, job count, longest job and the wall-clock hours on each of ``cores``
    one-thread workers (:func:`~repset.protocol.schedule.wall_seconds`; None = the critical path)."""
    jobs = job_costs(table, config)
    per = jobs.groupby(["dataset", "model"], sort=False).agg(seconds=("seconds", "sum"), jobs=("seconds", "size"),
                                                             longest=("seconds_max", "max")).reset_index()
    total = float(per["seconds"].sum())
    per["hours"], per["longest_hours"] = per["seconds"] / 3600, per["longest"] / 3600
    per["share"] = per["seconds"] / total if total else 0.0
    top = jobs.loc[jobs["seconds_max"].idxmax()] if len(jobs) else None
    per.attrs.update(
        total_hours=total / 3600, n_jobs=len(jobs),
        longest_job=None if top is None else {"dataset": top.dataset, "model": top.model, "point": top.point,
                                              "hours": float(top.seconds_max) / 3600},
        wall_hours={c: wall_seconds(jobs, c) / 3600 for c in cores})
    return per.sort_values("seconds", ascending=False, ignore_index=True)
