"""The Snakemake workflow: dry run of `all`, lint, and config validation errors naming the key."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from repo_paths import ROOT

SNAKEMAKE = shutil.which("snakemake") or str(Path(sys.executable).parent / "snakemake")
pytestmark = pytest.mark.skipif(not Path(SNAKEMAKE).exists(), reason="snakemake not installed")


def snakemake(*args):
    return subprocess.run([SNAKEMAKE, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_dry_run_all_plans_the_toy():
    out = snakemake("-n", "all", "--forceall", "--configfile", "quick.yaml")
    assert out.returncode == 0, out.stderr
    assert "toy" in out.stdout


def test_unlock_needs_no_cores(tmp_path):
    # in a folder of its own: unlocking the checkout could free a run in progress there
    shutil.copy(ROOT / "config.yaml", tmp_path)
    out = snakemake("--snakefile", str(ROOT / "workflow" / "Snakefile"), "--directory", str(tmp_path), "--unlock")
    assert out.returncode == 0 and "Unlocked working directory" in out.stdout + out.stderr, out.stderr


def test_split_jobs_refuse_targets_outside_the_protocol():
    run = "results/runs/bbcsport/repset/k5-m10/split0_seed0.json"
    ok = snakemake("-n", "--forceall", run, "--configfile", "quick.yaml")
    assert ok.returncode == 0 and "wildcards: dataset=bbcsport, model=repset, point=k5-m10, split=0, seed=0" in ok.stdout
    for bad, message in [(run.replace("split0", "splitabc"), "No rule to produce"),
                         (run.replace("bbcsport", "BBCSPORT"), "No rule to produce"),
                         (run.replace("split0", "split1"), "split 1 of bbcsport: the protocol has splits 0..0"),
                         (run.replace("k5-m10", "k7-m10"), "No rule to produce"),
                         (run.replace("repset/k5-m10", "deepsets/k5-m10"), "grid point 'k5-m10' is not in the grid of deepsets")]:
        out = snakemake("-n", bad, "--configfile", "quick.yaml")
        assert out.returncode != 0 and message in out.stdout + out.stderr, (bad, out.stdout[-2000:])


def test_a_reduced_dataset_plans_its_own_splits_and_a_bad_override_is_refused(tmp_path):
    reduced = tmp_path / "reduced.yaml"
    reduced.write_text("protocol: {per_dataset: {REDDIT-BINARY: {graph_splits: 10, grid_splits: 1}}}\n")
    chosen = "results/runs/REDDIT-BINARY/repset/chosen/split9_seed0.json"
    ok = snakemake("-n", "--forceall", chosen, "results/wmd/bbcsport.json", "--configfile", str(reduced))
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert ok.stdout.count("rule train:") == 13 and "rule wmd:" in ok.stdout      # 12 points on split 0 + split 9
    out = snakemake("-n", chosen.replace("split9", "split10"), "--configfile", str(reduced))
    assert out.returncode != 0 and "split 10 of REDDIT-BINARY: the protocol has splits 0..9" in out.stdout + out.stderr
    reduced.write_text("protocol: {per_dataset: {recipe: {text_splits: 1}}}\n")
    out = snakemake("-n", chosen, "--configfile", str(reduced))
    assert out.returncode != 0
    message = "config key 'protocol.per_dataset.recipe': 'recipe' is not among the config's datasets"
    assert message in out.stdout + out.stderr


def test_cuda_models_ask_for_a_gpu(tmp_path):
    override = tmp_path / "cuda.yaml"
    override.write_text("models: {repset: {train: {lr: 0.01, device: cuda}}}\n")
    out = snakemake("-n", "--forceall", "results/runs/bbcsport/repset/k5-m10/split0_seed0.json",
                    "results/runs/bbcsport/deepsets/default/split0_seed0.json", "--configfile", "quick.yaml", str(override))
    assert out.returncode == 0, out.stderr
    jobs = out.stdout.split("rule train:")[1:]
    gpus = {("repset" if "model=repset" in j else "deepsets"): ("gpu=1" in j) for j in jobs}
    assert gpus == {"repset": True, "deepsets": False}


def test_lint_is_clean():
    out = snakemake("--lint")
    assert out.returncode == 0 and "Congratulations" in out.stdout + out.stderr, out.stdout + out.stderr


@pytest.mark.parametrize("override, message", [
    ("bogus=1", "'bogus' was unexpected"),
    ("solver=nope", "config key 'solver': unknown solver 'nope'; valid solvers:"),
    ("seed=-1", "-1 is less than the minimum of 0"),
])
def test_bad_config_is_refused_before_any_job(override, message):
    out = snakemake("-n", "all", "--config", override)
    assert out.returncode != 0
    assert message in out.stdout + out.stderr


def test_a_packed_record_that_exists_is_found_done_and_a_missing_one_is_packed(tmp_path):
    shutil.copy(ROOT / "config.yaml", tmp_path)
    done = "results/runs/MUTAG/repset/k10-m20/split0_seed0.json"
    (tmp_path / done).parent.mkdir(parents=True)
    (tmp_path / done).write_text("{}")
    args = ("--snakefile", str(ROOT / "workflow" / "Snakefile"), "--directory", str(tmp_path), "-n", "--cores", "1")
    out = snakemake(*args, done)
    assert out.returncode == 0 and "Nothing to be done" in out.stdout + out.stderr, out.stderr[-2000:]
    out = snakemake(*args, done.replace("split0", "split1"))
    assert out.returncode == 0 and "train_pack_MUTAG_repset_seed0_grid0" in out.stdout, out.stderr[-2000:]


@pytest.mark.parametrize("overlay, message", [
    ("train: {epochs: 5.0}", "config key 'train.epochs': 5.0 is not an integer (write 5)"),
    ("train: {lr: .nan}", "config key 'train.lr': nan is not a finite number"),
    ("datasets: {text: [bbcsport, twitter, TWITTER]}", "config key 'datasets.text': lists twitter twice"),
    ("train_packs: {datasets: [MUTAGG]}", "config key 'train_packs.datasets': unknown dataset 'MUTAGG'"),
    ("models: {mine: {layer: 'examples/sum_pool.py:SumPol', options: {}, grid: {}}}",
     "config key 'models.mine.layer': layer 'examples/sum_pool.py:SumPol': examples/sum_pool.py has no attribute"),
])
def test_a_value_the_schema_lets_through_is_refused_before_any_job(tmp_path, overlay, message):
    (tmp_path / "bad.yaml").write_text(overlay + "\n")
    out = snakemake("-n", "results/runs/bbcsport/repset/k5-m10/split0_seed0.json", "--configfile", "quick.yaml",
                    str(tmp_path / "bad.yaml"))
    assert out.returncode != 0 and message in out.stdout + out.stderr, out.stderr[-2000:]


def test_with_the_record_restored_only_the_new_model_trains(tmp_path):
    """MUTAG's full protocol with its 2,900 recorded runs in place (as `record restore` leaves them, written after
    the store they were trained on) and examples/sum_pool.yaml added: the plan trains sum_pool's 200 runs (2 grid
    points x 100 folds, in packs) and nothing else, then pairs them with the record's."""
    import json
    import os

    from repset.pipeline.pack import load_config
    from repset.protocol.jobs import runs

    shutil.copy(ROOT / "config.yaml", tmp_path)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    config = load_config(ROOT / "config.yaml", [ROOT / "examples" / "mutag.yaml"])
    for age, path in enumerate(["data/raw/MUTAG.sources.json", "data/embed/MUTAG.struc2vec.npy",
                                "data/sets/MUTAG.struc2vec.npz", "data/sets/MUTAG.struc2vec.json"]):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
        os.utime(tmp_path / path, (1e9 + age, 1e9 + age))     # built in order, long before the records
    recorded = runs(config, ["MUTAG"])
    for run in recorded:
        (tmp_path / run.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / run.path).write_text(json.dumps({"layer": config["models"][run.model]["layer"]}))
    assert len(recorded) == 2900
    # the code and software-env triggers read the metadata a real build of the store leaves; these files have none
    out = snakemake("--snakefile", str(ROOT / "workflow" / "Snakefile"), "--directory", str(tmp_path), "-n",
                    "--cores", "1", "--rerun-triggers", "mtime", "input", "params", "--configfile",
                    "examples/mutag.yaml", "examples/sum_pool.yaml", "--", "results/tables/standing.md")
    assert out.returncode == 0, out.stderr[-2000:]
    stats = out.stdout.split("Job stats:")[1].split("total")[0]
    jobs = dict(line.split() for line in stats.splitlines()[3:] if line.strip())
    assert jobs == {**{f"train_pack_MUTAG_sum_pool_seed0_grid{i}": "1" for i in range(4)}, "aggregate": "1",
                    "standing": "1"}
    planned = {p for block in out.stdout.split("rule train_pack_")[1:] for p in
               block.split("output: ")[1].split("\n")[0].split(", ")}
    assert len(planned) == 200 and all(p.startswith("results/runs/MUTAG/sum_pool/") for p in planned)


