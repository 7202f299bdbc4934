"""The hidden-set initialisation study's table."""
import logging

from repset.pipeline.init_study import init_study_table
from repset.pipeline.joblog import job_log
from repset.pipeline.train import read_record

with job_log(snakemake.log[0]):
    stem = snakemake.output.table[0].rsplit(".", 1)[0]
    table = init_study_table([read_record(p) for p in snakemake.input.runs], snakemake.params.baseline, stem)
    logging.info("\n%s", table.to_string())
