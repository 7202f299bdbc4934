"""REPORT.md and its cell page from the report's input files: the one call behind the workflow's report rule and
:func:`repset.pipeline.report_record.report_from_record` (the report from a restored record, without its stores)."""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from repset.report.document import MADE_BY, ours_long, read_training, reference_long, result_tables, write_report
from repset.report.init_study import init_study_section
from repset.report.notes import read_notes

__all__ = ["make_report", "sidecars_by_dataset"]

PathLike = str | os.PathLike


def _page_body(path: PathLike) -> str:
    """A Markdown page without its title line and the blank line after it."""
    return Path(path).read_text().split("\n", 2)[2]


def sidecars_by_dataset(sidecars: dict[str, dict]) -> dict[str, dict]:
    """Dataset -> its store's sidecar, from ``sidecars`` keyed by store name (``<dataset>.<vectors>``): the dataset
    its metadata names, else the store name's stem."""
    return {sidecar["meta"].get("dataset") or name.split(".")[0]: sidecar for name, sidecar in sidecars.items()}


def make_report(config: dict, *, summary: PathLike, training: PathLike, runs: PathLike, wmd: Sequence[PathLike],
                majority: Sequence[PathLike], sidecars: dict[str, dict], budget: PathLike, runtime: PathLike,
                text: Sequence[str], graph: Sequence[str], configfiles: Sequence[str], report: PathLike,
                cells: PathLike, init_study: PathLike | None = None, init_baseline: str | None = None,
                latent_by_init: str | None = None, noise: PathLike | None = None,
                notes: PathLike | Sequence[PathLike] | None = None, standing: PathLike | None = None,
                made_by: str = MADE_BY) -> Path:
    """Write ``report`` (REPORT.md) and ``cells`` from the aggregate's ``summary``, ``training`` and ``runs`` CSVs,
    the WMD results, the majority-class results, the stores' ``sidecars`` (store name ``<dataset>.<vectors>`` -> the
    sidecar :func:`repset.datasets.store.read_sidecar` reads: its ``sha256`` and ``meta``), the protocol's budget page,
    the runtime sweep's CSV, the datasets of each table (``text``, ``graph``), the config files' names as the report
    prints them, and the optional initialisation-study table (CSV indexed by dataset and init) with its configured init
    and the latent-set tables' path named for the reader, noise table page, cell notes and standing page; ``made_by``:
    what made it, in its first line."""
    ours = ours_long(pd.read_csv(summary), wmd)
    tables = result_tables(ours, None, list(text), list(graph), reference_long(majority))
    metas = {name: sidecar["meta"] for name, sidecar in sidecars.items()}
    store_sha256 = {dataset: sidecar["sha256"] for dataset, sidecar in sidecars_by_dataset(sidecars).items()}
    sections = [("Cost of this config's protocol on this machine (estimate)", _page_body(budget))]
    study = pd.read_csv(init_study, index_col=[0, 1]) if init_study else None
    if study is not None:
        sections.append(("Interpretability and the hidden sets' initialisation",
                         init_study_section(study, init_baseline, latent_by_init)))
    return write_report(report, config=config, ours=ours, tables=tables, store_metas=metas, extra_sections=sections,
                        noise=Path(noise).read_text() if noise else None, configfiles=configfiles,
                        notes=read_notes(notes) if notes else None, training=read_training(training),
                        store_sha256=store_sha256, standing=_page_body(standing) if standing else None,
                        runs=pd.read_csv(runs), runtime=pd.read_csv(runtime), init_study=study,
                        init_baseline=init_baseline, cells=cells, made_by=made_by)
