"""Latent-set interpretability table on BBCSPORT (m = 50, |Y| = 20)."""
import logging

from repset.pipeline.train import latent_sets

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
stem = snakemake.output.table[0].rsplit(".", 1)[0]
logging.info("\n%s", latent_sets(snakemake.input.store, snakemake.params.vectors, snakemake.params.config, stem,
                                 seed=snakemake.params.seed).to_string())
