"""Train a pack: several runs of one dataset, model and seed in one process, each record as `train` writes it."""
from repset.pipeline.joblog import job_log
from repset.pipeline.train import train_pack
from repset.threads import set_threads

with job_log(snakemake.log[0], exit_on_success=True):
    set_threads(snakemake.threads)
    train_pack(snakemake.input.store, snakemake.params.jobs, choice=snakemake.input.get("choice"))
