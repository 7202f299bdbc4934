"""Draw figures/runtime.{pdf,png} from the runtime table."""
import pandas as pd

from repset.report.figures import plot_runtime

plot_runtime(pd.read_csv(snakemake.input.table), snakemake.output.pdf, snakemake.output.png)
