"""Sets of struc2vec node embeddings, one per graph, with the 10 x 10-fold CV splits."""
import logging

from repset.pipeline.data import graph_store

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
p = snakemake.params
graph_store(snakemake.wildcards.dataset, p.raw_dir, snakemake.input.embedding, snakemake.output.store, seed=p.seed,
            val_fraction=p.val_fraction, options=p.options)
