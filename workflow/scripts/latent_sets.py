"""Latent-set interpretability table (m = 50, |Y| = 20) of one hidden-set init."""
import logging

from repset.pipeline.init_study import latent_sets
from repset.pipeline.joblog import job_log

with job_log(snakemake.log[0]):
    stem = snakemake.output.table[0].rsplit(".", 1)[0]
    logging.info("\n%s", latent_sets(snakemake.input.store, snakemake.params.vectors, snakemake.params.config, stem,
                                     init=snakemake.params.init, seed=snakemake.params.seed).to_string())
