"""Budget glue: shapes from a text store and from the raw MUTAG files, CSV and Markdown written."""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest
import yaml

from repo_paths import MIRROR
from repset.datasets.registry import random_splits
from repset.datasets.store import SetCollection, save_store
from repset.pipeline.budget import (graph_shape, job_resources, main, relayout_budget, store_shape, text_shape,
                                   write_budget)


def tiny_store(tmp_path):
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1, 2], 10)
    lengths = rng.integers(1, 6, 30)
    coll = SetCollection(offsets=np.concatenate([[0], np.cumsum(lengths)]), labels=labels, class_names=["a", "b", "c"],
                         splits=random_splits(labels, 1, seed=0), values=rng.normal(size=(lengths.sum(), 4)).astype(np.float32),
                         meta={"dataset": "bbcsport"})
    return save_store(tmp_path / "bbcsport.test.npz", coll), lengths, coll.splits[0]


def test_text_shape_and_outputs(tmp_path):
    store, lengths, split = tiny_store(tmp_path)
    shape = text_shape("bbcsport", str(store))
    assert shape.name == "bbcsport" and shape.dim == 4 and shape.n_classes == 3
    assert shape.train_sizes.tolist() == lengths[split["train"]].tolist() and shape.n_val == len(split["val"])
    config = {"seed": 0, "solver": "numba", "data": {"wmd_mat_dir": None},
              "protocol": {"text_splits": 2, "graph_splits": 10, "seeds": [0], "grid_splits": 1,
                           "per_dataset": {"MUTAG": {"graph_splits": 20}}},      # another dataset's: no bbcsport run
              "train": {"epochs": 5, "batch_size": 8, "lr": 0.01, "patience": 3},
              "models": {"repset": {"layer": "repset", "options": {}, "grid": {"n_hidden_sets": [2, 3], "hidden_set_size": [2]}}}}
    records = tmp_path / "runs.csv"
    pd.DataFrame({"dataset": ["bbcsport", "bbcsport", "MUTAG"], "model": ["repset"] * 3,
                  "epochs_run": [3, 4, 50], "point": ["k2-m2", "k2-m3", "k10-m20"], "cpu": ["AMD EPYC"] * 3,
                  "epoch_seconds": [0.5, 0.5, 0.5]}).to_csv(records, index=False)
    write_budget([shape], config, tmp_path / "b.csv", tmp_path / "b.md", sample=8, records=records, start=2.0)
    table = pd.read_csv(tmp_path / "b.csv")
    assert table["point"].tolist() == ["k2-m2", "k2-m3"] and table["runs"].tolist() == [1.5, 1.5]
    text = (tmp_path / "b.md").read_text()
    assert "grid searched on the first 1 split(s)" in text and "| bbcsport | repset | 3 |" in text
    assert "MUTAG (`protocol.per_dataset`): 20 of the 10 x 10 folds (the first 2 repetitions)." in text
    assert "CPU hours in 3 training jobs" in text and "8 cores" in text and "unbounded (critical path)" in text
    assert (table["epochs"] == 3.5).all() and (table["epochs_from"] == "records (2)").all()
    assert "| bbcsport | synthetic |" in text and "repset 3.5 (records (2))" in text and "2.0 s measured" in text
    assert "Finished records against the estimate" in text and "| bbcsport | repset | AMD EPYC | 2 |" in text
    requests = job_resources(tmp_path / "b.csv")
    assert set(requests) == {("bbcsport", "repset", p) for p in ("k2-m2", "k2-m3", "chosen")}
    assert requests[("bbcsport", "repset", "chosen")]["runtime"] == max(r["runtime"] for r in requests.values())
    assert all(r["runtime"] >= 10 and r["mem_mb"] >= 1000 for r in requests.values())
    assert job_resources(tmp_path / "absent.csv") == {}


def test_store_shape_times_the_stores_own_sets(tmp_path):
    store, lengths, split = tiny_store(tmp_path)
    shape = store_shape("bbcsport", str(store))
    assert shape.values == "store" and shape.dim == 4 and shape.n_classes == 3
    assert shape.train_sizes.tolist() == lengths[split["train"]].tolist() == shape.sets.lengths().tolist()
    assert len(shape.val_sets) == shape.n_val == len(split["val"])
    config = {"seed": 0, "solver": "numba", "data": {"wmd_mat_dir": None},
              "protocol": {"text_splits": 1, "graph_splits": 10, "seeds": [0]},
              "train": {"epochs": 5, "batch_size": 8, "lr": 0.01, "patience": 3},
              "models": {"repset": {"layer": "repset", "options": {}, "grid": {"n_hidden_sets": [2], "hidden_set_size": [2]}}}}
    table = write_budget([shape], config, tmp_path / "b.csv", tmp_path / "b.md", sample=8, start=1.0)
    assert table["values"].tolist() == ["store"] and "| bbcsport | store |" in (tmp_path / "b.md").read_text()


