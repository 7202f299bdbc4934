"""The datasets table: our counts beside the paper's."""
import logging
from pathlib import Path

from repset.pipeline.data import dataset_table

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
dataset_table(snakemake.params.datasets, snakemake.input.stores, snakemake.config["data"]["raw_dir"],
              str(Path(snakemake.output.md).parent))
