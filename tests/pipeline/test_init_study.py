"""The initialisation study on a tiny store: the selected point, the configured init's rerun equal to
the protocol's run, the table, the latent-set tables side by side."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from repo_paths import ROOT
from set_checks import tiny_text_store

from repset.pipeline.init_study import init_study_table, latent_sets_side_by_side, train_init_run
from repset.pipeline.train import read_record, train_split
from repset.protocol.init_study import InitRun, init_settings, selection_inputs
from repset.protocol.jobs import model_runs, run_settings


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("study")
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["datasets"] = {"text": ["bbcsport"], "graph": []}
    config["protocol"].update(text_splits=2, grid_splits=None)
    config["train"] = {"epochs": 4, "batch_size": 16, "lr": 0.01, "patience": 4}
    config["models"] = {"repset": {"layer": "repset", "options": {}, "train": {"lr": 0.05},
                                   "grid": {"n_hidden_sets": [2, 3], "hidden_set_size": [2]}}}
    config["init_study"] = {"model": "repset", "inits": ["uniform", "scaled"], "datasets": ["bbcsport"],
                            "splits": None, "latent_sets": None}
    store = str(tiny_text_store(tmp / "bbcsport.test.npz"))
    for run in model_runs(config, "bbcsport", "repset", seed=0):
        train_split(store, run, run_settings(config, "repset", run.point), tmp / run.path)
    records = {}
    for init in ("uniform", "scaled"):
        for split in (0, 1):
            run = InitRun("bbcsport", init, split, 0)
            records[init, split] = train_init_run(store, run, init_settings(config),
                                                  [tmp / p for p in selection_inputs(config, run)], tmp / run.path)
    return config, tmp, records


def test_each_init_trains_the_point_validation_selected(study):
    config, tmp, records = study
    for split in (0, 1):
        protocol = [read_record(tmp / p) for p in selection_inputs(config, InitRun("bbcsport", "uniform", split, 0))]
        best = min(protocol, key=lambda r: (r["val"]["error"], r["val"]["loss"]))
        for init in ("uniform", "scaled"):
            r = records[init, split]
            assert r["point"] == best["point"] and r["layer_options"]["init"] == init
            assert r["selected_run"] == {"point": best["point"], "init": "uniform", "val_error": best["val"]["error"],
                                         "test_error": best["test"]["error"]}
        # the configured init's rerun is the protocol's own run: same metrics and history
        rerun = records["uniform", split]
        for key in ("val", "test", "train", "best_epoch", "epochs_run"):
            assert rerun[key] == best[key]
    saved = json.loads((tmp / InitRun("bbcsport", "scaled", 1, 0).path).read_text())
    assert saved["init"] == "scaled" and saved["provenance"]["config"]["init"] == "scaled"


def test_records_measure_movement_and_alignment(study):
    _, _, records = study
    for r in records.values():
        assert -1 <= r["hidden_movement"]["cosine_to_initial"] <= 1 and r["hidden_movement"]["displacement_norm"] > 0
        assert set(r["class_alignment"]) == {"trained", "initial", "displacement", "random"}
        assert all(-1 <= v <= 1 for v in r["class_alignment"].values())


def test_study_table(study, tmp_path):
    _, _, records = study
    table = init_study_table(list(records.values()), "uniform", tmp_path / "init_study")
    assert list(table.index) == [("BBCSPORT", "uniform"), ("BBCSPORT", "scaled")]
    assert (table["splits"] == 2).all() and (table["metric"] == "error %").all()
    errors = {init: [records[init, s]["test"]["error"] * 100 for s in (0, 1)] for init in ("uniform", "scaled")}
    assert table.loc[("BBCSPORT", "scaled"), "mean"] == pytest.approx(np.mean(errors["scaled"]))
    assert table.loc[("BBCSPORT", "scaled"), "std"] == pytest.approx(np.std(errors["scaled"]))
    gain = np.mean(np.subtract(errors["uniform"], errors["scaled"]))          # lower error: a positive gain
    assert table.loc[("BBCSPORT", "scaled"), "gain over uniform (pp)"] == pytest.approx(gain)
    assert table.loc[("BBCSPORT", "uniform"), "gain over uniform (pp)"] == 0
    paper_mean, paper_std = table.loc[("BBCSPORT", "uniform"), ["paper", "paper std"]]
    assert (paper_mean, paper_std) == (2.00, 0.89)
    assert table.loc[("BBCSPORT", "uniform"), "gain over paper (sigma)"] == pytest.approx(
        (paper_mean - np.mean(errors["uniform"])) / paper_std)
    assert (tmp_path / "init_study.md").read_text().count("BBCSPORT") == 2


def test_latent_tables_side_by_side(tmp_path):
    for init, words in (("uniform", "a, b"), ("scaled", "c")):
        pd.DataFrame({"hidden_set": [1, 2], "hidden_set_index": [4, 0], "element_words": [words, "d"]}).to_csv(
            tmp_path / f"{init}.csv", index=False)
    table = latent_sets_side_by_side({i: tmp_path / f"{i}.csv" for i in ("uniform", "scaled")}, tmp_path / "by_init")
    assert list(table.index) == [("uniform", 1), ("uniform", 2), ("scaled", 1), ("scaled", 2)]
    assert table.loc[("scaled", 1), "element_words"] == "c"
    assert "hidden_set_index" not in pd.read_csv(tmp_path / "by_init.csv").columns


def test_protocol_records_of_another_store_are_refused(study, tmp_path):
    config, tmp, _ = study
    run = InitRun("bbcsport", "scaled", 0, 0)
    records = []
    for path in selection_inputs(config, run):
        record = json.loads((tmp / path).read_text())
        record["store_meta"]["sha256"] = "0" * 64            # as if trained on other data
        (tmp_path / Path(path).name.replace(".json", f"_{len(records)}.json")).write_text(json.dumps(record))
        records.append(tmp_path / Path(path).name.replace(".json", f"_{len(records)}.json"))
    with pytest.raises(ValueError, match="trained on a store with sha256 000000000000"):
        train_init_run(str(tmp / "bbcsport.test.npz"), run, init_settings(config), records, tmp_path / "out.json")
