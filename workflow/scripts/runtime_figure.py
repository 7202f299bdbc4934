"""Draw figures/runtime.{pdf,png} from the runtime table."""
import pandas as pd

from repset.pipeline.joblog import job_log
from repset.report.figures import plot_runtime

with job_log(snakemake.log[0]):
    plot_runtime(pd.read_csv(snakemake.input.table), snakemake.output.pdf, snakemake.output.png)
