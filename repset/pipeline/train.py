"""Library side of the training stages: one split job, the grid choice later splits inherit, aggregation."""
from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path

from typing import TYPE_CHECKING

from repset.datasets.store import load_store, read_sidecar
from repset.io import atomic_path, write_json
from repset.pipeline.config import check_device
from repset.pipeline.preflight import check_writable
from repset.pipeline.worktree import tree_diff
from repset.protocol.jobs import CHOSEN, Run
from repset.protocol.selection import (TrainingPath, aggregate, count_training_paths, records_frame, select,
                                       selected_point, training_path)
from repset.provenance import provenance
from repset.training.run import train_run
from repset.training.trainer import TrainConfig

if TYPE_CHECKING:   # pandas is imported by the functions that build frames: a training job needs none
    import pandas as pd

log = logging.getLogger(__name__)

#: what load_store adds to the store's sidecar: the data itself, not its description (kept out of run records)
STORE_ARRAYS = ("vocab", "element_ids", "counts")


def read_record(path: str | os.PathLike) -> dict:
    """A JSON run record; ValueError naming the file when it is not valid JSON (e.g. truncated)."""
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not a valid JSON record ({err}); delete it and rerun its job") from None


def train_split(store: str, run: Run, settings: dict, out: str | os.PathLike, choice: str | None = None) -> dict:
    """Train one run (:class:`~repset.protocol.jobs.Run`) with ``settings`` (:func:`~repset.protocol.jobs.run_settings`)
    on split ``run.split`` of ``store``; write its record to ``out``. A :data:`~repset.protocol.jobs.CHOSEN`
    run reads its grid point from the grid-choice file ``choice``. The folder of ``out`` is checked writable
    before training (:func:`~repset.pipeline.preflight.check_writable`)."""
    check_writable([out], "nothing was trained")
    point, options, grid_choice = run.point, settings["options"], None
    if run.point == CHOSEN:
        if choice is None:
            raise ValueError(f"run {run}: a {CHOSEN!r} run needs the grid-choice file")
        grid_choice = read_record(choice)
        point = grid_choice["point"]
        if point not in options:
            raise ValueError(f"{choice}: chose point {point!r}, not in the model's grid {sorted(options)}")
        options = options[point]
    check_store_of_records(store, out, run.dataset)
    result = run_record(store, run, point, options, settings, {"grid_choice": grid_choice})
    write_json(out, result)
    return result


def check_store_of_records(store: str | os.PathLike, out: str | os.PathLike, dataset: str) -> None:
    """Refuse to add a record to a dataset's folder whose records were trained on another store: where ``out`` is
    laid out as a protocol record (``<runs>/<dataset>/<model>/<point>/split<k>_seed<s>.json``), ValueError naming
    both stores' sha256 and a record when the first other record found there names a different
    ``store_meta.sha256`` than ``store``'s sidecar. A store rebuilt on another machine can differ (the struc2vec
    embedding follows OpenBLAS's kernels, which the CPU or OPENBLAS_CORETYPE picks: docs/record.md), and one dataset must be one
    protocol. No check for another layout (a rerun's scratch file) or where the folder holds no other record."""
    out = Path(out).absolute()
    if len(out.parents) < 3 or out.parents[2].name != dataset or not re.fullmatch(r"split\d+_seed\d+\.json", out.name):
        return
    other = next((p for p in out.parents[2].glob("*/*/split*_seed*.json") if p != out), None)
    if other is not None:
        check_store_sha(store, {(read_record(other).get("store_meta") or {}).get("sha256"): str(other)})


def check_store_sha(store: str | os.PathLike, theirs: dict[str | None, str]) -> str:
    """``store``'s sidecar sha256, checked against ``theirs`` (each sha256 a dataset's records name -> one such
    record, or where they are listed): ValueError naming both stores and the record where one differs (None:
    a record that names no store, not checked)."""
    ours = read_sidecar(store).get("sha256")
    for sha, where in theirs.items():
        if sha is not None and sha != ours:
            raise ValueError(f"{store}: sha256 {ours}, but {where} was trained on a store with sha256 {sha}: this "
                             f"dataset's records would mix two stores. Rebuild the store as its records' was made (a "
                             f"graph store: OPENBLAS_CORETYPE, docs/record.md) or train into a folder of its own")
    return ours


