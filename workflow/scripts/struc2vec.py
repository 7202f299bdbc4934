"""struc2vec node embeddings of one graph dataset (disjoint union of its graphs)."""
import os

from repset.provenance import openblas_environment   # light: nothing here loads numpy's or scipy's OpenBLAS yet

os.environ.update(openblas_environment())   # the record's stores' kernels where the CPU has them (docs/record.md)

from repset.pipeline.data import graph_embedding  # noqa: E402 - after the kernels are chosen
from repset.pipeline.joblog import job_log  # noqa: E402
from repset.threads import set_threads  # noqa: E402

with job_log(snakemake.log[0]):
    set_threads(snakemake.threads)
    p = snakemake.params
    graph_embedding(snakemake.wildcards.dataset, p.raw_dir, snakemake.output.embedding, p.options, p.seed,
                    mirror=snakemake.config["data_mirror"])
