"""The grid point that later splits train: validation's most frequent choice on the searched splits."""
from repset.pipeline.joblog import job_log
from repset.pipeline.train import grid_choice

with job_log(snakemake.log[0]):
    grid_choice(snakemake.input.records, snakemake.output.choice)
