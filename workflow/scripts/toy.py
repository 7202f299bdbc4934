"""Train RepSet on the toy sets, draw figures/toy.{pdf,png}, write the run record."""
import logging

from repset.pipeline.toy import run_toy

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
record = run_toy(snakemake.params.toy, solver=snakemake.params.solver, seed=snakemake.params.seed,
                 pdf=snakemake.output.pdf, png=snakemake.output.png, record=snakemake.output.record)
logging.info("toy: %s", record["metrics"])
