"""Training stage end to end on a tiny store: run records, aggregation, report tables."""
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from repo_paths import ROOT
from set_checks import tiny_text_store
from repset.datasets.registry import random_splits
from repset.datasets.store import load_collection, load_store, read_sidecar, save_store
from repset.pipeline.train import aggregate_runs, grid_choice, train_split
from repset.protocol.grid import run_grid
from repset.protocol.jobs import CHOSEN, Run, grid_choice_inputs, grid_choice_path, model_runs, run_settings
from repset.protocol.plan import layer_options, train_settings
from repset.training.trainer import TrainConfig
from repset.report.document import comparison, ours_long, result_tables, write_report


@pytest.fixture
def setup(tmp_path):
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["protocol"]["text_splits"] = 2
    config["protocol"]["grid_splits"] = None   # the whole grid on both splits
    config["train"] = {"epochs": 3, "batch_size": 16, "lr": 0.01, "patience": 3}
    config["models"] = {"repset": {"layer": "repset", "options": {}, "grid": {"n_hidden_sets": [3, 4], "hidden_set_size": [2]}},
                        "approx_repset": {"layer": "approx_repset", "options": {"form": "official", "n_hidden_sets": 3, "hidden_set_size": 2}, "grid": {}}}
    store = tiny_text_store(tmp_path / "bbcsport.test.npz")
    return config, store, tmp_path


def train_all(config, store, dataset="bbcsport"):
    """Every job of the config on ``store`` in DAG order (searched splits, grid choice, chosen splits)."""
    files = []
    for model in config["models"]:
        for run in model_runs(config, dataset, model, seed=0):
            out = store.parent / run.path
            choice = None
            if run.point == CHOSEN:
                choice = store.parent / grid_choice_path(dataset, model, 0)
                if not choice.exists():
                    grid_choice([store.parent / p for p in grid_choice_inputs(config, dataset, model, 0)], choice)
            train_split(str(store), run, run_settings(config, model, run.point), out, choice=choice)
            files.append(out)
    return files


def test_train_aggregate_report(setup):
    config, store, tmp = setup
    files = train_all(config, store)
    assert len(files) == 2 * 2 + 2
    saved = json.loads(files[0].read_text())
    assert saved["provenance"]["config"]["options"]["solver"] == config["solver"]
    assert (saved["dataset"], saved["model"], saved["split"], saved["point"], saved["seed"]) == ("bbcsport", "repset", 0, "k2-m3", 0)
    assert saved["store"] == str(store) and saved["grid_choice"] is None
    summary = aggregate_runs(files, tmp / "runs.csv", tmp / "sel.csv", tmp / "sum.csv", tmp / "training.csv")
    assert sorted(summary["model"]) == ["approx_repset", "repset"] and (summary["splits"] == 2).all()
    assert len(pd.read_csv(tmp / "runs.csv")) == 6 and len(pd.read_csv(tmp / "sel.csv")) == 4
    training = pd.read_csv(tmp / "training.csv", dtype={"max_elements": "Int64"})   # one path, as each record says
    recorded = saved["train_config"]
    taken = recorded["distinct_elements"] and "element_ids" in saved["store_meta"]["layout"]
    assert training.astype(object).where(training.notna(), None).to_dict("records") == [
        {"dataset": "bbcsport", "distinct_elements": taken, "ragged": recorded["ragged"],
         "max_elements": recorded["max_elements"], "device": "cpu",
         "store": read_sidecar(store)["sha256"], "runs": 6}]                        # the store it read
    ours = ours_long(summary)
    tables = result_tables(ours, tmp, ["bbcsport"], ["MUTAG"])
    assert "RepSet" in tables["text"].index and "S-WMD (reported)" in tables["text"].index
    assert "DiffPool (reported)" in tables["graph"].index
    comp = comparison(ours)
    assert set(comp["method"]) == {"RepSet", "ApproxRepSet"} and comp["mean_paper"].notna().all()
    report = write_report(tmp / "REPORT.md", config=config, ours=ours, tables=tables,
                          store_metas={"bbcsport.test": {"vectors": "test"}}, training=training)
    text = report.read_text()
    assert "## Paper vs reproduced" in text and "RepSet" in text and "config sha256" in text
    assert "- training as recorded (the runs' `train_config` and store): " in text and "runs per device: cpu 6" in text


#: what differs between two runs of the same job: wall-clock timings and where the record was made
TIMINGS = {"train_seconds", "epoch_seconds_median"}
SPLIT_JOB_ONLY = {"seed", "grid_choice", "store", "store_meta", "provenance"}


