"""WMD kNN over a text store's splits (the paper's WMD row, computed here)."""
from __future__ import annotations

import hashlib
import json
import logging
import shutil
from pathlib import Path

import numpy as np

from repset.datasets.store import load_collection
from repset.io import write_json
from repset.protocol.plan import split_count
from repset.provenance import provenance
from repset.wmd.blocks import blocks_folder, split_record_path
from repset.wmd.distance import docs_from_ragged
from repset.wmd.knn import wmd_knn

log = logging.getLogger(__name__)


def split_key(store_sha256: str, split: dict[str, np.ndarray]) -> str:
    """What one split's WMD result depends on: the store's sha256 and the split's train/val/test indices."""
    digest = hashlib.sha256(store_sha256.encode())
    for part in ("train", "val", "test"):
        digest.update(part.encode() + np.ascontiguousarray(split[part], dtype=np.int64).tobytes())
    return digest.hexdigest()


def _finished_split(checkpoints: Path | None, k: int, key: str) -> dict | None:
    """Split ``k``'s record from an earlier, interrupted job when its inputs were these (else None)."""
    path = split_record_path(checkpoints, k) if checkpoints else None
    if path is None or not path.is_file():
        return None
    saved = json.loads(path.read_text())
    if saved.get("key") != key:
        return None
    record = saved["record"]
    record["val_errors"] = {int(n): e for n, e in record["val_errors"].items()}     # JSON keys are strings
    return record


def wmd_eval(store: str, dataset: str, config: dict, out: str, n_jobs: int = 1,
             checkpoints: str | None = None) -> dict:
    """WMD kNN test error on every protocol split (k in 1..19 chosen on validation, Kusner et al.).
    ``checkpoints``: a folder where each finished split is saved (``split<k>.json``, with its
    :func:`split_key`), so that a job stopped part-way resumes at the first unfinished split, and, within
    the split, at its first unfinished block of queries (``split<k>.blocks/``, removed when the split is
    saved; :mod:`repset.wmd.blocks`)."""
    coll, sidecar = load_collection(store)
    n = split_count(dataset, config)
    folder = Path(checkpoints) if checkpoints else None
    records = []
    for k, split in enumerate(coll.splits[:n]):
        key = split_key(sidecar["sha256"], split)
        if (record := _finished_split(folder, k, key)) is not None:
            log.info("split %d: error %.4f k=%d, from %s", k, record["error"], record["k"], folder)
            records.append(record)
            continue
        docs = {p: docs_from_ragged(coll.element_ids, coll.offsets, coll.counts, split[p]) for p in ("train", "val", "test")}
        labels = {p: coll.labels[split[p]] for p in ("train", "val", "test")}
        blocks = blocks_folder(split_record_path(folder, k)) if folder is not None else None
        result = wmd_knn(docs["train"], labels["train"], docs["test"], coll.vectors, range(1, 20),
                         val_docs=docs["val"], val_labels=labels["val"], test_labels=labels["test"], n_jobs=n_jobs,
                         blocks_dir=blocks, blocks_key=key)
        records.append({"split": k, "error": result["error"], "k": result["k"],
                        "runtime_seconds": result["runtime_seconds"], "fraction_exact": result["fraction_exact"],
                        "val_errors": result["val_errors"]})
        if folder is not None:
            write_json(split_record_path(folder, k), {"key": key, "record": records[-1]})
            shutil.rmtree(blocks, ignore_errors=True)
        log.info("split %d: error %.4f k=%d %.1fs", k, result["error"], result["k"], result["runtime_seconds"])
    errors = np.array([r["error"] for r in records])
    summary = {"dataset": dataset, "method": "wmd", "vectors": coll.meta.get("vectors"), "splits": len(records),
               "test_error_mean": float(errors.mean() * 100), "test_error_std": float(errors.std() * 100),
               "runtime_seconds": float(sum(r["runtime_seconds"] for r in records)), "records": records,
               "provenance": provenance({"data": config["data"], "protocol": config["protocol"]})}
    write_json(out, summary)
    return summary
