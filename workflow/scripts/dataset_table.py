"""The datasets table: our counts beside the paper's."""
from pathlib import Path

from repset.pipeline.data import dataset_table
from repset.pipeline.joblog import job_log

with job_log(snakemake.log[0]):
    dataset_table(snakemake.params.datasets, snakemake.input.stores, snakemake.config["data"]["raw_dir"],
                  str(Path(snakemake.output.md).parent))