def test_a_grid_on_each_repetition_trains_around_the_recorded_first_repetition(tmp_path):
    """REDDIT-BINARY's 92 runs of the first repetition (grid on fold 0) in place, with their two grid choices, as
    `record restore` leaves them; the declaration over all 10 repetitions (grid on each one's first fold) plans the
    828 runs and 18 grid choices (repetitions 1-9 of RepSet and ApproxRepSet) they lack, and none of theirs."""
    import json
    import os
    import time

    from repset.pipeline.pack import load_config
    from repset.protocol.jobs import grid_choice_path, runs

    shutil.copy(ROOT / "config.yaml", tmp_path)
    declared = tmp_path / "per_repetition.yaml"
    declared.write_text("protocol: {per_dataset: {REDDIT-BINARY: {graph_splits: 100, grid_splits: 1, "
                        "grid_scope: repetition}}}\n")
    first = "protocol: {per_dataset: {REDDIT-BINARY: {graph_splits: 10, grid_splits: 1}}}\n"
    (tmp_path / "first.yaml").write_text(first)
    for age, path in enumerate(["data/raw/REDDIT-BINARY.sources.json", "data/embed/REDDIT-BINARY.struc2vec.npy",
                                "data/sets/REDDIT-BINARY.struc2vec.npz", "data/sets/REDDIT-BINARY.struc2vec.json"]):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
        os.utime(tmp_path / path, (1e9 + age, 1e9 + age))     # built long before the records
    config = load_config(ROOT / "config.yaml", [tmp_path / "first.yaml"])
    recorded = [run.path for run in runs(config, ["REDDIT-BINARY"])]
    recorded += [grid_choice_path("REDDIT-BINARY", m, 0) for m in ("repset", "approx_repset")]
    restored = time.time()
    for path in recorded:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(json.dumps({"layer": config["models"][path.split("/")[3]]["layer"]}))
        os.utime(tmp_path / path, (restored, restored))       # restored together, after the store
    every = [run.path for run in runs(load_config(ROOT / "config.yaml", [declared]), ["REDDIT-BINARY"])]
    assert len(recorded) == 92 + 2 and len(every) == 920
    out = snakemake("--snakefile", str(ROOT / "workflow" / "Snakefile"), "--directory", str(tmp_path), "-n",
                    "--cores", "1", "--rerun-triggers", "mtime", "input", "params", "--configfile", str(declared),
                    "--", *every)
    assert out.returncode == 0, out.stderr[-2000:]
    stats = out.stdout.split("Job stats:")[1].split("total")[0]
    assert dict(line.split() for line in stats.splitlines()[3:] if line.strip()) == {
        "train": "828", "grid_choice_repetition": "18"}
    planned = {line.split("output: ")[1] for line in out.stdout.splitlines() if "output: " in line}
    assert len(planned) == 846 and not planned & set(recorded)
    assert "results/runs/REDDIT-BINARY/repset/grid_seed0_rep9.json" in planned


