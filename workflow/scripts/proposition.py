"""LP integrality and Proposition 1 on random instances and on real sets."""
import logging

import pandas as pd

from repset.bench.proposition import proposition_table, random_instances, set_instances, summarize
from repset.datasets.store import load_collection
from repset.io import atomic_path
from repset.pipeline.joblog import job_log
from repset.report.figures import plot_proposition

with job_log(snakemake.log[0]):
    v, seed = snakemake.params.verify, snakemake.params.seed
    coll, _ = load_collection(snakemake.input.store)
    table = pd.concat([
        proposition_table(random_instances(v["random_instances"], seed=seed), "random"),
        proposition_table(set_instances(coll.element_values(), coll.offsets, v["set_instances"], seed=seed),
                          f"{v['set_dataset']} sets"),
    ], ignore_index=True)
    summary = summarize(table)
    logging.info("\n%s", summary.to_string())
    for frame, path in ((table, snakemake.output.table), (summary, snakemake.output.summary)):
        with atomic_path(path) as tmp:
            frame.to_csv(tmp, index=False)
    plot_proposition(table, snakemake.output.pdf, snakemake.output.png)
