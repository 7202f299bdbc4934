"""The report from a restored record alone, without building its stores: what the workflow's report rule makes
(``REPORT.md``, ``cells.md``, the aggregate), with each store's sidecar read from the records that name it
(``store_meta``) and the parts the rule computes from stores or timings taken from the record folder (the majority-class
results ``report/majority/``, the protocol's budget ``budget/protocol.md``, the runtime sweep
``report/runtime/epochs.csv``, the WMD results ``wmd/``). For a machine that cannot rebuild the record's stores byte
for byte (struc2vec follows the CPU's OpenBLAS kernels, docs/record.md)::

    python -m repset.pipeline.record restore reproduction results/runs          # and init_small, init_study
    python -m repset.pipeline.record report reproduction OUT --configfile reproduction/completed.yaml ...
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from repset.datasets.registry import get_spec
from repset.pipeline.init_study import init_study_table
from repset.pipeline.pack import load_config
from repset.pipeline.train import aggregate_runs, read_record
from repset.protocol.init_study import configured_init, init_runs
from repset.protocol.jobs import runs as protocol_runs
from repset.protocol.plan import datasets, describe_override, protocol_overrides, split_count
from repset.report.make import make_report, sidecars_by_dataset
from repset.report.setup import config_file_names

__all__ = ["record_sidecars", "check_majority", "check_budget", "report_from_record"]

MADE_BY = ("`python -m repset.pipeline.record report` (the report rule's output from the restored records, each "
           "store's sidecar as its records name it; the stores not built)")
RESTORE = "restore it first: python -m repset.pipeline.record restore <record folder> results/runs"


def record_sidecars(config: dict, root: str | os.PathLike = ".") -> dict[str, dict]:
    """Store name (``<dataset>.<vectors>``) -> sidecar (``sha256``, ``meta``, ...) of every dataset of ``config``, as
    the records of its protocol under ``root`` name it. ValueError naming the dataset when a record is missing
    (restore it) or its records name more than one store (the report could not say which it read)."""
    out = {}
    for dataset in datasets(config):
        jobs = protocol_runs(config, [dataset])
        missing = [r.path for r in jobs if not (Path(root) / r.path).is_file()]
        if missing:
            raise ValueError(f"{dataset}: {len(missing)} of {len(jobs)} records missing (first: {missing[0]}); "
                             f"{RESTORE}")
        metas = {}
        for run in jobs:
            meta = json.loads((Path(root) / run.path).read_text())["store_meta"]
            metas.setdefault(meta["sha256"], meta)
        if len(metas) > 1:
            raise ValueError(f"{dataset}: its records name {len(metas)} stores (sha256 "
                             f"{', '.join(s[:12] for s in sorted(metas))}); a report without stores needs one")
        meta = next(iter(metas.values()))
        out[Path(meta["file"]).stem] = meta
    return out


def check_majority(paths: Sequence[str | os.PathLike], config: dict, sidecars: dict[str, dict]) -> None:
    """Each majority-class result (``report/majority/<dataset>.json`` of the record folder) must be of the config's
    protocol (its ``splits``: :func:`~repset.protocol.plan.split_count`) and of the store the dataset's records read
    (its ``store_sha256``: the sidecar :func:`record_sidecars` gives); ValueError naming the file and the command that
    computes it again otherwise (a dataset's record moved to another store or protocol, its row not)."""
    stores = {get_spec(dataset).name: sidecar for dataset, sidecar in sidecars_by_dataset(sidecars).items()}
    for path in paths:
        result = json.loads(Path(path).read_text())
        dataset = get_spec(result["dataset"]).name
        if dataset not in stores:
            raise ValueError(f"{path}: a majority-class row of {dataset}, whose records name no store here")
        splits, store = split_count(dataset, config), stores[dataset]
        found = (result.get("splits"), result.get("store_sha256"))
        if found != (splits, store["sha256"]):
            raise ValueError(
                f"{path}: the majority class over {found[0]} splits of the store {str(found[1])[:12]}, but the config's "
                f"protocol has {splits} and the records read {store['sha256'][:12]}; compute it again on that store: "
                f"python -m repset.protocol.majority data/sets/{store['file']} --dataset {dataset} --splits {splits} "
                f"--out {path}")


def check_budget(path: str | os.PathLike, config: dict) -> None:
    """The record folder's budget page (``budget/protocol.md``) must be of the config's protocol: its job count that of
    :func:`~repset.protocol.jobs.runs` and its per-dataset overrides the config's (each in the words of
    :func:`~repset.protocol.plan.describe_override`); ValueError naming the page and what differs otherwise."""
    page = Path(path).read_text()
    found = re.search(r"in (\d+) training jobs", page)
    jobs = len(protocol_runs(config))
    said = {name: text for name, text in re.findall(r"([\w-]+) \(`protocol\.per_dataset`\): ([^.]*)\.", page)}
    wanted = {name: describe_override(config, name) for name in protocol_overrides(config)}
    if found is None or int(found.group(1)) != jobs or said != wanted:
        raise ValueError(f"{path}: a budget of {found.group(1) if found else 'no'} training jobs with the overrides "
                         f"{said or 'none'}, but the config's protocol has {jobs} jobs and the overrides "
                         f"{wanted or 'none'}: make it again (snakemake results/budget/protocol.md with the same "
                         f"--configfile) and copy it into the record folder")


def report_from_record(record_dir: str | os.PathLike, out: str | os.PathLike, overlays: Sequence[str] = (),
                       config_path: str = "config.yaml", root: str | os.PathLike = ".") -> Path:
    """``out``/REPORT.md, ``out``/cells.md and ``out``/aggregate/{runs,selected,summary,training}.csv from the records
    restored under ``root`` (``results/runs``, and ``results/init_study`` with an init study) for ``config_path`` with
    ``overlays`` (merged as Snakemake merges ``--configfile``), the record folder ``record_dir`` giving what the rule
    computes from stores or timings. The config's ``noise_table`` and ``cell_notes`` are read as the rule reads them.
    Returns REPORT.md's path."""
    config = load_config(config_path, overlays)
    record, out, root = Path(record_dir), Path(out), Path(root)
    names = datasets(config)
    sidecars = record_sidecars(config, root)
    budget, runtime = record / "budget" / "protocol.md", record / "report" / "runtime" / "epochs.csv"
    majority = [record / "report" / "majority" / f"{d}.json" for d in names]
    wmd = [record / "wmd" / f"{get_spec(d).name}.json" for d in config["wmd"]["datasets"]]
    absent = [str(p) for p in (budget, runtime, *majority, *wmd) if not p.is_file()]
    if absent:
        raise ValueError(f"{record}: missing {', '.join(absent)}")
    check_majority(majority, config, sidecars)
    check_budget(budget, config)
    aggregate = out / "aggregate"
    aggregate.mkdir(parents=True, exist_ok=True)
    aggregate_runs([root / r.path for r in protocol_runs(config)], *(aggregate / f"{n}.csv" for n in
                                                                      ("runs", "selected", "summary", "training")))
    study = config.get("init_study")
    text = [d for d in names if get_spec(d).kind == "text"]
    with tempfile.TemporaryDirectory() as tmp:
        table = None
        if study:
            study_runs = init_runs(config)
            missing = [r.path for r in study_runs if not (root / r.path).is_file()]
            if missing:
                raise ValueError(f"init study: {len(missing)} records missing (first: {missing[0]}); {RESTORE}")
            init_study_table([read_record(root / r.path) for r in study_runs], configured_init(config),
                             Path(tmp) / "init_study")
            table = Path(tmp) / "init_study.csv"
        return make_report(
            config, summary=aggregate / "summary.csv", training=aggregate / "training.csv", runs=aggregate / "runs.csv",
            wmd=wmd, majority=majority, sidecars=sidecars, budget=budget, runtime=runtime, text=text,
            graph=[d for d in names if d not in text],
            configfiles=config_file_names([*overlays, config_path], Path.cwd()), report=out / "REPORT.md",
            cells=out / "cells.md", init_study=table, init_baseline=configured_init(config) if study else None,
            latent_by_init="results/tables/latent_sets_by_init.md" if study and study.get("latent_sets") else None,
            noise=config.get("noise_table"), notes=config.get("cell_notes"), made_by=MADE_BY)
