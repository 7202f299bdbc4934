"""Many training runs in one process, outside Snakemake (a GPU machine's driver, an interactive session):
each record written exactly as the ``train`` rule writes it (:func:`~repset.pipeline.train.train_pack`).

    python -m repset.pipeline.pack config.yaml results/runs/MUTAG/repset/k10-m20/split0_seed0.json ...
    python -m repset.pipeline.pack config.yaml --dataset MUTAG --workers 15 --deadline 300
    python -m repset.pipeline.pack config.yaml --dataset PROTEINS --splits 60-99 --model repset --list

Records that exist are skipped (``--force``: retrained); a ``chosen`` run reads its grid-choice file,
which must exist. Paths are the protocol's (:attr:`repset.protocol.jobs.Run.path`), relative to the
repository root. ``--dataset`` names every missing record of a dataset's protocol. ``--workers N`` trains
in N processes at ``--threads`` each (1, as the ``train`` rule), handing out a few runs at a time; after
``--deadline`` seconds no new run starts (the runs in progress finish), so a lease's time is not cut
mid-run. ``--end`` (seconds: when the caller stops the driver; ``--end-at``: the same as a clock time)
also holds back a run that would not finish by then, judged by the longest run of its record folder
(dataset, model, point) finished so far in this call; shorter runs further down the list start instead. With
``--budget`` a folder not finished yet is judged by the budget table's seconds per run, scaled by the largest
ratio of measured to budget seconds among the folders finished so far. A run that fails is reported by path; the
others go on, and the exit status is then 1. ``--model`` and ``--splits`` keep only those models' runs and
folds (a GPU machine's share of a campaign that trains the first folds elsewhere); ``--by-split`` orders the runs
fold by fold, so that a stop leaves whole folds. A ``chosen`` run (a reduced protocol's fold trained at the point
its searched splits chose) waits until every record of those splits is there; its grid-choice file is then
written first, as the ``grid_choice`` rule writes it (:func:`ready_paths`; ``--list --ready`` lists only the
runs that can train now). With a dataset's ``grid_scope: repetition`` each CV repetition's chosen runs wait for
and read that repetition's grid choice (``grid_seed<s>_rep<r>.json`` from its own first folds;
:func:`~repset.protocol.jobs.grid_choice_of`).
"""
from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from typing import TYPE_CHECKING

from repset.protocol.budget import seconds_per_run
from repset.protocol.jobs import (CHOSEN, Run, check_run, choice_repetitions, grid_choice_inputs, grid_choice_of,
                                  grid_choice_path, run_settings)
from repset.protocol.jobs import runs as protocol_runs
from repset.protocol.plan import store_path
from repset.threads import set_threads

from .train import grid_choice, train_pack

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["run_of_path", "train_paths", "merge_config", "load_config", "missing_paths", "select_paths", "ready_paths",
           "fitting_paths", "longest_first", "next_task", "train_parallel", "main"]

PATH = re.compile(r"results/runs/(?P<dataset>[^/]+)/(?P<model>[^/]+)/(?P<point>[^/]+)/split(?P<split>\d+)_seed(?P<seed>\d+)\.json$")


def run_of_path(config: dict, path: str) -> Run:
    """The protocol run whose record is ``path`` (ValueError when it names none of the config's runs)."""
    return check_run(config, **_record_path(path).groupdict())


def _record_path(path: str) -> re.Match:
    match = PATH.search(str(path))
    if match is None:
        raise ValueError(f"{path}: not a run record path (results/runs/<dataset>/<model>/<point>/split<k>_seed<s>.json)")
    return match


def train_paths(config: dict, paths: Sequence[str], force: bool = False) -> list[dict]:
    """Train the runs of the record ``paths`` (missing ones, or all with ``force``) in this process, grouped
    by store and grid-choice file (a chosen run's: its CV repetition's with ``grid_scope: repetition``) in the
    given order; a record another process writes meanwhile is not trained again (without ``force``); returns the
    records written."""
    runs = [run_of_path(config, p) for p in paths if force or not os.path.exists(p)]
    groups: dict[tuple[str, str | None], list[dict]] = {}
    for run in runs:
        choice = grid_choice_of(config, run) if run.point == CHOSEN else None
        groups.setdefault((store_path(run.dataset, config), choice), []).append(
            {"run": run, "settings": run_settings(config, run.model, run.point), "out": run.path})
    return [record for (store, choice), jobs in groups.items()
            for record in train_pack(store, jobs, choice=choice, skip_existing=not force)]