def test_packed_runs_with_a_grid_on_each_repetition_read_their_repetitions_choice(tmp_path):
    """MUTAG packed (train_packs) with grid_scope: repetition: the pack of repetition 1's chosen runs reads
    grid_seed0_rep1.json, which the repetition's own grid pack (fold 0 of repetition 1: split 10) feeds."""
    shutil.copy(ROOT / "config.yaml", tmp_path)
    (tmp_path / "rep.yaml").write_text("protocol: {per_dataset: {MUTAG: {grid_splits: 1, grid_scope: repetition}}}\n")
    out = snakemake("--snakefile", str(ROOT / "workflow" / "Snakefile"), "--directory", str(tmp_path), "-n",
                    "--cores", "1", "--configfile", str(tmp_path / "rep.yaml"), "--",
                    "results/runs/MUTAG/repset/chosen/split11_seed0.json")
    assert out.returncode == 0, out.stderr[-2000:]
    jobs = {}
    for block in out.stdout.split("\nrule ")[1:]:
        lines = dict(line.strip().split(": ", 1) for line in block.splitlines()[1:] if ": " in line)
        jobs[block.split(":")[0]] = (lines.get("input", "").split(", "), lines.get("output", "").split(", "))
    chosen_inputs, chosen_outputs = jobs["train_pack_MUTAG_repset_seed0_chosen_rep1_0"]
    assert "results/runs/MUTAG/repset/grid_seed0_rep1.json" in chosen_inputs
    assert chosen_outputs[0] == "results/runs/MUTAG/repset/chosen/split11_seed0.json"
    choice_inputs, choice_outputs = jobs["grid_choice_repetition"]
    assert choice_outputs == ["results/runs/MUTAG/repset/grid_seed0_rep1.json"]
    assert len(choice_inputs) == 12 and all(p.endswith("/split10_seed0.json") for p in choice_inputs)
    assert set(jobs["train_pack_MUTAG_repset_seed0_grid_rep1_0"][1]) == set(choice_inputs)
