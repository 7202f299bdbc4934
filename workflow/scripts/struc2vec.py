"""struc2vec node embeddings of one graph dataset (disjoint union of its graphs)."""
from repset.pipeline.data import graph_embedding
from repset.pipeline.joblog import job_log
from repset.threads import set_threads

with job_log(snakemake.log[0]):
    set_threads(snakemake.threads)
    p = snakemake.params
    graph_embedding(snakemake.wildcards.dataset, p.raw_dir, snakemake.output.embedding, p.options, p.seed,
                    mirror=snakemake.config["data_mirror"])