def test_split_jobs_equal_the_in_process_protocol(setup):
    """The same seed, split and grid point give the same record as the whole grid trained in one process
    (run_grid), the grid choice of later splits included; only timings differ."""
    config, store, tmp = setup
    config["protocol"]["text_splits"], config["protocol"]["grid_splits"] = 3, 1
    coll = load_collection(store)[0]
    coll.splits = random_splits(coll.labels, 3, seed=0)
    store = save_store(tmp / "three" / "bbcsport.test.npz", coll)
    files = train_all(config, store)
    data, splits, _ = load_store(store)
    for model in config["models"]:
        reference = run_grid(data, splits, config["models"][model]["layer"], layer_options(config, model),
                             TrainConfig(**train_settings(config, model)), 0, {"dataset": "bbcsport", "model": model},
                             grid_splits=1)
        ours = [json.loads(f.read_text()) for f in files if f"/{model}/" in str(f)]
        assert [(r["split"], r["point"]) for r in ours] == [(r["split"], r["point"]) for r in reference]
        for mine, theirs in zip(ours, reference):
            strip = lambda r: {k: v for k, v in r.items() if k not in TIMINGS | SPLIT_JOB_ONLY}
            assert json.loads(json.dumps(strip(mine))) == json.loads(json.dumps(strip(theirs)))
    chosen = json.loads((store.parent / grid_choice_path("bbcsport", "repset", 0)).read_text())
    assert chosen["point"] in ("k2-m3", "k2-m4") and list(chosen["per_split"]) == ["0"]