@pytest.mark.skipif(not (MIRROR / "SHA256SUMS").is_file(), reason="data mirror not present")
def test_graph_shape_from_the_raw_files():
    shape = graph_shape("MUTAG", str(MIRROR), dim=20, val_fraction=0.1, seed=0)
    # 188 graphs: fold 0 tests 19 (stratified), 10 % of the remaining 169 validate
    assert shape.dim == 20 and shape.n_classes == 2
    assert len(shape.train_sizes) + shape.n_val + 19 == 188 and shape.n_val in (16, 17, 18)
    assert 10 <= shape.train_sizes.min() and shape.train_sizes.max() <= 28


def test_relayout_writes_the_measured_page_again_without_timing(tmp_path, capsys):
    store, _, _ = tiny_store(tmp_path)
    config = {"seed": 0, "solver": "numba", "data": {"wmd_mat_dir": None}, "bench": {"budget_sample": 8},
              "datasets": {"text": ["bbcsport"], "graph": []},
              "protocol": {"text_splits": 2, "graph_splits": 10, "seeds": [0], "grid_splits": None},
              "train": {"epochs": 5, "batch_size": 8, "lr": 0.01, "patience": 3},
              "models": {"repset": {"layer": "repset", "options": {}, "grid": {"n_hidden_sets": [2, 3], "hidden_set_size": [2]}}}}
    write_budget([text_shape("bbcsport", str(store))], config, tmp_path / "b.csv", tmp_path / "b.md", sample=8, start=2.0)
    relayout_budget(tmp_path / "b.csv", config, tmp_path / "r.csv", tmp_path / "r.md")
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "r.csv"), pd.read_csv(tmp_path / "b.csv"))
    measured, again = (tmp_path / "b.md").read_text().splitlines(), (tmp_path / "r.md").read_text().splitlines()
    digest = hashlib.sha256((tmp_path / "b.csv").read_bytes()).hexdigest()[:12]   # the bytes it laid out
    assert again[4].startswith(f"Timings read from `b.csv` (sha256 {digest} when read)") and "not measured again" in again[4]
    assert again[:4] + again[6:] == measured and "2.0 s measured" in again[2]
    config["protocol"]["grid_splits"] = 1                                     # the grid on split 0 alone
    relayout_budget(tmp_path / "b.csv", config, tmp_path / "r.csv", tmp_path / "r.md")
    assert pd.read_csv(tmp_path / "r.csv")["runs"].tolist() == [1.5, 1.5]
    assert "CPU hours in 3 training jobs" in (tmp_path / "r.md").read_text()
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    with pytest.raises(SystemExit) as stop:                                   # the CLI names what is wrong
        main(["relayout", str(tmp_path / "b.csv"), str(tmp_path / "x.csv"), str(tmp_path / "x.md"),
              "--config", str(tmp_path / "c.yaml"), "--records", str(tmp_path / "absent.csv")])
    assert stop.value.code == 2 and "--records" in capsys.readouterr().err and not (tmp_path / "x.md").exists()

    main(["relayout", str(tmp_path / "b.csv"), str(tmp_path / "x.csv"), str(tmp_path / "x.md"),
          "--config", str(tmp_path / "c.yaml")])
    assert (tmp_path / "x.md").read_text() == (tmp_path / "r.md").read_text() and "3 runs" in capsys.readouterr().out
    one_point = {"models": {"repset": {"grid": {"n_hidden_sets": [2]}}}}      # the k2-m3 row has no run then
    (tmp_path / "fewer.yaml").write_text(yaml.safe_dump(one_point))
    before = (tmp_path / "b.csv").read_bytes()
    with pytest.raises(SystemExit) as stop:                                   # in place, it would lose that row
        main(["relayout", str(tmp_path / "b.csv"), str(tmp_path / "b.csv"), str(tmp_path / "b.md"),
              "--config", str(tmp_path / "c.yaml"), "--configfile", str(tmp_path / "fewer.yaml")])
    assert stop.value.code == 2 and (tmp_path / "b.csv").read_bytes() == before
    assert "b.csv: 1 of its rows are not in the config's protocol" in capsys.readouterr().err
    main(["relayout", str(tmp_path / "b.csv"), str(tmp_path / "y.csv"), str(tmp_path / "y.md"),
          "--config", str(tmp_path / "c.yaml"), "--configfile", str(tmp_path / "fewer.yaml")])
    assert "1 rows, 2 runs; 1 of the table's rows not in the config's protocol" in capsys.readouterr().out

