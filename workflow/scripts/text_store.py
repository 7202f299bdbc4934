"""Parse, preprocess, embed and split one text dataset into a set store."""
from repset.pipeline.data import text_store
from repset.pipeline.joblog import job_log

with job_log(snakemake.log[0]):
    p, w = snakemake.params, snakemake.wildcards
    text_store(w.dataset, w.vectors, p.raw_dir, snakemake.output.store, seed=p.seed, val_fraction=p.val_fraction,
               wmd_mat=p.wmd_mat, mirror=snakemake.config["data_mirror"], manifest=snakemake.input.manifest)