def test_a_truncated_record_is_named(setup, tmp_path):
    broken = tmp_path / "split0_seed0.json"
    broken.write_text('{"dataset": "bbc')
    with pytest.raises(ValueError, match="split0_seed0.json: not a valid JSON record"):
        aggregate_runs([broken], tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv")


def test_a_chosen_run_needs_its_grid_choice(setup):
    config, store, tmp = setup
    with pytest.raises(ValueError, match="needs the grid-choice file"):
        train_split(str(store), Run("bbcsport", "repset", CHOSEN, 1, 0), run_settings(config, "repset", CHOSEN),
                    tmp / "x.json")


def test_records_describe_the_store_without_copying_its_data(setup):
    config, store, tmp = setup
    run = Run("bbcsport", "repset", "k2-m3", 0, 0)
    record = train_split(str(store), run, run_settings(config, "repset", "k2-m3"), tmp / "r.json")
    assert not {"vocab", "element_ids", "counts"} & set(record["store_meta"])
    assert record["store_meta"]["sha256"] == json.loads(store.with_suffix(".json").read_text())["sha256"]
    diff = len(json.dumps(record["provenance"].get("git_diff", "")))   # a dirty tree's code change (test_worktree)
    assert (tmp / "r.json").stat().st_size - diff < 20_000


def test_a_pack_writes_each_record_as_its_own_job_would(setup):
    """One process trains several runs (a pack) and writes records equal, field by field, to the train
    rule's one-run jobs, but for timings (and the record path, which differs by folder)."""
    from repset.pipeline.train import train_pack

    config, store, tmp = setup
    jobs = [{"run": vars(run), "settings": run_settings(config, "repset", run.point), "out": str(tmp / "pack" / run.path)}
            for run in model_runs(config, "bbcsport", "repset", seed=0)]
    packed = train_pack(str(store), list(reversed(jobs)))[::-1]   # another order: no state carries over
    for job, record in zip(jobs, packed):
        alone = train_split(str(store), Run(**job["run"]), job["settings"], tmp / "alone.json")
        assert json.loads(Path(job["out"]).read_text()) == json.loads(json.dumps(record))
        assert set(record) == set(alone)
        for key in set(record) - TIMINGS - {"provenance"}:
            assert record[key] == alone[key], key
        assert record["provenance"] == alone["provenance"]


def test_aggregating_no_runs_says_the_config_names_none(tmp_path):
    with pytest.raises(ValueError, match=r"no run records to aggregate: .*datasets\.text, datasets\.graph.*models"):
        aggregate_runs([], tmp_path / "runs.csv", tmp_path / "sel.csv", tmp_path / "sum.csv")
    assert list(tmp_path.iterdir()) == []


def test_a_cuda_job_on_a_machine_without_cuda_names_the_config_key(setup, monkeypatch):
    config, store, tmp = setup
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    config["models"]["repset"]["train"] = {"device": "cuda"}
    with pytest.raises(ValueError, match=r"config key 'train.device' \(or its override 'models.repset.train.device'\)"):
        train_split(str(store), Run("bbcsport", "repset", "k2-m3", 0, 0), run_settings(config, "repset", "k2-m3"),
                    tmp / "r.json")
    assert not (tmp / "r.json").exists()


def test_a_dataset_folder_refuses_records_of_another_store(setup):
    """A store rebuilt with other values (another machine's kernels) cannot add records beside those of the
    store they were trained on: the error names both sha256 and the record; nothing is written."""
    config, store, tmp = setup
    first, second = (Run("bbcsport", "repset", "k2-m3", split, 0) for split in (0, 1))
    settings = run_settings(config, "repset", "k2-m3")
    train_split(str(store), first, settings, tmp / first.path)
    old_sha = json.loads(store.with_suffix(".json").read_text())["sha256"]
    coll, _ = load_collection(store)
    coll.values = coll.values + 1e-3
    save_store(store, coll)
    new_sha = json.loads(store.with_suffix(".json").read_text())["sha256"]
    assert new_sha != old_sha
    with pytest.raises(ValueError, match=rf"sha256 {new_sha}, but .*split0_seed0\.json was trained on a store with "
                                         rf"sha256 {old_sha}: this dataset's records would mix two stores"):
        train_split(str(store), second, settings, tmp / second.path)
    assert not (tmp / second.path).exists()
    train_split(str(store), second, settings, tmp / "elsewhere" / second.path)   # a folder of its own: no records
    assert (tmp / "elsewhere" / second.path).exists()


def test_the_store_check_reads_only_a_protocol_record_folder(setup, tmp_path):
    """A file outside the protocol's layout (a rerun's scratch ``rerun.json``, a folder named for another
    dataset) is no dataset folder: nothing there is read as a record."""
    from repset.pipeline.train import check_store_of_records

    config, store, tmp = setup
    junk = tmp_path / "a" / "b" / "c.json"
    junk.parent.mkdir(parents=True)
    junk.write_text("not json")                       # read as a record, it would raise
    check_store_of_records(store, tmp_path / "x" / "rerun.json", "bbcsport")
    check_store_of_records(store, tmp_path / "a" / "b" / "split0_seed0.json", "bbcsport")
    check_store_of_records(store, tmp_path / "other" / "m" / "p" / "split0_seed0.json", "bbcsport")


def test_a_job_checks_it_can_write_its_record_before_it_trains(setup, monkeypatch):
    """A read-only record folder fails the job at its start, naming the folder; nothing is trained (a pack:
    not even the runs whose folders are writable)."""
    from read_only import read_only

    from repset.pipeline.train import train_pack

    config, store, tmp = setup
    trained = []
    monkeypatch.setattr("repset.pipeline.train.train_run", lambda *a, **k: trained.append(a) or pytest.fail("trained"))
    run = Run("bbcsport", "repset", "k2-m3", 0, 0)
    out = tmp / run.path
    jobs = [{"run": vars(r), "settings": run_settings(config, "repset", r.point), "out": str(tmp / r.path)}
            for r in model_runs(config, "bbcsport", "repset", seed=0)]
    with read_only(out.parent):
        with pytest.raises(PermissionError, match=rf"{out.parent}: cannot write split0_seed0.json there .*"
                                                  r"\(nothing was trained\)"):
            train_split(str(store), run, run_settings(config, "repset", "k2-m3"), out)
        with pytest.raises(PermissionError, match=r"nothing of the pack was trained"):
            train_pack(str(store), list(reversed(jobs)))                 # the read-only folder's run comes last
    assert trained == [] and not list(tmp.glob("results/runs/**/*.json"))


def test_a_record_from_a_dirty_tree_holds_the_diff_of_its_code(setup, monkeypatch, tmp_path):
    """The record of a run trained from uncommitted code holds that code's diff and its sha256, which the
    record checks agree with (:func:`repset.pipeline.archive.contradictions`)."""
    import hashlib
    import subprocess

    from repset.pipeline.archive import contradictions
    from repset.provenance import COMMIT_ENV

    config, store, tmp = setup
    repo = tmp_path / "checkout"
    repo.mkdir()
    (repo / "layer.py").write_text("WIDTH = 2\n")
    for args in (["init", "-q"], ["add", "."],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    (repo / "layer.py").write_text("WIDTH = 3\n")
    monkeypatch.delenv(COMMIT_ENV, raising=False)
    monkeypatch.setattr("repset.pipeline.worktree.CHECKOUT", repo)
    record = train_split(str(store), Run("bbcsport", "repset", "k2-m3", 0, 0), run_settings(config, "repset", "k2-m3"),
                         tmp / "r.json")
    provenance = record["provenance"]
    assert "+WIDTH = 3" in provenance["git_diff"]
    assert provenance["git_diff_sha256"] == hashlib.sha256(provenance["git_diff"].encode()).hexdigest()
    assert contradictions(record) == []
    assert contradictions({**record, "provenance": {**provenance, "git_diff": "+WIDTH = 4"}}) == [
        "provenance.git_diff does not have its git_diff_sha256"]


def test_a_pack_skips_a_record_another_process_wrote_since_it_was_planned(tmp_path, monkeypatch):
    """Two packs over overlapping splits: a job whose record appeared while the pack ran is not trained again
    (``skip_existing``); without it, every job trains."""
    from repset.pipeline import train

    outs = [tmp_path / f"r{i}.json" for i in range(3)]
    trained = []

    def fake_split(store, run, settings, out, choice=None):
        trained.append(Path(out).name)
        Path(out).write_text("{}")
        if Path(out) == outs[0]:
            outs[1].write_text("{}")            # the other process finishes the next job meanwhile
        return {"out": str(out)}

    monkeypatch.setattr(train, "train_split", fake_split)
    jobs = [{"run": Run("bbcsport", "nn_max", "default", i, 0), "settings": {}, "out": str(o)} for i, o in enumerate(outs)]
    assert [r["out"] for r in train.train_pack("store", jobs, skip_existing=True)] == [str(outs[0]), str(outs[2])]
    assert trained == ["r0.json", "r2.json"]
    for o in outs:
        o.unlink()
    trained.clear()
    assert len(train.train_pack("store", jobs)) == 3 and trained == ["r0.json", "r1.json", "r2.json"]
