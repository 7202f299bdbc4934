"""Bar charts of the solver and epoch benchmarks."""
import pandas as pd

from repset.pipeline.joblog import job_log
from repset.report.figures import plot_benchmarks

with job_log(snakemake.log[0]):
    plot_benchmarks(pd.read_csv(snakemake.input.solvers), pd.read_csv(snakemake.input.epoch), snakemake.output.pdf,
                    snakemake.output.png)
