"""Library side of the training stages: train a model over splits and grid, aggregate, select."""
from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from repset.datasets.store import load_store
from repset.protocol.selection import aggregate, records_frame, select
from repset.protocol.grid import run_grid
from repset.io import atomic_path, write_json
from repset.protocol.plan import layer_options, split_count, train_settings
from repset.provenance import provenance
from repset.training.trainer import TrainConfig

log = logging.getLogger(__name__)


def train_model(store: str, dataset: str, model: str, seed: int, config: dict, out: str | os.PathLike) -> dict:
    """Train ``model`` on every protocol split and grid point of ``dataset`` with ``seed``; write the runs."""
    data, splits, meta = load_store(store)
    n = split_count(dataset, config)
    if len(splits) < n:
        raise ValueError(f"{store}: {len(splits)} splits, the protocol needs {n}")
    train = TrainConfig(**train_settings(config, model), seed=seed)
    records = run_grid(data, splits[:n], config["models"][model]["layer"], layer_options(config, model), train,
                       seed, {"dataset": dataset, "model": model},
                       progress=lambda r: log.info("split %s %s: val %.4f test %.4f (%d epochs)", r["split"],
                                                   r["point"], r["val"]["error"], r["test"]["error"], r["epochs_run"]),
                       grid_splits=config["protocol"].get("grid_splits"))
    result = {"dataset": dataset, "model": model, "seed": seed, "store": str(store), "store_meta": meta,
              "records": records,
              "provenance": provenance({k: config[k] for k in ("solver", "data", "protocol", "train", "models")},
                                       seed=seed, solver=config["solver"])}
    write_json(out, result)
    return result


def aggregate_runs(run_files: Sequence[str | os.PathLike], runs_csv, selected_csv, summary_csv) -> pd.DataFrame:
    """All run records -> every run, the validation-selected run per split, mean/std per dataset and model."""
    records = []
    for path in run_files:
        records += json.loads(Path(path).read_text())["records"]
    frame = records_frame(records)
    chosen = select(frame)
    summary = aggregate(chosen)
    for table, path in ((frame, runs_csv), (chosen, selected_csv), (summary, summary_csv)):
        with atomic_path(path) as tmp:
            table.to_csv(tmp, index=False)
    return summary


def latent_sets(store: str, vectors_name: str, config: dict, out_stem: str, *, n_hidden_sets: int = 50,
                hidden_set_size: int = 20, count: int = 5, seed: int = 0, top_words: int = 50000) -> pd.DataFrame:
    """The paper's latent-set table: train RepSet (m, |Y|) on split 0 with ``config["train"]`` (RepSet's
    settings), then the words nearest to the elements and to the centroid of the ``count`` most used
    hidden sets, among the ``top_words`` most frequent words of the embedding (GloVe and word2vec list
    words by frequency; the rare tail is mostly noise)."""
    from repset.datasets.vectors import load_vectors
    from repset.training.run import train_run
    from repset.report.latent_sets import most_used_hidden_sets, nearest_words
    from repset.report.tables import write_table

    data, splits, meta = load_store(store)
    options = {"n_hidden_sets": n_hidden_sets, "hidden_set_size": hidden_set_size, "solver": config["solver"]}
    record, model = train_run(data, splits[0], "repset", options, TrainConfig(**config["train"], seed=seed))
    kv = load_vectors(vectors_name)
    chosen = most_used_hidden_sets(model, count)
    hidden = model.layer.hidden_sets()
    table = nearest_words([hidden[i].numpy() for i in chosen], kv.vectors[:top_words], kv.index_to_key[:top_words])
    table.insert(1, "hidden_set_index", chosen)
    caption = (f"Words (the {top_words} most frequent) of {vectors_name} nearest (cosine) to the elements and centroids of the {count} most used "
               f"hidden sets of RepSet (m={n_hidden_sets}, |Y|={hidden_set_size}) trained on split 0 "
               f"(test error {record['test']['error'] * 100:.2f}%)")
    write_table(table.set_index("hidden_set"), out_stem, caption)
    return table