def merge_config(config: dict, overlay: dict) -> dict:
    """``config`` updated in place by ``overlay`` as Snakemake's ``--configfile`` does: mappings merge key by
    key, anything else replaces."""
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            merge_config(config[key], value)
        else:
            config[key] = value
    return config


def load_config(path: str | os.PathLike, overlays: Sequence[str | os.PathLike] = ()) -> dict:
    """The config at ``path`` with each of ``overlays`` merged in turn (:func:`merge_config`); a file that cannot
    be read, is not valid YAML or is not a mapping raises ValueError naming it."""
    import yaml

    config: dict = {}
    for name in [path, *overlays]:
        try:
            with open(name, encoding="utf-8") as f:
                loaded = yaml.safe_load(f)
        except OSError as err:
            raise ValueError(f"{name}: cannot read the config ({err.strerror})") from None
        except UnicodeDecodeError as err:
            raise ValueError(f"{name}: not UTF-8 text ({err.reason} at byte {err.start})") from None
        except yaml.YAMLError as err:
            raise ValueError(f"{name}: not valid YAML ({err})") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise ValueError(f"{name}: a config must be a mapping of keys, not a {type(loaded).__name__}")
        merge_config(config, loaded or {})
    return config


def missing_paths(config: dict, datasets: Sequence[str]) -> list[str]:
    """The record paths of the ``datasets``' protocol runs that are not there yet, in protocol order."""
    return [r.path for r in protocol_runs(config, list(datasets)) if not os.path.exists(r.path)]


def parse_splits(text: str) -> range:
    """``"60-99"`` (inclusive) or ``"7"`` as a range of split indices; ValueError naming the text otherwise."""
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", text.strip())
    if match is None or (match[2] is not None and int(match[2]) < int(match[1])):
        raise ValueError(f"--splits {text!r}: not a split index or an increasing range such as 60-99")
    return range(int(match[1]), int(match[2] or match[1]) + 1)


def select_paths(paths: Sequence[str], models: Sequence[str] | None = None, splits: Sequence[range] | None = None,
                 by_split: bool = False) -> list[str]:
    """The record ``paths`` of ``models`` (all if None) whose split lies in one of ``splits`` (all if None), in their
    order, or ordered by split with ``by_split`` (stable: the given order within a fold). ValueError for a path
    that is not a record path."""
    chosen = []
    for path in paths:
        match = _record_path(path)
        if (models is None or match["model"] in models) and (splits is None or any(int(match["split"]) in r for r in splits)):
            chosen.append((int(match["split"]), path))
    return [path for _, path in (sorted(chosen, key=lambda c: c[0]) if by_split else chosen)]


def ready_paths(config: dict, paths: Sequence[str]) -> list[str]:
    """The record ``paths`` whose runs can train now, in their order: a ``chosen`` run's grid-choice file
    (:func:`~repset.protocol.jobs.grid_choice_of`: its CV repetition's with ``grid_scope: repetition``) is written
    first (:func:`~repset.pipeline.train.grid_choice`, as the ``grid_choice`` rule writes it) where it is missing
    and every record it reads exists; a chosen run whose searched splits are not all on record waits (left out)."""
    ready, choices = [], {}
    for path in paths:
        run = run_of_path(config, path)
        if run.point == CHOSEN:
            repetition = choice_repetitions(config, run.dataset, run.model)[run.split]
            choice = grid_choice_path(run.dataset, run.model, run.seed, repetition)     # as grid_choice_of
            if choice not in choices:
                inputs = grid_choice_inputs(config, run.dataset, run.model, run.seed, repetition)
                if not os.path.exists(choice) and all(os.path.exists(p) for p in inputs):
                    grid_choice(inputs, choice)
                choices[choice] = os.path.exists(choice)
            if not choices[choice]:
                continue
        ready.append(path)
    return ready


def longest_first(paths: Sequence[str], budget: pd.DataFrame) -> list[str]:
    """``paths`` ordered by the ``budget`` table's seconds per run of their dataset, model and point
    (:func:`~repset.protocol.budget.seconds_per_run`), longest first; paths the table lacks keep their order,
    last. A driver stopped at ``--end`` then fills its last minutes with short runs."""
    seconds = seconds_per_run(budget)

    def key(path: str) -> float:
        found = run_seconds(seconds, path)
        return -found if found is not None else float("inf")

    return sorted(paths, key=key)


