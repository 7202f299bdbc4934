"""results/REPORT.md (the findings first) and its cell page results/cells.md."""
from pathlib import Path

from repset.datasets.store import read_sidecar
from repset.pipeline.joblog import job_log
from repset.report.make import make_report

with job_log(snakemake.log[0]):
    i, p = snakemake.input, snakemake.params
    make_report(snakemake.config, summary=i.summary, training=i.training, runs=i.runs, wmd=i.wmd, majority=i.majority,
                sidecars={Path(s).stem: read_sidecar(s) for s in i.stores},   # store name: <dataset>.<vectors>
                budget=i.budget, runtime=i.runtime, text=p.text, graph=p.graph, configfiles=p.configfiles,
                report=snakemake.output.report, cells=snakemake.output.cells, init_study=i.init_study or None,
                init_baseline=p.init_baseline, latent_by_init=p.latent_by_init, noise=i.noise or None,
                notes=i.notes or None, standing=i.standing or None)
