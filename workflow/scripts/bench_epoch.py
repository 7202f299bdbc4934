"""Training-epoch seconds on the BBCSPORT shape for each layer/solver, with the forward-matmul floor."""
import logging

from repset.bench.epoch import EpochShape, epoch_benchmark
from repset.io import atomic_path
from repset.pipeline.joblog import job_log
from repset.threads import set_threads

with job_log(snakemake.log[0]):
    logging.info("threads: %s", set_threads(snakemake.threads))
    b = snakemake.params.bench
    table = epoch_benchmark(b["epoch_variants"], EpochShape(**b["epoch_shape"]), repeats=b["epoch_repeats"], seed=snakemake.params.seed)
    logging.info("\n%s", table.to_string())
    with atomic_path(snakemake.output.table) as tmp:
        table.to_csv(tmp, index=False)