def train_pack(store: str, jobs: Sequence[dict], choice: str | None = None, skip_existing: bool = False) -> list[dict]:
    """Several runs in one process (a :class:`~repset.protocol.packs.Pack`, or any driver's list), each
    trained and written exactly as :func:`train_split` (the ``train`` rule) does: ``jobs`` are dicts with
    ``run`` (a :class:`Run` or its fields), ``settings`` (:func:`~repset.protocol.jobs.run_settings`) and
    ``out`` (the record's path); ``choice``: the grid-choice file of chosen runs. Every record's folder is
    checked writable before the first run trains. ``skip_existing``: a job whose record exists when its turn
    comes (written meanwhile by another process) is skipped, not trained again. Returns the records trained."""
    check_writable([job["out"] for job in jobs], "nothing of the pack was trained")
    results = []
    for job in jobs:
        if skip_existing and os.path.exists(job["out"]):
            log.info("%s: its record exists (written since the pack was planned); not trained again", job["out"])
            continue
        run = job["run"] if isinstance(job["run"], Run) else Run(**job["run"])
        results.append(train_split(store, run, job["settings"], job["out"], choice=choice))
    return results


def run_record(store: str, run: Run, point: str, options: dict, settings: dict, extra: dict | None = None,
               snapshots: dict | None = None) -> dict:
    """Train ``run`` at grid point ``point`` (layer options ``options``) with the job's ``settings`` (``layer``,
    ``train``; recorded whole as provenance) on its split of ``store``; return its record, with ``extra``
    fields after the seed. ``snapshots``:
    see :func:`~repset.training.run.train_run`; it also receives the trained ``"model"`` and the split's
    ``"train"`` part. From a tree with uncommitted changes, the provenance holds their diff and its sha256
    (:func:`~repset.pipeline.worktree.tree_diff`)."""
    check_device(settings["train"], run.model)
    data, splits, meta = load_store(store)
    if run.split >= len(splits):
        raise ValueError(f"{store}: {len(splits)} splits, no split {run.split}")
    train = TrainConfig.from_record(settings["train"], seed=run.seed)
    record, model = train_run(data, splits[run.split], settings["layer"], options, train, progress=_log_epoch,
                              snapshots=snapshots)
    if snapshots is not None:
        snapshots.update(model=model, train=data.subset(splits[run.split]["train"]))
    store_meta = {k: v for k, v in meta.items() if k not in STORE_ARRAYS}   # the sidecar: sha256, sizes, provenance
    result = {"dataset": run.dataset, "model": run.model, "split": run.split, "point": point, **record,
              "seed": run.seed, **(extra or {}), "store": str(store), "store_meta": store_meta,
              "provenance": provenance(settings, seed=run.seed, device=train.device, solver=options.get("solver"),
                                       **tree_diff())}
    log.info("%s %s split %d %s seed %d: val %.4f test %.4f (%d epochs, %.1f s)", run.dataset, run.model, run.split,
             point, run.seed, record["val"]["error"], record["test"]["error"], record["epochs_run"],
             record["train_seconds"])
    return result


def _log_epoch(e: dict) -> None:
    val = e["val"] or {}
    log.info("epoch %d/%d: train loss %.4f, val loss %.4f error %.4f, %.2f s; best epoch %s; ETA <= %.0f s",
             e["epoch"], e["epochs"], e["train_loss"], val.get("loss", float("nan")), val.get("error", float("nan")),
             e["seconds"], None if e["best_epoch"] is None else e["best_epoch"] + 1, e["eta_seconds"])


def grid_choice(record_files: Sequence[str | os.PathLike], out: str | os.PathLike) -> dict:
    """The grid point validation selected on most searched splits (:func:`~repset.protocol.selection.selected_point`),
    written to ``out`` with the per-split choices it was voted from."""
    records = [read_record(p) for p in record_files]
    frame = records_frame(records)
    chosen = select(frame)
    result = {"dataset": records[0]["dataset"], "model": records[0]["model"], "seed": records[0]["seed"],
              "point": selected_point(frame),
              "per_split": {int(r.split): r.point for r in chosen.itertuples()},
              "records": [str(p) for p in record_files]}
    log.info("grid choice %s", result)
    write_json(out, result)
    return result


def aggregate_runs(run_files: Sequence[str | os.PathLike], runs_csv, selected_csv, summary_csv,
                   training_csv: str | os.PathLike | None = None) -> pd.DataFrame:
    """All run records -> every run, the validation-selected run per split, mean/std per dataset and model, and
    (``training_csv``) how they were trained (:func:`~repset.protocol.selection.training_paths`). No records (a
    config naming no dataset or model): ValueError, not empty tables."""
    run_files = list(run_files)
    if not run_files:
        raise ValueError("no run records to aggregate: the config names no dataset to train on (datasets.text, "
                         "datasets.graph) or no model (models); list at least one of each")
    paths: list[TrainingPath] = []        # each record's training path, not the whole record

    def read_all():
        for path in run_files:
            record = read_record(path)
            paths.append(training_path(record))
            yield record

    frame = records_frame(read_all())
    chosen = select(frame)
    summary = aggregate(chosen)
    tables = [(frame, runs_csv), (chosen, selected_csv), (summary, summary_csv)]
    if training_csv is not None:
        tables.append((count_training_paths(paths), training_csv))
    for table, path in tables:
        with atomic_path(path) as tmp:
            table.to_csv(tmp, index=False)
    return summary
