"""Train one job of the hidden-set initialisation study: one dataset, init, split and seed."""
from repset.pipeline.init_study import train_init_run
from repset.pipeline.joblog import job_log
from repset.protocol.init_study import InitRun
from repset.threads import set_threads

with job_log(snakemake.log[0], exit_on_success=True):
    set_threads(snakemake.threads)
    train_init_run(snakemake.input.store, InitRun(**snakemake.params.run), snakemake.params.settings,
                   snakemake.input.protocol, snakemake.output.record)
