"""Parse, preprocess, embed and split one text dataset into a set store."""
import logging

from repset.pipeline.data import text_store

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
p, w = snakemake.params, snakemake.wildcards
text_store(w.dataset, w.vectors, p.raw_dir, snakemake.output.store, seed=p.seed, val_fraction=p.val_fraction,
           wmd_mat=p.wmd_mat)
