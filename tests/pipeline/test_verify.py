"""Recorded jobs rerun on their recorded path and kernels; differences are named field by field, with a cause."""
import json

import pytest

from repset.pipeline.verify import COMPUTES, _cause, differences, kernel_environment
from repset.provenance import COMMIT_ENV, cpu_description, cpu_kind


def test_differences_are_named_leaf_by_leaf():
    old = {"test": {"error": 0.3, "loss": 1.0}, "epochs_run": 5, "train_seconds": 3.0}
    new = {"test": {"error": 0.31, "loss": 1.0}, "epochs_run": 5, "train_seconds": 9.0, "hidden_movement": 0.2}
    assert differences(old, new) == (["test.error: 0.3 -> 0.31"], ["hidden_movement"])   # timings not compared


def machine(capability, model="AMD EPYC", env=None):
    return {"machine": {"torch_cpu_capability": capability, "cpu": {"model": model, "vendor": "v", "flags": []},
                        "blas": "MKL 2024.2", "kernel_env": env or {}}}


def test_kernels_are_forced_where_this_machine_has_them():
    assert kernel_environment({"provenance": machine("AVX2")}, "AVX512") == ({"ATEN_CPU_CAPABILITY": "avx2"}, "AVX2 forced")
    assert kernel_environment({"provenance": machine("AVX512")}, "AVX512") == ({"ATEN_CPU_CAPABILITY": "avx512"}, "AVX512")
    env, note = kernel_environment({"provenance": machine("AVX512", env={"MKL_CBWR": "AVX2"})}, "AVX2")
    assert env == {"MKL_CBWR": "AVX2"} and note == "recorded AVX512 not available here (AVX2)"
    assert kernel_environment({"provenance": {}}, "AVX2")[0] == {}


def test_a_difference_is_told_apart_by_what_differs_in_provenance():
    same = {"git_commit": "a" * 40, "packages": {"torch": "2.13.0"}, **machine("AVX2")}
    diff = ["test.error: 0.3 -> 0.31", "train.loss: 0.25 -> 0.2500001"]          # the training differs too
    assert _cause({"provenance": same}, {"provenance": same}, []) == "-"
    assert _cause({"provenance": same}, {"provenance": {**same, **machine("AVX512")}}, diff) == \
        "torch_cpu_capability AVX2 -> AVX512"
    assert _cause({"provenance": same}, {"provenance": {**same, **machine("AVX2", model="Intel Xeon")}}, diff) == \
        "CPU AMD EPYC -> Intel Xeon (BLAS code path)"
    zen = {**same, "machine": {**same["machine"], "cpu": {**same["machine"]["cpu"], "family": "26", "model_id": "2"}}}
    assert _cause({"provenance": same}, {"provenance": zen}, diff) == \
        "CPU AMD EPYC -> AMD EPYC (family 26, model 2) (BLAS code path)"     # one name, another family
    assert _cause({"provenance": same}, {"provenance": {**same, "git_commit": "b" * 40 + "+dirty"}}, diff) == \
        "code aaaaaaa -> bbbbbbb"
    assert _cause({"provenance": same}, {"provenance": same}, diff) == f"{COMPUTES}: same code, kernels and packages"
    old = {k: v for k, v in same.items() if k != "machine"}
    assert _cause({"provenance": old}, {"provenance": same}, diff).startswith("kernels unknown")


def test_a_result_unlike_its_rerun_on_the_recorded_kernels_is_blamed_on_the_record():
    """The rerun's kernel environment holds the ``ATEN_CPU_CAPABILITY`` verify itself set to the recorded
    capability: no kernel difference. A record whose results alone differ (its training repeats bit for bit)
    differs from what its code computes, and so does one whose fields contradict each other."""
    recorded = {"git_commit": "a" * 40, "packages": {"torch": "2.13.0"}, **machine("AVX2")}
    env, _ = kernel_environment({"provenance": recorded}, "AVX2")
    rerun = {**recorded, **machine("AVX2", env=env)}
    edited = ["test.error: 0.5 -> 0.3"]
    assert _cause({"provenance": recorded}, {"provenance": rerun}, edited, env) == \
        f"{COMPUTES}: same code, kernels and packages"
    retrained = edited + ["train.loss: 1 -> 2"]
    assert "kernel_env" not in _cause({"provenance": recorded}, {"provenance": rerun}, retrained, env)
    assert "kernel_env" in _cause({"provenance": recorded}, {"provenance": rerun}, edited, {})   # set by someone else
    other = {**recorded, **machine("AVX2", model="Intel Xeon")}        # another CPU, yet the training repeats
    assert _cause({"provenance": recorded}, {"provenance": other}, edited, env).startswith(
        f"{COMPUTES}: its training repeats bit for bit and only its results differ (besides: CPU AMD EPYC")
    contradicting = {"provenance": recorded, "test": {"error": 0.5, "accuracy": 0.7}}
    assert _cause(contradicting, {"provenance": other}, edited, env) == \
        f"{COMPUTES}: its fields contradict each other (test accuracy 0.7 beside test error 0.5)"


