"""Collect run records; select per split on validation; mean and std per dataset and model."""
import logging

from repset.pipeline.joblog import job_log
from repset.pipeline.train import aggregate_runs

with job_log(snakemake.log[0]):
    out = snakemake.output
    logging.info("\n%s", aggregate_runs(snakemake.input.runs, out.runs, out.selected, out.summary, out.training).to_string())
