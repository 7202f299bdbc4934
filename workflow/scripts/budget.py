"""Estimated cost of the config's whole training protocol, from one timed epoch per dataset x model x point."""
from repset.pipeline.budget import graph_shape, store_shape, text_shape, write_budget
from repset.pipeline.joblog import job_log
from repset.threads import set_threads

with job_log(snakemake.log[0]):
    set_threads(1)  # as the training jobs (threads: 1); the wall-clock estimates replay them on 2, 8, 64 and unbounded cores
    p = snakemake.params
    c = p.config
    shapes = [store_shape(d, store) if p.values == "store" else text_shape(d, store) if d in p.text else
              graph_shape(d, p.raw_dir, c["struc2vec"]["dim"], c["data"]["val_fraction"], c["seed"])
              for d, store in zip(p.datasets, snakemake.input.stores)]
    write_budget(shapes, c, snakemake.output.table, snakemake.output.summary, sample=p.sample,
                 records=snakemake.input.get("records"))
