"""Every matching solver on the same RepSet-shaped instances: seconds, speedup vs scipy, error."""
import logging

from repset.bench.solvers import solver_benchmark
from repset.io import atomic_path
from repset.pipeline.joblog import job_log
from repset.threads import set_threads

with job_log(snakemake.log[0]):
    logging.info("threads: %s", set_threads(snakemake.threads))
    b = snakemake.params.bench
    table = solver_benchmark({k: tuple(v) for k, v in b["shapes"].items()}, b["solvers"], repeats=b["repeats"],
                             seed=snakemake.params.seed, max_problems=b["max_problems"])
    logging.info("\n%s", table.to_string())
    with atomic_path(snakemake.output.table) as tmp:
        table.to_csv(tmp, index=False)
