"""Fetch and verify the raw files of one dataset into the raw-data cache."""
import logging

from repset.pipeline.data import download_sources

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
download_sources(snakemake.wildcards.dataset, snakemake.params.raw_dir, snakemake.params.mirror, snakemake.output.manifest)
