"""Text-categorisation error and graph-classification accuracy tables (ours + reported rows)."""
from pathlib import Path

import pandas as pd

from repset.pipeline.joblog import job_log
from repset.report.document import ours_long, reference_long, result_tables

with job_log(snakemake.log[0]):
    ours = ours_long(pd.read_csv(snakemake.input.summary), snakemake.input.wmd)
    result_tables(ours, Path(snakemake.output.text[0]).parent, snakemake.params.text, snakemake.params.graph,
                  reference_long(snakemake.input.majority))
