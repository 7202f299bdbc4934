"""Runs on record against the protocol: exact counts per dataset and model, reductions, extras, WMD splits."""
import json

import pandas as pd
import pytest
import yaml

from repo_paths import ROOT
from repset.pipeline import progress, record
from repset.protocol.budget import seconds_per_run
from repset.protocol.jobs import runs


@pytest.fixture
def config():
    c = yaml.safe_load((ROOT / "config.yaml").read_text())
    c["datasets"] = {"text": ["bbcsport", "twitter"], "graph": ["MUTAG"]}
    c["protocol"].update(text_splits=2, graph_splits=100, grid_splits=None,
                         per_dataset={"MUTAG": {"graph_splits": 10, "grid_splits": 1}})
    c["models"] = {"repset": {"layer": "repset", "options": {}, "grid": {"n_hidden_sets": [2, 3], "hidden_set_size": [2]}},
                   "nn_max": c["models"]["nn_max"]}
    c["wmd"] = {"datasets": ["bbcsport"]}
    return c


def _record_dir(tmp_path, config, paths_seconds_cpu):
    rows = [{"path": p.removeprefix("results/runs/"), "train_seconds": s, "cpu": cpu, "device": "cpu"}
            for p, s, cpu in paths_seconds_cpu]
    pd.DataFrame(rows).to_csv(tmp_path / "runs.csv", index=False)     # no runs: a bare newline, as export writes
    return tmp_path


def test_the_stores_a_models_runs_read_are_counted(config, tmp_path):
    """runs.csv's store column by model, most runs first: a dataset whose record moved to another store shows two;
    a runs.csv without the column shows none."""
    bbc = [r.path for r in runs(config, ["bbcsport"]) if r.model == "repset"]
    rows = [{"path": p.removeprefix("results/runs/"), "train_seconds": 1, "cpu": "c", "device": "cpu",
             "storesha256_of": sha} for p, sha in zip(bbc, ["a" * 64, "b" * 64, "b" * 64, None])]
    pd.DataFrame(rows).to_csv(tmp_path / "runs.csv", index=False)
    table = progress.progress_table(tmp_path, config).set_index(["dataset", "model"])
    assert table.loc[("bbcsport", "repset"), "stores"] == "bbbbbbbbbbbb 2, aaaaaaaaaaaa 1"
    assert table.loc[("bbcsport", "nn_max"), "stores"] == "" and table.loc[("bbcsport", "wmd"), "stores"] == ""
    pd.DataFrame(rows).drop(columns="storesha256_of").to_csv(tmp_path / "runs.csv", index=False)
    assert progress.progress_table(tmp_path, config).set_index(["dataset", "model"]).loc[
        ("bbcsport", "repset"), "stores"] == ""


