"""Heatmap of RepSet's mean test error over m x |Y| for one dataset."""
import pandas as pd

from repset.datasets import get_spec
from repset.pipeline.joblog import job_log
from repset.report.sensitivity import plot_sensitivity, sensitivity_grid

with job_log(snakemake.log[0]):
    name = snakemake.wildcards.dataset
    grid = sensitivity_grid(pd.read_csv(snakemake.input.runs), get_spec(name).name)
    plot_sensitivity(grid, f"RepSet test error (%) on {get_spec(name).display}", snakemake.output.pdf, snakemake.output.png)
