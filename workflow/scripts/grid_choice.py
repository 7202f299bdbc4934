"""The grid point that later splits train: validation's most frequent choice on the searched splits."""
import logging

from repset.pipeline.train import grid_choice

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
grid_choice(snakemake.input.records, snakemake.output.choice)