def test_verify_reruns_recorded_jobs_and_names_what_differs(tmp_path, monkeypatch):
    import yaml
    from repo_paths import ROOT
    from set_checks import tiny_text_store

    from repset.pipeline.record import export_records
    from repset.pipeline.train import grid_choice, train_split
    from repset.pipeline.verify import verify_records
    from repset.protocol.jobs import CHOSEN, grid_choice_inputs, grid_choice_path, model_runs, run_settings

    monkeypatch.chdir(tmp_path)                       # records name their store relative to the workflow root
    monkeypatch.setenv(COMMIT_ENV, "c0ffee1")         # one code for records and reruns while the tree is edited
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
    table = verify_records("reproduction", runs=3, seed=0, this_cpu=True)     # every record was trained here
    assert len(table) == 3 and table["identical"].all() and (table["differing fields"] == "-").all()
    assert (table["trained on"] == cpu_kind(cpu_description())).all()
    assert any("chosen" in r for r in table["record"])                 # a chosen split reruns from its grid choice
    assert (table["training options"] == "distinct_elements=False, ragged=False, max_elements=None").all()
    assert (table["path taken"] == "padded").all()
    # a record of older code (no distinct_elements, no machine) reruns identically, on padded batches as it
    # was trained, and the keys the newer code adds are named
    for path in (tmp_path / "results/runs").rglob("split*.json"):
        record = json.loads(path.read_text())
        assert record["train_config"].pop("distinct_elements") is False
        assert record["provenance"].pop("machine")["torch_threads"] == record["torch_threads"]
        path.write_text(json.dumps(record))
    export_records("results/runs", "reproduction", replace=True)      # the archived records are older code's now
    with pytest.raises(ValueError, match=r"0 cpu run records trained on .*, fewer than the 1 asked for"):
        verify_records("reproduction", runs=1, this_cpu=True)           # they no longer name a CPU
    with monkeypatch.context() as m:                                    # a machine whose CPU has no name matches none
        m.setattr("repset.pipeline.verify.cpu_description", lambda: {"model": None})
        with pytest.raises(ValueError, match="--this-cpu: this machine's CPU has no name"):
            verify_records("reproduction", runs=1, this_cpu=True)
    table = verify_records("reproduction", runs=1, seed=0)
    assert (table["trained on"] == "not named").all()
    assert table["identical"].all() and (table["fields added by this code"] == "train_config.distinct_elements").all()
    assert table["kernels"].str.startswith("not recorded").all()
    assert (table["training options"].str.startswith("distinct_elements=False (legacy)")).all()
    # a record that does not match its rerun is named, with the field, its two values and the cause
    path = tmp_path / "results/runs/bbcsport/repset/k2-m2/split0_seed0.json"
    tampered = json.loads(path.read_text())
    error, n = tampered["test"]["error"], tampered["sizes"]["test"]
    edited = (round(error * n) + 1) % (n + 1) / n                      # one test set more wrong (or none)
    tampered["test"].update(error=edited, accuracy=1 - edited)         # consistent: export takes it
    path.write_text(json.dumps(tampered))
    export_records("results/runs", "reproduction", replace=True)
    row = verify_records("reproduction", names=["bbcsport/repset/k2-m2/split0_seed0.json"]).iloc[0]
    assert not row["identical"] and f"test.error: {edited!r} -> {error!r}" in row["differing fields"]
    assert row["cause"].startswith(f"{COMPUTES}: its training repeats bit for bit")
    with pytest.raises(ValueError, match="3 cpu run records, fewer than the 4 asked for"):
        verify_records("reproduction", runs=4)
    with pytest.raises(ValueError, match="no cpu run record bbcsport/nope.json"):
        verify_records("reproduction", names=["bbcsport/nope.json"])
