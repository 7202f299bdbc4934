"""Pipeline glue of the protocol budget: dataset shapes from the stores / raw graphs, CSV + Markdown out.

A budget timed before, laid out as another protocol (a dataset's record moved to another protocol; no epoch timed
again)::

    python -m repset.pipeline.budget relayout reproduction/budget/protocol.csv OUT.csv OUT.md \
        --configfile reproduction/completed.yaml ... --records reproduction/runs.csv
"""
from __future__ import annotations

import argparse
import io
import logging
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from repset.protocol.budget import (DatasetShape, budget_table, records_against_estimate, relayout, start_seconds,
                                   summarize)
from repset.protocol.jobs import CHOSEN
from repset.protocol.plan import describe_override, protocol_overrides
from repset.protocol.schedule import runtime_minutes
from repset.datasets import build_graph_collection, get_spec, graph_cv_splits
from repset.datasets.store import load_collection, load_store
from repset.io import atomic_path
from repset.pipeline.archive import sha256_of

log = logging.getLogger(__name__)


def text_shape(dataset: str, store: str) -> DatasetShape:
    """Training-set sizes of split 0 of a built text store (element dim of its word vectors) and, for a
    factored store, the word ids of those sets (which words the batches share)."""
    coll, _ = load_collection(store)
    split = coll.splits[0]
    sizes = np.diff(coll.offsets)   # set sizes straight from the offsets: no element values materialised
    ids = None
    if coll.element_ids is not None:
        ids = [coll.element_ids[coll.offsets[i]:coll.offsets[i + 1]] for i in split["train"]]
    return DatasetShape(get_spec(dataset).name, sizes[split["train"]], coll.dim, len(coll.class_names),
                        len(split["val"]), ids)


def graph_shape(dataset: str, raw_dir: str, dim: int, val_fraction: float, seed: int) -> DatasetShape:
    """Training-set node counts of fold 0 of the 10 x 10 CV (no embedding needed: dim from the config)."""
    coll = build_graph_collection(dataset, raw_dir)
    split = graph_cv_splits(coll, val_fraction=val_fraction, seed=seed)[0]
    return DatasetShape(get_spec(dataset).name, coll.n_nodes[split["train"]], dim, coll.n_classes,
                        len(split["val"]))


def store_shape(dataset: str, store: str) -> DatasetShape:
    """Split 0 of a built store (text or graph) with its own sets: :func:`~repset.protocol.budget.calibrate`
    times the dataset's real values (and word ids) instead of synthetic sets of its sizes."""
    data, splits, _ = load_store(store)
    split = splits[0]
    train, val = data.subset(split["train"]), data.subset(split["val"])
    return DatasetShape(get_spec(dataset).name, train.lengths().numpy(), data.dim, data.n_classes, len(val),
                        sets=train, val_sets=val)


def finished_records(path: str | os.PathLike | None) -> pd.DataFrame | None:
    """Finished runs (dataset, model, epochs_run, ...: reproduction/runs.csv) where the file exists."""
    return pd.read_csv(path) if path is not None and os.path.isfile(path) else None


def write_budget(shapes: list[DatasetShape], config: dict, csv_out: str, md_out: str, sample: int = 256,
                 records: str | os.PathLike | None = None, start: float | None = None) -> pd.DataFrame:
    """Measure every dataset x model x point; write the rows (CSV) and the job summary (Markdown).
    ``records``: finished runs whose mean epochs replace the epoch bound (:func:`~repset.protocol.budget.expected_epochs`);
    ``start``: a job's start in seconds (None: measured, :func:`~repset.protocol.budget.start_seconds`)."""
    start = start_seconds() if start is None else start
    finished = finished_records(records)
    table = budget_table(shapes, config, sample=sample, seed=config["seed"], records=finished, start=start,
                         progress=lambda r: log.info("%s %s %s: %.3f s/epoch", r["dataset"], r["model"], r["point"],
                                                     r["epoch_seconds"]))
    write_tables(table, config, csv_out, md_out, sample, finished, start)
    return table


