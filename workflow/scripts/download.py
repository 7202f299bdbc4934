"""Fetch and verify the raw files of one dataset into the raw-data cache."""
from repset.pipeline.data import download_sources
from repset.pipeline.joblog import job_log

with job_log(snakemake.log[0]):
    download_sources(snakemake.wildcards.dataset, snakemake.params.raw_dir, snakemake.config["data_mirror"], snakemake.output.manifest)
