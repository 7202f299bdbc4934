"""How far a record folder is from its config's protocol: runs per dataset and model on record against the
protocol's count (its declared reductions included), their training hours and the machines that ran them,
and each text dataset's WMD splits::

    python -m repset.pipeline.record status reproduction config.yaml --configfile reproduction/reddit_reduced.yaml

reads ``<record folder>/runs.csv`` (written by ``record export``) and ``<record folder>/wmd/``.
"""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from repset.datasets.registry import get_spec
from repset.pipeline.archive import read_runs_csv
from repset.protocol.budget import seconds_per_run
from repset.protocol.jobs import CHOSEN, runs
from repset.protocol.plan import datasets, split_count

__all__ = ["progress_table", "progress_markdown", "records_seconds"]

RUNS_PREFIX = "results/runs/"


def _machines(rows: pd.DataFrame) -> str:
    """``CPU model (or device): runs`` of ``rows``, most runs first; records that name no CPU say so."""
    cpu, device = rows["cpu"].astype(object), rows["device"].astype(object)   # all-empty in a CSV: float NaN
    kind = cpu.fillna("CPU not named").where(device.fillna("cpu") == "cpu", device)
    return ", ".join(f"{name} {count:,}" for name, count in kind.value_counts().items())


def _stores(rows: pd.DataFrame) -> str:
    """``store sha256 (first 12 hex digits) runs`` of ``rows``, most runs first (runs.csv's ``storesha256_of``);
    empty where runs.csv names none."""
    if "storesha256_of" not in rows.columns:
        return ""
    named = rows["storesha256_of"].dropna().astype(str).str[:12]
    return ", ".join(f"{sha} {count:,}" for sha, count in named[named != ""].value_counts().items())


def _wmd_splits(record_dir: Path, dataset: str, total: int) -> int | None:
    """WMD splits on record for ``dataset``: ``total`` when its result is there, else its finished splits'
    checkpoints (``wmd/splits/<dataset>/split<k>.json``, 0 with only blocks of one under way); None when it
    has none of them."""
    if (record_dir / "wmd" / f"{dataset}.json").is_file():
        return total
    folder = record_dir / "wmd" / "splits" / dataset
    done = [p for p in folder.glob("split*.json")
            if p.stem[len("split"):].isdigit() and int(p.stem[len("split"):]) < total]   # this protocol's splits
    return len(done) if done or any(folder.glob("split*.blocks/*.npz")) else None      # blocks: under way


def records_seconds(table: pd.DataFrame, seconds: dict[tuple[str, str, str], float]) -> dict[tuple[str, str, str], float]:
    """Seconds of one run per (dataset, model, point) as the CPU records (``runs.csv`` rows: ``dataset``, ``model``,
    ``point`` (else read from ``path``), ``train_seconds``, ``device``; a GPU's are left out, as the budget is a
    CPU's) give them: the mean of the point's records; a point without records at the budget's ``seconds`` times the
    median, over the model's points that have both, of records' mean / budget (the budget's own figure where the
    model has no record there, none where the budget has none either); a ``chosen`` run without records at the mean
    of its model's budget points, where each has a figure (as the budget costs it)."""
    if "device" in table:
        table = table[table["device"].astype(object).fillna("cpu") == "cpu"]
    if table.empty:
        return {}
    if not {"dataset", "model", "point"} <= set(table.columns):   # rows named by path only
        parts = table["path"].astype(str).str.split("/", expand=True)
        if parts.shape[1] < 3:
            return {}
        table = table.assign(dataset=parts[0], model=parts[1], point=parts[2])
    timed = table.dropna(subset=["train_seconds"])
    measured = {k: float(v) for k, v in timed.groupby(["dataset", "model", "point"])["train_seconds"].mean().items()}
    ratios: dict[tuple[str, str], list[float]] = {}
    for (dataset, model, point), mean in measured.items():
        if seconds.get((dataset, model, point)) and point != CHOSEN:
            ratios.setdefault((dataset, model), []).append(mean / seconds[(dataset, model, point)])
    out = dict(measured)
    for key, budget_seconds in seconds.items():
        if key not in out and key[2] != CHOSEN:
            out[key] = budget_seconds * (float(pd.Series(ratios[key[:2]]).median()) if key[:2] in ratios else 1.0)
    for key in {k for k in seconds if k[2] == CHOSEN}:
        points = [k for k in seconds if k[:2] == key[:2] and k[2] != CHOSEN]      # the budget's grid of the model
        if key not in out and points and all(k in out for k in points):
            out[key] = sum(out[k] for k in points) / len(points)
    return out


