"""struc2vec table: settings, measured cost and nearest-neighbour role agreement per graph dataset."""
import logging
from pathlib import Path

from repset.pipeline.data import embedding_table

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
p = snakemake.params
embedding_table(p.datasets, snakemake.input.embeddings, p.benchmarks, p.options,
                snakemake.config["data"]["raw_dir"], str(Path(snakemake.output.md).with_suffix("")), seed=p.seed)
