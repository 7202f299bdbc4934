"""WMD kNN test error of one text dataset over the protocol's splits."""
from repset.pipeline.joblog import job_log
from repset.pipeline.wmd import wmd_eval

with job_log(snakemake.log[0]):
    wmd_eval(snakemake.input.store, snakemake.wildcards.dataset, snakemake.params.config, snakemake.output.result,
             n_jobs=snakemake.threads, checkpoints=snakemake.params.checkpoints)
