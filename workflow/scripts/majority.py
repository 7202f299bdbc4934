"""The majority-class predictor of one dataset over the protocol's splits (a reference row of the result tables)."""
from repset.pipeline.joblog import job_log
from repset.protocol.majority import write_majority

with job_log(snakemake.log[0]):
    write_majority(snakemake.input.store, snakemake.wildcards.dataset, snakemake.params.splits, snakemake.output.result)