def progress_table(record_dir: str | os.PathLike, config: dict, models: list[str] | None = None,
                   budget: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per dataset and model of ``config``'s protocol: ``on_record`` of its ``protocol`` runs in
    ``record_dir/runs.csv``, ``extra`` records of that dataset and model outside the protocol (a reduced
    protocol's), ``train_hours`` (sum of the protocol runs' ``train_seconds`` / 3600), ``machines`` and ``stores``
    (the stores those runs read, by runs.csv: a dataset's record moved to another store shows two); then a
    ``wmd`` row for each text dataset that has WMD on record or in ``config['wmd']['datasets']`` (splits).
    ``models``: only these (no WMD row unless named). ``budget``: budget tables' rows (``results/budget/*.csv``)
    whose seconds per run give ``remaining_hours``, the runs not on record (NaN where one lacks an estimate), and
    :func:`records_seconds` ``remaining_hours_records``, the same runs at the records' own seconds (which
    early stopping and the machines that ran them make differ from the budget's 50-epoch bound)."""
    record_dir = Path(record_dir)
    table = read_runs_csv(record_dir)
    if table.empty:
        table = pd.DataFrame(columns=["path", "train_seconds", "cpu", "device"])
    by_path = table.assign(path=RUNS_PREFIX + table["path"].astype(str)).set_index("path")
    text = {get_spec(d).name for d in config["datasets"]["text"]}
    planned_wmd = {get_spec(d).name for d in config.get("wmd", {}).get("datasets", [])}
    seconds = seconds_per_run(budget) if budget is not None else {}
    measured = records_seconds(table, seconds)
    rows = []
    for dataset in datasets(config):
        protocol: dict[str, list[str]] = {}
        for run in runs(config, [dataset]):
            if models is None or run.model in models:
                protocol.setdefault(run.model, []).append(run.path)
        for model, paths in protocol.items():
            done = by_path.loc[by_path.index.intersection(paths)]
            prefix = f"{RUNS_PREFIX}{dataset}/{model}/"
            extra = sum(1 for p in by_path.index.difference(paths) if p.startswith(prefix))
            points = [(dataset, model, p.split("/")[-2]) for p in set(paths).difference(done.index)]
            rows.append({"dataset": dataset, "model": model, "on_record": len(done), "protocol": len(paths),
                         "extra": extra, "train_hours": done["train_seconds"].sum() / 3600,
                         "remaining_hours": sum(seconds.get(k, float("nan")) for k in points) / 3600,
                         "remaining_hours_records": sum(measured.get(k, float("nan")) for k in points) / 3600,
                         "machines": _machines(done) if len(done) else "", "stores": _stores(done)})
        total = split_count(dataset, config)
        splits = _wmd_splits(record_dir, dataset, total) if dataset in text else None
        if (splits is not None or dataset in planned_wmd) and (models is None or "wmd" in models):
            rows.append({"dataset": dataset, "model": "wmd", "on_record": splits or 0,
                         "protocol": total, "extra": 0, "train_hours": float("nan"), "remaining_hours": float("nan"),
                         "remaining_hours_records": float("nan"), "machines": "", "stores": ""})
    out = pd.DataFrame(rows)
    out.attrs["budget"] = budget is not None
    return out


def _hours(h: float) -> str:
    return f"{h:.2f}" if pd.notna(h) else ""          # blank: no figure


def _more(totals: pd.DataFrame, column: str, source: str) -> str:
    """``, 12.3 more <source>[ for A, B] [(C: no estimate)]`` over the incomplete datasets' ``column``."""
    remaining = totals.loc[~totals["complete"], column]
    known, unknown = remaining.dropna(), ", ".join(remaining.index[remaining.isna()])
    return ((f", {known.sum():.1f} more {source}" + (f" for {', '.join(known.index)}" if unknown else "")
             if len(known) else "") + (f" ({unknown}: no estimate)" if unknown else ""))


def progress_markdown(table: pd.DataFrame) -> str:
    """Per dataset: runs on record of the protocol's, training hours and the hours the budget and the records'
    own seconds give the rest; then the dataset x model table (WMD counted in splits, not runs; blank hours: no
    figure)."""
    runs_only = table[table["model"] != "wmd"]
    estimates = ["remaining_hours", "remaining_hours_records"]
    totals = runs_only.groupby("dataset", sort=False).agg(
        on_record=("on_record", "sum"), protocol=("protocol", "sum"), train_hours=("train_hours", "sum"),
        **{c: (c, lambda h: h.sum(min_count=len(h))) for c in estimates})     # NaN if any model lacks one
    totals["complete"] = totals["on_record"] == totals["protocol"]
    rest, hours = "", ["train_hours", *estimates]
    if not table.attrs.get("budget"):
        table, totals, hours = table.drop(columns=estimates), totals.drop(columns=estimates), hours[:1]
    else:
        rest = _more(totals, "remaining_hours", "by the budget") + _more(totals, "remaining_hours_records",
                                                                         "by the records' own seconds")
    shown, totals = (frame.assign(**{c: frame[c].map(_hours) for c in hours}) for frame in (table, totals))
    return ("## Runs on record per dataset\n\n" + totals.reset_index().to_markdown(index=False)
            + f"\n\nIn all: {int(runs_only['on_record'].sum()):,} of {int(runs_only['protocol'].sum()):,} protocol runs, "
            f"{runs_only['train_hours'].sum():.1f} training hours{rest}.\n\n## Per dataset and model\n\n"
            + shown.to_markdown(index=False) + "\n")
