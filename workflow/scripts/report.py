"""results/REPORT.md (the findings first) and its cell page results/cells.md."""
from pathlib import Path

import pandas as pd

from repset.datasets.store import read_sidecar
from repset.pipeline.joblog import job_log
from repset.report.document import ours_long, reference_long, read_training, result_tables, write_report
from repset.report.init_study import init_study_section
from repset.report.notes import read_notes

with job_log(snakemake.log[0]):
    ours = ours_long(pd.read_csv(snakemake.input.summary), snakemake.input.wmd)
    tables = result_tables(ours, None, snakemake.params.text, snakemake.params.graph,   # files: rule result_tables
                           reference_long(snakemake.input.majority))
    sidecars = {Path(s).stem: read_sidecar(s) for s in snakemake.input.stores}
    metas = {name: sidecar["meta"] for name, sidecar in sidecars.items()}
    store_sha256 = {sidecar["meta"].get("dataset") or name.split(".")[0]: sidecar["sha256"]   # name: <dataset>.<vectors>
                    for name, sidecar in sidecars.items()}
    budget = Path(snakemake.input.budget).read_text().split("\n", 2)[2]   # the budget table without its title
    sections = [("Cost of this config's protocol on this machine (estimate)", budget)]
    study = pd.read_csv(snakemake.input.init_study, index_col=[0, 1]) if snakemake.input.init_study else None
    if study is not None:
        sections.append(("Interpretability and the hidden sets' initialisation",
                         init_study_section(study, snakemake.params.init_baseline, snakemake.params.latent_by_init)))
    write_report(snakemake.output.report, config=snakemake.config, ours=ours, tables=tables, store_metas=metas,
                 extra_sections=sections, noise=Path(snakemake.input.noise).read_text() if snakemake.input.noise else None,
                 configfiles=snakemake.params.configfiles,
                 notes=read_notes(snakemake.input.notes) if snakemake.input.notes else None,
                 training=read_training(snakemake.input.training), store_sha256=store_sha256,
                 standing=(Path(snakemake.input.standing).read_text().split("\n", 2)[2]   # the page without its title
                           if snakemake.input.standing else None),
                 runs=pd.read_csv(snakemake.input.runs), runtime=pd.read_csv(snakemake.input.runtime),
                 init_study=study, init_baseline=snakemake.params.init_baseline, cells=snakemake.output.cells)
