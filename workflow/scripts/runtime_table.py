"""Time training epochs over the runtime sweeps; write results/runtime/epochs.csv."""
import logging

from repset.bench.epoch import EpochShape
from repset.bench.runtime import runtime_sweep
from repset.io import atomic_path
from repset.pipeline.joblog import job_log
from repset.threads import set_threads

with job_log(snakemake.log[0]):
    set_threads(snakemake.threads)
    cfg = snakemake.params.runtime
    table = runtime_sweep(EpochShape(**cfg["base"]), cfg["sweeps"], cfg["variants"], repeats=cfg["repeats"],
                          seed=snakemake.params.seed, progress=lambda row: logging.info("%s", row))
    with atomic_path(snakemake.output.table) as tmp:
        table.to_csv(tmp, index=False)
