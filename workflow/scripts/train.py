"""Train one model on every split and grid point of one dataset (one seed)."""
import logging

from repset.pipeline.train import train_model
from repset.threads import set_threads

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
set_threads(snakemake.threads)
w = snakemake.wildcards
train_model(snakemake.input.store, w.dataset, w.model, int(w.seed), snakemake.params.config, snakemake.output.runs)