def run_seconds(seconds: dict[tuple[str, str, str], float], path: str) -> float | None:
    """The budget's ``seconds`` per run (:func:`~repset.protocol.budget.seconds_per_run`) of a record path's
    dataset, model and point; None where the path is not a record path or the budget lacks its point."""
    match = PATH.search(path)
    return seconds.get((match["dataset"], match["model"], match["point"])) if match else None


def fitting_paths(paths: Sequence[str], seconds: dict[tuple[str, str, str], float], left: float,
                  scale: float = 1.0) -> list[str]:
    """The ``paths`` whose run is expected to finish within ``left`` seconds: the budget's ``seconds`` per run
    (:func:`run_seconds`) times ``scale``; a path the budget lacks is kept (expected to fit, as :func:`next_task`
    takes it). For a caller that starts a driver near its end, whose first runs no finished run judges yet."""
    return [p for p in paths if (found := run_seconds(seconds, p)) is None or found * scale <= left]


def _train_chunk(config: dict, paths: Sequence[str], force: bool) -> list[tuple[str, str | None, float]]:
    """Worker: train each path on its own; (path, None, seconds) when written, (path, error, seconds) when
    it failed."""
    done = []
    for path in paths:
        start = time.monotonic()
        try:
            train_paths(config, [path], force)
            done.append((path, None, time.monotonic() - start))
        except Exception as err:  # reported by path to the parent, which exits 1
            logging.exception("%s failed", path)
            done.append((path, f"{type(err).__name__}: {err}", time.monotonic() - start))
    return done


def _kind(path: str) -> str:
    """The dataset, model and point of a record path (its folder): runs of one kind take similar times."""
    return os.path.dirname(path)


def expected_seconds(longest: dict[str, float], budget: dict[str, float]) -> dict[str, float]:
    """Seconds expected of a run of each kind (record folder): the ``longest`` of the kind finished so far, else
    its ``budget`` seconds per run (by kind: :func:`run_seconds`) times the largest ratio of ``longest`` to
    ``budget`` among the finished kinds; no entry where neither is known (such a run is expected to fit)."""
    ratios = [seconds / budget[kind] for kind, seconds in longest.items() if budget.get(kind)]
    if not ratios:
        return dict(longest)
    scale = max(ratios)
    return {kind: seconds * scale for kind, seconds in budget.items() if seconds} | longest


def next_task(queue: list[list[str]], elapsed: float, end: float | None,
              expected: dict[str, float]) -> list[str] | None:
    """Remove and return the first task of ``queue`` expected to finish by ``end`` seconds (None: any), at
    ``elapsed`` seconds, each of its runs taking the ``expected`` seconds of its kind (:func:`expected_seconds`;
    a kind without an estimate is expected to fit); None when none fits."""
    for i, task in enumerate(queue):
        if end is None or elapsed + sum(expected.get(_kind(p), 0.0) for p in task) <= end:
            return queue.pop(i)
    return None


