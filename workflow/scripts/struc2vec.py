"""struc2vec node embeddings of one graph dataset (disjoint union of its graphs)."""
import logging

from repset.pipeline.data import graph_embedding
from repset.threads import set_threads

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
set_threads(snakemake.threads)
p = snakemake.params
graph_embedding(snakemake.wildcards.dataset, p.raw_dir, snakemake.output.embedding, p.options, p.seed)
