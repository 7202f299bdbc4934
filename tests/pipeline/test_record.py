"""Run records packed into the repository and restored: same files, same bytes, conflicts named."""
import json

import pandas as pd
import pytest

from repset.pipeline.record import export_records, restore_records


def record(dataset, model, point, split):
    return {"dataset": dataset, "model": model, "point": point, "split": split, "seed": 0,
            "train_config": {"seed": 0}, "val": {"error": 0.1, "loss": 0.3}, "test": {"error": 0.2, "accuracy": 0.8},
            "epoch_seconds_median": 0.5, "epochs_run": 7, "best_epoch": 3, "train_seconds": 4.0,
            "store_meta": {"sha256": "ab" * 32}, "provenance": {"git_commit": "c0ffee", "config_sha256": "12" * 32}}


@pytest.fixture
def runs(tmp_path):
    root = tmp_path / "results" / "runs"
    for dataset, model, point, split in [("bbcsport", "repset", "k10-m20", 0), ("bbcsport", "repset", "chosen", 1),
                                         ("MUTAG", "deepsets", "default", 0)]:
        path = root / dataset / model / point / f"split{split}_seed0.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(record(dataset, model, point, split), indent=2))
    (root / "bbcsport" / "repset" / "grid_seed0.json").write_text(json.dumps({"point": "k10-m20"}))
    return root


def test_export_then_restore_gives_the_same_files(runs, tmp_path):
    table = export_records(runs, tmp_path / "reproduction")
    assert sorted((tmp_path / "reproduction" / "records").iterdir()) == [
        tmp_path / "reproduction" / "records" / "MUTAG.tar.gz", tmp_path / "reproduction" / "records" / "bbcsport.tar.gz"]
    assert len(table) == 3 and set(table["git_commit"]) == {"c0ffee"}            # the grid choice is no run
    assert len(pd.read_csv(tmp_path / "reproduction" / "runs.csv")) == 3
    fresh = tmp_path / "clone" / "results" / "runs"
    written = restore_records(tmp_path / "reproduction", fresh)
    assert len(written) == 4
    for path in runs.rglob("*.json"):
        assert (fresh / path.relative_to(runs)).read_bytes() == path.read_bytes()
    assert restore_records(tmp_path / "reproduction", fresh) == []                # nothing to do twice


def test_archives_are_deterministic(runs, tmp_path):
    export_records(runs, tmp_path / "a")
    export_records(runs, tmp_path / "b")
    for name in ("MUTAG.tar.gz", "bbcsport.tar.gz"):
        assert (tmp_path / "a" / "records" / name).read_bytes() == (tmp_path / "b" / "records" / name).read_bytes()


def test_a_differing_local_record_is_not_overwritten_silently(runs, tmp_path):
    export_records(runs, tmp_path / "reproduction")
    target = runs / "MUTAG" / "deepsets" / "default" / "split0_seed0.json"
    target.write_text("{}")
    with pytest.raises(ValueError, match="split0_seed0.json differs from"):
        restore_records(tmp_path / "reproduction", runs)
    restore_records(tmp_path / "reproduction", runs, overwrite=True)
    assert json.loads(target.read_text())["model"] == "deepsets"


def test_restore_can_take_one_dataset(runs, tmp_path):
    export_records(runs, tmp_path / "reproduction")
    fresh = tmp_path / "clone"
    written = restore_records(tmp_path / "reproduction", fresh, datasets=["MUTAG"])
    assert [p.relative_to(fresh).parts[0] for p in written] == ["MUTAG"]


def test_verify_reruns_recorded_jobs_and_names_what_differs(tmp_path, monkeypatch):
    import yaml
    from repo_paths import ROOT
    from set_checks import tiny_text_store

    from repset.pipeline.record import verify_records
    from repset.pipeline.train import grid_choice, train_split
    from repset.protocol.jobs import CHOSEN, grid_choice_inputs, grid_choice_path, model_runs, run_settings

    monkeypatch.chdir(tmp_path)                       # records name their store relative to the workflow root
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["protocol"].update(text_splits=2, grid_splits=1)
    config["train"] = {"epochs": 2, "batch_size": 16, "lr": 0.01, "patience": 2}
    config["models"] = {"repset": {"layer": "repset", "options": {}, "grid": {"n_hidden_sets": [2, 3], "hidden_set_size": [2]}}}
    store = "data/sets/bbcsport.test.npz"
    (tmp_path / "data" / "sets").mkdir(parents=True)
    tiny_text_store(tmp_path / store)
    for run in model_runs(config, "bbcsport", "repset", 0):            # 2 points on split 0, then split 1 chosen
        choice = None
        if run.point == CHOSEN:
            choice = grid_choice_path("bbcsport", "repset", 0)
            grid_choice(grid_choice_inputs(config, "bbcsport", "repset", 0), choice)
        train_split(store, run, run_settings(config, "repset", run.point), run.path, choice=choice)
    export_records("results/runs", "reproduction")
    table = verify_records("reproduction", runs=3, seed=0)
    assert len(table) == 3 and table["identical"].all() and (table["differing fields"] == "-").all()
    assert any("chosen" in r for r in table["record"])                 # a chosen split reruns from its grid choice
    # a record of older code (no distinct_elements in its train config) reruns identically, on padded
    # batches as it was trained, and the key the newer code adds is named
    for path in (tmp_path / "results/runs").rglob("*.json"):
        record = json.loads(path.read_text())
        if "train_config" in record:
            assert record["train_config"].pop("distinct_elements") is False
            path.write_text(json.dumps(record))
    export_records("results/runs", "reproduction")
    table = verify_records("reproduction", runs=3, seed=0)
    assert table["identical"].all() and (table["fields added by this code"] == "train_config.distinct_elements").all()
    # a record that does not match its rerun is named, with the field
    path = tmp_path / "results/runs/bbcsport/repset/k2-m2/split0_seed0.json"
    tampered = json.loads(path.read_text())
    tampered["test"]["error"] += 0.5
    path.write_text(json.dumps(tampered))
    export_records("results/runs", "reproduction")
    table = verify_records("reproduction", runs=3, seed=0)
    row = table[table["record"] == "bbcsport/repset/k2-m2/split0_seed0.json"].iloc[0]
    assert not row["identical"] and row["differing fields"] == "test"
    with pytest.raises(ValueError, match="3 cpu records, fewer than the 4 asked for"):
        verify_records("reproduction", runs=4)
