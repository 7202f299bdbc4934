"""WMD kNN test error of one text dataset over the protocol's splits."""
import logging

from repset.pipeline.wmd import wmd_eval

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
wmd_eval(snakemake.input.store, snakemake.wildcards.dataset, snakemake.params.config, snakemake.output.result,
         n_jobs=snakemake.threads)
