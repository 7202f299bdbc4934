"""Train one run: one model, grid point, split and seed of one dataset."""
from repset.pipeline.joblog import job_log
from repset.pipeline.train import train_split
from repset.protocol.jobs import Run
from repset.threads import set_threads

with job_log(snakemake.log[0], exit_on_success=True):
    set_threads(snakemake.threads)
    train_split(snakemake.input.store, Run(**snakemake.params.run), snakemake.params.settings, snakemake.output.record,
                choice=snakemake.input.get("choice"))
