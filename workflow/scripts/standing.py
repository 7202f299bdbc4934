"""results/tables/standing.{md,csv}: where the models from outside the package stand against the others."""
import pandas as pd

from repset.pipeline.joblog import job_log
from repset.report.standing import write_standing

with job_log(snakemake.log[0]):
    write_standing(pd.read_csv(snakemake.input.selected), snakemake.params.models, snakemake.output.md,
                   snakemake.output.csv)