def write_tables(table: pd.DataFrame, config: dict, csv_out: str | os.PathLike, md_out: str | os.PathLike,
                 sample: int, finished: pd.DataFrame | None, start: float, timed: str | None = None) -> None:
    """The budget ``table``'s rows (CSV) and job summary (Markdown), each written atomically; ``timed``: a sentence
    after the first paragraph saying where timings measured before come from (:func:`relayout_budget`)."""
    per = summarize(table, config)
    with atomic_path(csv_out) as tmp:
        table.to_csv(tmp, index=False)
    searched, a = config["protocol"].get("grid_splits"), per.attrs
    walls = " · ".join(f"{'unbounded (critical path)' if c is None else f'{c} cores'}: **{h:.1f} h**"
                       for c, h in a["wall_hours"].items())
    top = a["longest_job"] or {"dataset": "-", "model": "-", "point": "-", "hours": 0.0}
    lines = [
        "# Protocol budget (estimated from measured epochs)", "",
        f"Every dataset x model x grid point trained for one timed epoch on {sample} sets (scaled to the full "
        "training set), one thread: synthetic sets with the dataset's training-set sizes, dimension and classes, "
        "or the dataset's own sets (its store's split 0) where the table's values say `store`; "
        "times the epochs a run is expected to train: the mean `epochs_run` of the finished records of that "
        "dataset and model where there are any, else `train.epochs` (an upper bound: early stopping stops "
        f"sooner); plus a job's start ({start:.1f} s measured: interpreter, torch, optimizer; once per pack "
        "for the datasets of `train_packs`); laid out as the workflow's jobs: "
        "one per dataset, model, seed, split and grid point (grid searched on "
        + (f"the first {searched} split(s); later splits train the chosen point, costed at the grid's mean)."
           if searched else "every split).")
        + "".join(f" {name} (`protocol.per_dataset`): {describe_override(config, name)}."
                  for name in protocol_overrides(config)), "",
        *([timed, ""] if timed else []),
        f"**Total: {a['total_hours']:.1f} CPU hours in {a['n_jobs']} training jobs; the longest job: "
        f"{top['dataset']} {top['model']} {top['point']}, {top['hours']:.2f} h.**", "",
        f"Wall-clock with one-thread jobs on: {walls} (jobs replayed longest path first, the grid choice "
        "waiting for its searched splits).", "",
        "| dataset | values | hours | epochs assumed per model (source) |", "|---|---|---|---|",
        *[f"| {d} | {table[table.dataset == d]['values'].iloc[0]} | {per[per.dataset == d].hours.sum():.2f} | "
          f"{_epochs_used(table[table.dataset == d])} |" for d in table["dataset"].unique()], "",
        "| dataset | model | jobs | hours | longest job (h) | share |", "|---|---|---|---|---|---|",
        *[f"| {r.dataset} | {r.model} | {r.jobs} | {r.hours:.2f} | {r.longest_hours:.2f} | {100 * r.share:.1f} % |"
          for r in per.itertuples()],
        *_records_section(table, finished),
    ]
    with atomic_path(md_out) as tmp:
        tmp.write_text("\n".join(lines) + "\n")


def relayout_budget(table_csv: str | os.PathLike, config: dict, csv_out: str | os.PathLike,
                    md_out: str | os.PathLike, records: str | os.PathLike | None = None) -> pd.DataFrame:
    """The budget table ``table_csv``'s timings costed as ``config``'s protocol with the epochs of the finished
    ``records`` (:func:`~repset.protocol.budget.relayout`), written as :func:`write_budget` writes a budget; no epoch
    is timed again. The page says where the timings come from; its sample size is the config's
    ``bench.budget_sample`` (the one the table was timed with) and its job start the table's. ValueError naming
    ``table_csv`` where it cannot be laid out so, or where the output would overwrite it with fewer rows."""
    data = Path(table_csv).read_bytes()   # read once: the sha256 on the page names the bytes laid out
    old = pd.read_csv(io.BytesIO(data))
    finished = finished_records(records)
    try:
        table = relayout(old, config, finished)
    except ValueError as err:
        raise ValueError(f"{table_csv}: {err}") from None
    if table.attrs["dropped"] and Path(csv_out).resolve() == Path(table_csv).resolve():
        raise ValueError(f"{table_csv}: {table.attrs['dropped']} of its rows are not in the config's protocol; "
                         "write the relaid table elsewhere rather than lose them")
    timed = (f"Timings read from `{Path(table_csv).name}` (sha256 {sha256_of(data)[:12]} when read), not measured "
             "again: laid out as this config's protocol, with the epochs of its finished records (`python -m "
             "repset.pipeline.budget relayout`).")
    write_tables(table, config, csv_out, md_out, config["bench"]["budget_sample"], finished,
                 table.attrs["start"], timed)
    return table


