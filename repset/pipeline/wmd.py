"""WMD kNN over a text store's splits (the paper's WMD row, computed here)."""
from __future__ import annotations

import logging

import numpy as np

from repset.datasets.store import load_collection
from repset.io import write_json
from repset.protocol.plan import split_count
from repset.provenance import provenance
from repset.wmd.distance import docs_from_ragged
from repset.wmd.knn import wmd_knn

log = logging.getLogger(__name__)


def wmd_eval(store: str, dataset: str, config: dict, out: str, n_jobs: int = 1) -> dict:
    """WMD kNN test error on every protocol split (k in 1..19 chosen on validation, Kusner et al.)."""
    coll, _ = load_collection(store)
    n = split_count(dataset, config)
    records = []
    for k, split in enumerate(coll.splits[:n]):
        docs = {p: docs_from_ragged(coll.element_ids, coll.offsets, coll.counts, split[p]) for p in ("train", "val", "test")}
        labels = {p: coll.labels[split[p]] for p in ("train", "val", "test")}
        result = wmd_knn(docs["train"], labels["train"], docs["test"], coll.vectors, range(1, 20),
                         val_docs=docs["val"], val_labels=labels["val"], test_labels=labels["test"], n_jobs=n_jobs)
        records.append({"split": k, "error": result["error"], "k": result["k"],
                        "runtime_seconds": result["runtime_seconds"], "fraction_exact": result["fraction_exact"],
                        "val_errors": result["val_errors"]})
        log.info("split %d: error %.4f k=%d %.1fs", k, result["error"], result["k"], result["runtime_seconds"])
    errors = np.array([r["error"] for r in records])
    summary = {"dataset": dataset, "method": "wmd", "vectors": coll.meta.get("vectors"), "splits": len(records),
               "test_error_mean": float(errors.mean() * 100), "test_error_std": float(errors.std() * 100),
               "runtime_seconds": float(sum(r["runtime_seconds"] for r in records)), "records": records,
               "provenance": provenance({"data": config["data"], "protocol": config["protocol"]})}
    write_json(out, summary)
    return summary
