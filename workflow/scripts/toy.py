"""Train RepSet on the toy sets, draw figures/toy.{pdf,png}, write the run record."""
import logging

from repset.pipeline.joblog import job_log
from repset.pipeline.toy import run_toy

with job_log(snakemake.log[0]):
    record = run_toy(snakemake.params.toy, solver=snakemake.params.solver, seed=snakemake.params.seed,
                     pdf=snakemake.output.pdf, png=snakemake.output.png, record=snakemake.output.record)
    logging.info("toy: %s", record["metrics"])