def train_parallel(config: dict, paths: Sequence[str], workers: int, threads: int = 1, force: bool = False,
                   chunk: int = 2, deadline: float | None = None, end: float | None = None,
                   budget: dict[tuple[str, str, str], float] | None = None) -> dict[str, list]:
    """Train ``paths`` in ``workers`` processes (``threads`` torch/Numba threads each), ``chunk`` runs per
    task; no task starts after ``deadline`` seconds, nor one not expected to finish by ``end`` seconds
    (:func:`next_task`; kinds not finished yet by the ``budget``'s seconds per run, :func:`expected_seconds`).
    Returns ``{"written": [...], "failed": [(path, error)], "not_started": [...]}``."""
    paths = [p for p in paths if force or not os.path.exists(p)]
    queue = [list(paths[i:i + chunk]) for i in range(0, len(paths), chunk)]
    start, result = time.monotonic(), {"written": [], "failed": [], "not_started": []}
    longest: dict[str, float] = {}
    by_kind = {_kind(p): seconds for p in paths if (seconds := run_seconds(budget or {}, p))}   # the budget per kind
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=set_threads,
                             initargs=(threads,)) as pool:
        pending: dict = {}
        late = False   # the first tasks start whatever the deadline
        while True:
            while len(pending) < workers and not late:
                task = next_task(queue, time.monotonic() - start, end, expected_seconds(longest, by_kind))
                if task is None:
                    break
                pending[pool.submit(_train_chunk, config, task, force)] = task
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                pending.pop(future)
                for path, error, seconds in future.result():
                    longest[_kind(path)] = max(seconds, longest.get(_kind(path), 0.0))
                    result["failed" if error else "written"].append((path, error) if error else path)
            late = deadline is not None and time.monotonic() - start > deadline
            logging.info("%d written, %d failed, %d running, %d queued", len(result["written"]),
                         len(result["failed"]), sum(map(len, pending.values())), sum(map(len, queue)))
        result["not_started"] = [p for t in queue for p in t]
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config")
    parser.add_argument("records", nargs="*")
    parser.add_argument("--configfile", action="append", default=[], metavar="YAML",
                        help="a config overlay, merged as Snakemake's --configfile merges it (repeatable)")
    parser.add_argument("--dataset", action="append", default=[], help="add the dataset's missing records")
    parser.add_argument("--paths-from", metavar="FILE", help="add the record paths listed in FILE (one per line)")
    parser.add_argument("--list", action="store_true", help="print the missing record paths and exit")
    parser.add_argument("--longest-first", metavar="BUDGET_CSV",
                        help="order the runs by this budget table's seconds per run, longest first "
                             "(reproduction/budget/graphs_stores.csv; python reproduction/graph_budget.py --stores remeasures it)")
    parser.add_argument("--model", action="append", help="only this model's runs (repeatable)")
    parser.add_argument("--splits", action="append", metavar="A-B",
                        help="only the runs of these splits (folds), inclusive, e.g. 60-99 or 7 (repeatable)")
    parser.add_argument("--by-split", action="store_true", help="order the runs fold by fold (a stop leaves whole folds)")
    parser.add_argument("--ready", action="store_true",
                        help="with --list: only the runs that can train now (chosen runs wait for their searched "
                             "splits' records, their CV repetition's with grid_scope: repetition; their grid choice "
                             "is written when those are all there)")
    parser.add_argument("--force", action="store_true", help="retrain records that exist")
    parser.add_argument("--workers", type=int, default=1, help="training processes (default 1: this one)")
    parser.add_argument("--threads", type=int, default=1, help="torch/Numba threads per process (default 1)")
    parser.add_argument("--deadline", type=float, default=None, help="seconds after which no run starts")
    parser.add_argument("--end", type=float, default=None,
                        help="seconds (from the driver's start) at which it will be stopped: no run starts that "
                             "is not expected to finish by then (one run per task)")
    parser.add_argument("--end-at", type=float, default=None, metavar="UNIX_SECONDS",
                        help="--end as a clock time (date +%%s), for a caller that times the whole process")
    parser.add_argument("--budget", metavar="BUDGET_CSV",
                        help="with --end: judge a kind not finished yet by this budget table's seconds per run, scaled "
                             "by the finished kinds' measured / budget seconds (reproduction/budget/graphs_stores.csv)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        config = load_config(args.config, args.configfile)
    except ValueError as err:
        parser.error(str(err))
    paths = list(args.records) + (missing_paths(config, args.dataset) if args.dataset else [])
    if args.paths_from:
        with open(args.paths_from) as f:
            paths += [line.strip() for line in f if line.strip()]
    if args.longest_first:
        import pandas as pd

        paths = longest_first(paths, pd.read_csv(args.longest_first))
    if args.model or args.splits or args.by_split:
        try:
            paths = select_paths(paths, args.model, [parse_splits(t) for t in args.splits or []] or None, args.by_split)
        except ValueError as err:
            parser.error(str(err))
    if args.list:
        listed = [p for p in paths if args.force or not os.path.exists(p)]
        print("\n".join(ready_paths(config, listed) if args.ready else listed))
        return
    if not paths:
        parser.error("no records to train: name record paths or --dataset with missing records")
    ready = ready_paths(config, paths)
    if len(ready) < len(paths):
        logging.info("%d chosen runs wait for their searched splits' records (their grid choice)", len(paths) - len(ready))
        if not ready:
            return
    paths = ready
    end = args.end_at - time.time() if args.end_at is not None else args.end
    if args.workers <= 1 and args.deadline is None and end is None:
        set_threads(args.threads)
        train_paths(config, paths, args.force)
        return
    budget = None
    if args.budget:
        import pandas as pd

        budget = seconds_per_run(pd.read_csv(args.budget))
    result = train_parallel(config, paths, args.workers, args.threads, args.force, chunk=2 if end is None else 1,
                            deadline=args.deadline, end=end, budget=budget)
    print(f"{len(result['written'])} written, {len(result['failed'])} failed, "
          f"{len(result['not_started'])} not started (deadline or end)")
    for path, error in result["failed"]:
        print(f"failed: {path}: {error}", file=sys.stderr)
    if result["failed"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
