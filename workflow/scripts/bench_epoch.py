"""Training-epoch seconds for each layer/solver on the BBCSPORT shape and the configured stores, with the
dense and distinct-element matmul floors."""
import logging

import pandas as pd

from repset.bench.epoch import EpochShape, epoch_benchmark
from repset.datasets.store import load_store
from repset.io import atomic_path
from repset.pipeline.joblog import job_log
from repset.threads import set_threads

with job_log(snakemake.log[0]):
    logging.info("threads: %s", set_threads(snakemake.threads))
    b, seed = snakemake.params.bench, snakemake.params.seed
    shape = EpochShape(**b["epoch_shape"])
    tables = [epoch_benchmark(b["epoch_variants"], shape, repeats=b["epoch_repeats"], seed=seed)]
    for name, store in zip(snakemake.params.names, snakemake.input.stores):
        data = load_store(store)[0]
        tables.append(epoch_benchmark(b["epoch_variants"], shape, repeats=b["epoch_repeats"], seed=seed,
                                      data=data, data_name=name))
    table = pd.concat(tables, ignore_index=True)
    logging.info("\n%s", table.to_string())
    with atomic_path(snakemake.output.table) as tmp:
        table.to_csv(tmp, index=False)
