"""Collect run records; select per split on validation; mean and std per dataset and model."""
import logging

from repset.pipeline.train import aggregate_runs

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
out = snakemake.output
logging.info("\n%s", aggregate_runs(snakemake.input.runs, out.runs, out.selected, out.summary).to_string())
