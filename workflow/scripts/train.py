"""Train one run: one model, grid point, split and seed of one dataset."""
import logging

from repset.pipeline.train import train_split
from repset.protocol.jobs import Run
from repset.threads import set_threads

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
set_threads(snakemake.threads)
train_split(snakemake.input.store, Run(**snakemake.params.run), snakemake.params.settings, snakemake.output.record,
            choice=snakemake.input.get("choice"))
