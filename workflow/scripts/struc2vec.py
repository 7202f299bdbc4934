"""struc2vec node embeddings of one graph dataset (disjoint union of its graphs)."""
import logging
import os

from repset.provenance import openblas_environment   # light: nothing here loads numpy's or scipy's OpenBLAS yet

ambient = os.environ.get("OPENBLAS_CORETYPE")
# the record's stores' kernels where the CPU runs them at this dim (docs/record.md)
os.environ.update(openblas_environment(dim=snakemake.params.options.get("dim")))

from repset.pipeline.data import graph_embedding  # noqa: E402 - after the kernels are chosen
from repset.pipeline.joblog import job_log  # noqa: E402
from repset.threads import set_threads  # noqa: E402

with job_log(snakemake.log[0]):
    if ambient is not None and ambient != os.environ.get("OPENBLAS_CORETYPE"):
        logging.getLogger(__name__).info("OPENBLAS_CORETYPE=%s of the environment replaced by %s for the embedding",
                                         ambient, os.environ["OPENBLAS_CORETYPE"])
    set_threads(snakemake.threads)
    p = snakemake.params
    graph_embedding(snakemake.wildcards.dataset, p.raw_dir, snakemake.output.embedding, p.options, p.seed,
                    mirror=snakemake.config["data_mirror"])
