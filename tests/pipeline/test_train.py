"""Training stage end to end on a tiny store: run records, aggregation, report tables."""
import json

import numpy as np
import pandas as pd
import pytest
import yaml

from repo_paths import ROOT
from repset.datasets.registry import random_splits
from repset.datasets.store import SetCollection, save_store
from repset.pipeline.train import aggregate_runs, train_model
from repset.protocol.plan import layer_options
from repset.report.document import comparison, ours_long, result_tables, write_report


@pytest.fixture
def setup(tmp_path):
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["protocol"]["text_splits"] = 2
    config["protocol"]["grid_splits"] = None   # the whole grid on both splits
    config["train"] = {"epochs": 3, "batch_size": 16, "lr": 0.01, "patience": 3}
    config["models"] = {"repset": {"layer": "repset", "options": {}, "grid": {"n_hidden_sets": [3, 4], "hidden_set_size": [2]}},
                        "approx_repset": {"layer": "approx_repset", "options": {"form": "official", "n_hidden_sets": 3, "hidden_set_size": 2}, "grid": {}}}
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1], 30)
    lengths = rng.integers(1, 6, 60)
    values = rng.normal(size=(lengths.sum(), 4)).astype(np.float32) + np.repeat(labels, lengths)[:, None]
    coll = SetCollection(offsets=np.concatenate([[0], np.cumsum(lengths)]), labels=labels, class_names=["a", "b"],
                         splits=random_splits(labels, 2, seed=0), values=values, meta={"dataset": "bbcsport"})
    store = save_store(tmp_path / "bbcsport.test.npz", coll)
    return config, store, tmp_path


def test_train_aggregate_report(setup):
    config, store, tmp = setup
    files = []
    for model in config["models"]:
        out = tmp / f"{model}.json"
        result = train_model(str(store), "bbcsport", model, 0, config, out)
        files.append(out)
        assert len(result["records"]) == 2 * len(layer_options(config, model))
    saved = json.loads(files[0].read_text())
    assert saved["provenance"]["config"]["solver"] == config["solver"]
    assert {r["point"] for r in saved["records"]} == {"k2-m3", "k2-m4"}
    summary = aggregate_runs(files, tmp / "runs.csv", tmp / "sel.csv", tmp / "sum.csv")
    assert sorted(summary["model"]) == ["approx_repset", "repset"] and (summary["splits"] == 2).all()
    assert len(pd.read_csv(tmp / "runs.csv")) == 6 and len(pd.read_csv(tmp / "sel.csv")) == 4
    ours = ours_long(summary)
    tables = result_tables(ours, tmp, ["bbcsport"], ["MUTAG"])
    assert "RepSet" in tables["text"].index and "S-WMD (reported)" in tables["text"].index
    assert "DiffPool (reported)" in tables["graph"].index
    comp = comparison(ours)
    assert set(comp["method"]) == {"RepSet", "ApproxRepSet"} and comp["mean_paper"].notna().all()
    report = write_report(tmp / "REPORT.md", config=config, ours=ours, tables=tables,
                          store_metas={"bbcsport.test": {"vectors": "test"}})
    text = report.read_text()
    assert "## Paper vs reproduced" in text and "RepSet" in text and "config sha256" in text