def test_counts_hours_machines_and_extras_per_dataset_and_model(config, tmp_path):
    bbc = [r.path for r in runs(config, ["bbcsport"]) if r.model == "repset"]
    mutag = [r.path for r in runs(config, ["MUTAG"]) if r.model == "repset"]
    assert len(bbc) == 4 and len(mutag) == 11          # 2 splits x 2 points; fold 0's grid + 9 chosen
    outside = "results/runs/MUTAG/repset/k2-m2/split55_seed0.json"   # a full protocol's run, not the reduced one's
    folder = _record_dir(tmp_path, config, [(bbc[0], 1800, "AMD EPYC"), (bbc[1], 1800, "AMD EPYC"),
                                            (bbc[2], 3600, "Intel Xeon"), (mutag[0], 7200, None), (outside, 99, None)])
    (folder / "wmd" / "splits" / "twitter").mkdir(parents=True)
    (folder / "wmd" / "splits" / "twitter" / "split1.json").write_text("{}")
    (folder / "wmd" / "splits" / "MUTAG" / "split0.blocks").mkdir(parents=True)     # not a text dataset: no row
    (folder / "wmd" / "splits" / "MUTAG" / "split0.blocks" / "val-K19-0-64.npz").write_bytes(b"")
    table = progress.progress_table(folder, config).set_index(["dataset", "model"])
    assert table.loc[("bbcsport", "repset"), ["on_record", "protocol", "extra"]].tolist() == [3, 4, 0]
    assert table.loc[("bbcsport", "repset"), "train_hours"] == pytest.approx(2.0)
    assert table.loc[("bbcsport", "repset"), "machines"] == "AMD EPYC 2, Intel Xeon 1"
    assert table.loc[("bbcsport", "nn_max"), ["on_record", "protocol"]].tolist() == [0, 2]
    assert table.loc[("MUTAG", "repset"), ["on_record", "protocol", "extra"]].tolist() == [1, 11, 1]
    assert table.loc[("MUTAG", "repset"), "machines"] == "CPU not named 1"
    # WMD: planned on bbcsport (none yet), one split checkpointed on twitter; no row for MUTAG
    assert table.loc[("bbcsport", "wmd"), ["on_record", "protocol"]].tolist() == [0, 2]
    assert table.loc[("twitter", "wmd"), ["on_record", "protocol"]].tolist() == [1, 2]
    assert ("MUTAG", "wmd") not in table.index
    blocks = folder / "wmd" / "splits" / "bbcsport" / "split0.blocks"               # a search under way
    blocks.mkdir(parents=True)
    (blocks / "test-K5-0-64.npz").write_bytes(b"")
    config["wmd"]["datasets"] = []
    assert progress.progress_table(folder, config).set_index(["dataset", "model"]).loc[("bbcsport", "wmd"), "on_record"] == 0
    config["wmd"]["datasets"] = ["bbcsport"]
    (folder / "wmd" / "bbcsport.json").write_text(json.dumps({"splits": []}))
    assert progress.progress_table(folder, config).set_index(["dataset", "model"]).loc[("bbcsport", "wmd"), "on_record"] == 2
    budget = pd.DataFrame({"dataset": ["bbcsport"] * 3 + ["MUTAG"], "model": ["repset"] * 2 + ["nn_max", "repset"],
                           "point": ["k2-m2", "k2-m3", "default", "k2-m2"], "run_seconds": [360.0, 720.0, 1800.0, 36.0]})
    hours = progress.progress_table(folder, config, budget=budget).set_index(["dataset", "model"])["remaining_hours"]
    missing_bbc = {p.split("/")[-2] for p in bbc[3:]}        # the one bbcsport run not on record
    assert hours[("bbcsport", "repset")] == pytest.approx((360.0 if missing_bbc == {"k2-m2"} else 720.0) / 3600)
    assert hours[("bbcsport", "nn_max")] == pytest.approx(1.0)                     # 2 runs of 1,800 s
    # MUTAG: its grid's k2-m3 is not in the budget: no estimate (its chosen runs have one: the budget's mean)
    assert hours.isna()[("MUTAG", "nn_max")] and hours.isna()[("twitter", "repset")]
    plain = progress.progress_markdown(progress.progress_table(folder, config))
    assert "remaining_hours" not in plain and "budget" not in plain             # no budget, no such column
    marked = progress.progress_markdown(progress.progress_table(folder, config, budget=budget))
    more = 1.0 + hours[("bbcsport", "repset")]                                      # nn_max's 1 h + repset's run
    assert f"{more:.1f} more by the budget for bbcsport (twitter, MUTAG: no estimate)," in marked
    # the records' own seconds: bbcsport's missing k2-m3 run at its one record's 1,800 s; nn_max has no record
    # there, so its 2 runs stay at the budget's 1,800 s
    own = progress.progress_table(folder, config, budget=budget).set_index(["dataset", "model"])["remaining_hours_records"]
    assert own[("bbcsport", "repset")] == pytest.approx(0.5) and own[("bbcsport", "nn_max")] == pytest.approx(1.0)
    assert "1.5 more by the records' own seconds for bbcsport (twitter, MUTAG: no estimate)." in marked
    only = progress.progress_table(folder, config, models=["nn_max"])
    assert only["model"].tolist() == ["nn_max"] * 3 and only["protocol"].tolist() == [2, 2, 10]
    text = progress.progress_markdown(progress.progress_table(folder, config))
    # text: 2 x (4 + 2) runs; MUTAG: 11 + 10 (nn_max on the 10 folds); hours: 2 (bbcsport) + 2 (MUTAG)
    assert "In all: 4 of 33 protocol runs, 4.0 training hours." in text


