"""struc2vec table: settings, measured cost and nearest-neighbour role agreement per graph dataset."""
from pathlib import Path

from repset.pipeline.data import embedding_table
from repset.pipeline.joblog import job_log

with job_log(snakemake.log[0]):
    p = snakemake.params
    embedding_table(p.datasets, snakemake.input.embeddings, p.benchmarks, p.options,
                    snakemake.config["data"]["raw_dir"], str(Path(snakemake.output.md).with_suffix("")), seed=p.seed)
