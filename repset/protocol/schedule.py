"""The protocol as a set of jobs with costs: how many, the longest, and the wall time on c cores.

:func:`job_costs` turns the budget's measured seconds per run (dataset x model x grid point) into one
row per training job of :func:`repset.protocol.jobs.runs`. A ``chosen`` job (a split that trains the
point the grid search chose) costs the mean over the grid's points (``seconds``, the expectation) and
at most their max (``seconds_max``, what a resource request must allow); it waits for every searched
job of its grid choice (dataset, model, seed and ``choice``: the CV repetition with ``grid_scope: repetition``).
:func:`wall_seconds` replays the jobs on ``cores`` single-threaded workers, longest remaining path first (a list
schedule, as Snakemake's greedy scheduler roughly does); ``cores=None`` gives the critical path (an unbounded
cluster).
"""
from __future__ import annotations

import heapq
import math

import pandas as pd

from .jobs import CHOSEN, choice_repetitions, model_runs
from .plan import model_points, models_for

__all__ = ["job_costs", "wall_seconds", "runtime_minutes"]


def job_costs(table: pd.DataFrame, config: dict) -> pd.DataFrame:
    """One row per training job: dataset, model, point, split, seed, ``choice`` (the index of its grid choice,
    :func:`~.jobs.choice_repetitions`), ``seconds`` (expected) and ``seconds_max`` (upper bound), from ``table``
    rows with dataset, model, point and ``run_seconds``."""
    per_run = {(r.dataset, r.model, r.point): float(r.run_seconds) for r in table.itertuples()}
    rows = []
    for dataset in dict.fromkeys(table["dataset"]):
        for model in models_for(config, dataset):
            grid = [per_run[(dataset, model, p)] for p in model_points(config, model)]
            choice = choice_repetitions(config, dataset, model)
            for seed in config["protocol"]["seeds"]:
                for run in model_runs(config, dataset, model, seed):
                    if run.point == CHOSEN:
                        seconds, upper = sum(grid) / len(grid), max(grid)
                    else:
                        seconds = upper = per_run[(dataset, model, run.point)]
                    rows.append({"dataset": dataset, "model": model, "point": run.point, "split": run.split,
                                 "seed": seed, "choice": choice[run.split], "seconds": seconds, "seconds_max": upper})
    return pd.DataFrame(rows, columns=["dataset", "model", "point", "split", "seed", "choice", "seconds",
                                       "seconds_max"])


def wall_seconds(jobs: pd.DataFrame, cores: int | None, column: str = "seconds") -> float:
    """Wall-clock seconds to run ``jobs`` (:func:`job_costs`) on ``cores`` one-thread workers (None: as
    many as there are jobs, i.e. the critical path). ``chosen`` jobs start after every other job of their
    (dataset, model, seed, ``choice``) group has finished (no ``choice`` column: one choice per dataset, model
    and seed)."""
    if jobs.empty:
        return 0.0
    choice = jobs["choice"] if "choice" in jobs.columns else [0] * len(jobs)
    keys = list(zip(jobs["dataset"], jobs["model"], jobs["seed"], choice))
    seconds = jobs[column].to_numpy(float)
    waits = (jobs["point"] == CHOSEN).to_numpy()
    # longest path from each job to the end: a searched job is followed by its group's longest chosen job
    tail = {}
    for key, sec, wait in zip(keys, seconds, waits):
        if wait:
            tail[key] = max(tail.get(key, 0.0), sec)
    priority = [sec + (0.0 if wait else tail.get(key, 0.0)) for key, sec, wait in zip(keys, seconds, waits)]
    pending = {}                       # group -> searched jobs not finished
    for key, wait in zip(keys, waits):
        if not wait:
            pending[key] = pending.get(key, 0) + 1
    blocked = {}                       # group -> chosen jobs waiting
    ready: list[tuple[float, int]] = []
    for i, (key, wait) in enumerate(zip(keys, waits)):
        if wait and pending.get(key, 0) > 0:
            blocked.setdefault(key, []).append(i)
        else:
            heapq.heappush(ready, (-priority[i], i))
    workers = len(jobs) if cores is None else max(1, int(cores))
    running: list[tuple[float, int]] = []
    now = 0.0
    while ready or running:
        while ready and len(running) < workers:
            _, i = heapq.heappop(ready)
            heapq.heappush(running, (now + seconds[i], i))
        now, i = heapq.heappop(running)
        if not waits[i]:
            pending[keys[i]] -= 1
            if pending[keys[i]] == 0:
                for j in blocked.pop(keys[i], []):
                    heapq.heappush(ready, (-priority[j], j))
    return now


def runtime_minutes(seconds: float, margin: float = 1.5, floor: int = 10) -> int:
    """A SLURM wall-time request (minutes) for a job measured at ``seconds``: ``margin`` x the estimate
    plus a few minutes of start-up (imports, loading the store), at least ``floor``."""
    return max(floor, math.ceil(margin * seconds / 60) + 5)
