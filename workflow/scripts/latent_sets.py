"""Latent-set interpretability table on BBCSPORT (m = 50, |Y| = 20)."""
import logging

from repset.pipeline.joblog import job_log
from repset.pipeline.train import latent_sets

with job_log(snakemake.log[0]):
    stem = snakemake.output.table[0].rsplit(".", 1)[0]
    logging.info("\n%s", latent_sets(snakemake.input.store, snakemake.params.vectors, snakemake.params.config, stem,
                                     seed=snakemake.params.seed).to_string())