def test_status_cli_writes_the_tables_and_names_a_missing_config(config, tmp_path):
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    (tmp_path / "rec").mkdir()
    folder = _record_dir(tmp_path / "rec", config, [])
    record.main(["status", str(folder), str(tmp_path / "c.yaml"), "--out", str(tmp_path / "status.md")])
    text = (tmp_path / "status.md").read_text()
    assert "In all: 0 of 33 protocol runs" in text and text.count("| MUTAG ") == 3   # its total, repset, nn_max
    with pytest.raises(SystemExit, match="--model repsett: not a model of the config"):
        record.main(["status", str(folder), str(tmp_path / "c.yaml"), "--model", "repsett"])
    with pytest.raises(SystemExit, match="nope.yaml: cannot read the config"):
        record.main(["status", str(folder), str(tmp_path / "nope.yaml")])


def test_records_seconds_scale_the_budget_by_the_records_own():
    budget = pd.DataFrame({"dataset": ["PROTEINS"] * 3 + ["MUTAG"], "model": ["repset"] * 3 + ["nn_max"],
                           "point": ["k2-m2", "k2-m3", "k3-m3", "default"], "run_seconds": [10.0, 20.0, 40.0, 5.0]})
    seconds = seconds_per_run(budget)
    records = pd.DataFrame({"path": ["PROTEINS/repset/k2-m2/split0_seed0.json", "PROTEINS/repset/k2-m2/split1_seed0.json",
                                     "PROTEINS/repset/k2-m3/split0_seed0.json", "MUTAG/deepsets/default/split0_seed0.json",
                                     "PROTEINS/repset/k2-m3/split1_seed0.json", "PROTEINS/repset/k9-m9/split0_seed0.json"],
                            "train_seconds": [4.0, 6.0, 12.0, 3.0, 1.0, 99.0],
                            "device": ["cpu", "cpu", None, "cpu", "cuda:0", "cpu"]})   # a GPU's run is left out
    own = progress.records_seconds(records, seconds)
    assert own[("PROTEINS", "repset", "k2-m2")] == 5.0 and own[("PROTEINS", "repset", "k2-m3")] == 12.0   # means
    assert own[("PROTEINS", "repset", "k3-m3")] == pytest.approx(40.0 * 0.55)   # budget x median(5/10, 12/20)
    assert own[("PROTEINS", "repset", "chosen")] == pytest.approx((5.0 + 12.0 + 22.0) / 3)   # the budget's grid only
    assert own[("PROTEINS", "repset", "k9-m9")] == 99.0               # a point outside the budget keeps its records
    assert own[("MUTAG", "nn_max", "default")] == 5.0                 # no record of the model: the budget's figure
    assert own[("MUTAG", "deepsets", "default")] == 3.0 and ("MUTAG", "deepsets", "chosen") not in own
    assert progress.records_seconds(records.iloc[:0], seconds) == {}
    named = records.assign(dataset=records["path"].str.split("/").str[0], model=records["path"].str.split("/").str[1],
                           point=records["path"].str.split("/").str[2], path="elsewhere.json")   # runs.csv's columns
    assert progress.records_seconds(named, seconds) == own


def test_records_naming_no_cpu_or_device_count_as_cpu_runs_without_a_model(config, tmp_path):
    """runs.csv columns left empty by every record (read back as float NaN) are counted, not a pandas error."""
    import warnings

    mutag = [r.path for r in runs(config, ["MUTAG"]) if r.model == "repset"][:3]
    record_dir = _record_dir(tmp_path, config, [(p, 2.0, None) for p in mutag])
    table = pd.read_csv(record_dir / "runs.csv")
    table["device"] = float("nan")
    table.to_csv(record_dir / "runs.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = progress.progress_table(record_dir, config, models=["repset"]).set_index(["dataset", "model"])
    assert out.loc[("MUTAG", "repset"), "on_record"] == 3
    assert out.loc[("MUTAG", "repset"), "machines"] == "CPU not named 3"