def _records_section(table: pd.DataFrame, records: pd.DataFrame | None) -> list[str]:
    """Markdown: the finished records' training epochs against this table's estimate (none: no lines)."""
    check = records_against_estimate(table, records)
    if not len(check):
        return []
    return ["", "Finished records against the estimate: a run's median training epoch over the estimate's epoch of "
            "its dataset, model and point (the records ran on the CPU named, often beside other jobs; above 1: "
            "the hours above are too low for runs made that way).", "",
            "| dataset | model | CPU | records | record / estimate (median) |", "|---|---|---|---|---|",
            *[f"| {r.dataset} | {r.model} | {r.cpu} | {r.records} | {r.median_ratio:.2f} |" for r in check.itertuples()]]


def _epochs_used(rows: pd.DataFrame) -> str:
    """``model epochs (source)`` for each model of one dataset's budget rows."""
    first = rows.drop_duplicates("model")
    return "; ".join(f"{r.model} {r.epochs:.1f} ({r.epochs_from})" for r in first.itertuples())


def job_resources(budget_csv: str | os.PathLike) -> dict[tuple[str, str, str], dict[str, int]]:
    """SLURM requests per (dataset, model, point) from a budget table: ``runtime`` (minutes, from the
    measured seconds per run, :func:`~repset.protocol.schedule.runtime_minutes`) and ``mem_mb`` (1.5 x the
    estimate, at least 1000). A ``chosen`` job gets the largest request of its model's points. Empty
    when the budget has not been run (the profile's defaults apply)."""
    if not os.path.isfile(budget_csv):
        return {}
    table = pd.read_csv(budget_csv)
    out = {}
    for r in table.itertuples():
        out[(r.dataset, r.model, r.point)] = {"runtime": runtime_minutes(r.run_seconds),
                                              "mem_mb": max(1000, math.ceil(1.5 * r.mem_mb))}
    for (dataset, model), group in table.groupby(["dataset", "model"]):
        requests = [out[(dataset, model, p)] for p in group["point"]]
        out[(dataset, model, CHOSEN)] = {k: max(r[k] for r in requests) for k in ("runtime", "mem_mb")}
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The protocol budget's tables.")
    sub = parser.add_subparsers(dest="command", required=True)
    rl = sub.add_parser("relayout", help="a budget table's timings costed as a config's protocol, none timed again")
    rl.add_argument("table", help="a budget table (results/budget/protocol.csv; reproduction/budget/protocol.csv)")
    rl.add_argument("csv_out")
    rl.add_argument("md_out")
    rl.add_argument("--config", default="config.yaml")
    rl.add_argument("--configfile", action="extend", nargs="+", default=[], metavar="YAML",
                    help="config overlays in order, as Snakemake's --configfile takes them (repeatable)")
    rl.add_argument("--records", metavar="RUNS_CSV", help="finished runs (reproduction/runs.csv): their mean epochs "
                                                          "replace the epoch bound; none: the bound")
    args = parser.parse_args(argv)
    from repset.pipeline.pack import load_config

    try:
        config = load_config(args.config, args.configfile)
        if args.records is not None and not os.path.isfile(args.records):
            raise ValueError(f"--records {args.records}: no such file")
        table = relayout_budget(args.table, config, args.csv_out, args.md_out, args.records)
    except (ValueError, OSError) as err:
        parser.exit(2, f"error: {err}\n")
    dropped = f"; {table.attrs['dropped']} of the table's rows not in the config's protocol" if table.attrs["dropped"] else ""
    print(f"{args.md_out}: {len(table)} rows, {table['runs'].sum():.0f} runs{dropped}")


if __name__ == "__main__":
    main()
