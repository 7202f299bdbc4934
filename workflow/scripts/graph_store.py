"""Sets of struc2vec node embeddings, one per graph, with the 10 x 10-fold CV splits."""
from repset.pipeline.data import graph_store
from repset.pipeline.joblog import job_log

with job_log(snakemake.log[0]):
    p = snakemake.params
    graph_store(snakemake.wildcards.dataset, p.raw_dir, snakemake.input.embedding, snakemake.output.store, seed=p.seed,
                val_fraction=p.val_fraction, options=p.options, mirror=snakemake.config["data_mirror"])
