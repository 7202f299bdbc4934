"""Training jobs at the grain of one run: counts, paths, the grid choice's inputs, wildcard checks."""
import re

import pytest
import yaml
from repo_paths import ROOT

from repset.protocol.jobs import (CHOSEN, Run, check_run, choice_repetitions, grid_blocks, grid_choice_inputs,
                                  grid_choice_of, grid_choice_path, model_runs, run_settings, runs, searched_splits,
                                  wildcard_patterns)
from repset.protocol.plan import model_points
from repset.protocol.selection import records_frame, selected_point


@pytest.fixture
def config():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["datasets"] = {"text": ["bbcsport", "reuters"], "graph": ["MUTAG"]}
    return config


def test_every_split_searches_the_grid_when_grid_splits_is_null(config):
    config["protocol"]["grid_splits"] = None
    jobs = runs(config)
    # bbcsport 5 splits, reuters 1 (predefined), MUTAG 100 folds; repset and approx 12 points, 5 baselines 1
    assert len(jobs) == (5 + 1 + 100) * (12 + 12 + 5)
    assert not any(j.point == CHOSEN for j in jobs)
    assert len(set(j.path for j in jobs)) == len(jobs)


def test_later_splits_train_the_choice(config):
    config["protocol"]["grid_splits"] = 2
    repset = model_runs(config, "bbcsport", "repset", seed=0)
    assert [(r.split, r.point) for r in repset[-3:]] == [(2, CHOSEN), (3, CHOSEN), (4, CHOSEN)]
    assert len(repset) == 2 * 12 + 3 and searched_splits(config, "bbcsport", "repset") == 2
    assert searched_splits(config, "reuters", "repset") == 1            # a single predefined split
    assert searched_splits(config, "MUTAG", "deepsets") == 100          # no grid: every split is a plain run
    inputs = grid_choice_inputs(config, "bbcsport", "repset", 0)
    assert len(inputs) == 24 and inputs[0] == "results/runs/bbcsport/repset/k10-m20/split0_seed0.json"
    assert repset[-1].path == "results/runs/bbcsport/repset/chosen/split4_seed0.json"


def test_seeds_multiply_the_jobs(config):
    config["protocol"]["seeds"] = [0, 3]
    jobs = [j for j in runs(config) if j.dataset == "bbcsport" and j.model == "deepsets"]
    assert sorted({j.seed for j in jobs}) == [0, 3] and len(jobs) == 10


@pytest.mark.parametrize("wildcards, message", [
    (("bbcsport", "deepsets", "k10-m20", "0", "0"), "grid point 'k10-m20' is not in the grid of deepsets"),
    (("bbcsport", "repset", "k10-m20", "5", "0"), r"split 5 of bbcsport: the protocol has splits 0..4"),
    (("bbcsport", "repset", CHOSEN, "0", "0"), "split 0 of bbcsport searches the grid of repset"),
    (("BBCSPORT", "repset", "k10-m20", "0", "0"), "dataset 'BBCSPORT' is not in the config's datasets"),
    (("bbcsport", "hungarian", "default", "0", "0"), "model 'hungarian' is not in the config's models"),
])
def test_check_run_says_what_is_wrong(config, wildcards, message):
    with pytest.raises(ValueError, match=message):
        check_run(config, *wildcards)


def test_check_run_accepts_the_protocols_runs(config):
    config["protocol"]["grid_splits"] = 1
    assert check_run(config, "bbcsport", "repset", CHOSEN, "3", "0") == Run("bbcsport", "repset", CHOSEN, 3, 0)
    assert check_run(config, "MUTAG", "nn_mean", "default", "99", "7").seed == 7


def test_wildcard_patterns_match_exactly_the_configs_names(config):
    patterns = {k: re.compile(f"^(?:{v})$") for k, v in wildcard_patterns(config).items()}
    assert patterns["dataset"].match("bbcsport") and not patterns["dataset"].match("BBCSPORT")
    assert patterns["model"].match("approx_repset") and not patterns["model"].match("approx")
    assert patterns["point"].match("k50-m100") and patterns["point"].match(CHOSEN) and patterns["point"].match("default")
    assert not patterns["point"].match("k7-m100") and not patterns["split"].match("abc")


def test_run_settings_hold_only_what_the_run_depends_on(config):
    one = run_settings(config, "repset", "k20-m50")
    assert one["options"] == {"solver": config["solver"], "n_hidden_sets": 50, "hidden_set_size": 20}
    assert one["layer"] == "repset" and one["train"]["lr"] == 0.01
    assert set(run_settings(config, "repset", CHOSEN)["options"]) == set(model_runs_points(config))
    config["models"]["deepsets"]["grid"] = {"n_hidden_sets": [1]}          # editing another model
    assert run_settings(config, "repset", "k20-m50") == one


def model_runs_points(config):
    return {r.point for r in model_runs(config, "bbcsport", "repset", 0) if r.split == 0}


def test_a_model_with_a_datasets_list_trains_on_those_only(config):
    """An opt-in variant (models.<name>.datasets) adds its runs on its datasets and nowhere else; naming it on
    another dataset is an error that names the config key; packs and the overlay follow the same list."""
    from repset.protocol.packs import packs
    from repset.protocol.plan import check_protocol, models_for

    base = len(runs(config))
    config["models"]["variant"] = {**config["models"]["repset"], "datasets": ["MUTAG"]}
    assert models_for(config, "MUTAG")[-1] == "variant" and "variant" not in models_for(config, "bbcsport")
    added = [r for r in runs(config) if r.model == "variant"]
    assert {r.dataset for r in added} == {"MUTAG"} and len(runs(config)) == base + len(added)
    assert len(added) == len(model_runs(config, "MUTAG", "repset", 0))
    with pytest.raises(ValueError, match="'models.variant.datasets' lists \\['MUTAG'\\]"):
        check_run(config, "bbcsport", "variant", "k10-m20", 0, 0)
    assert check_run(config, "MUTAG", "variant", "k10-m20", 0, 0).model == "variant"
    assert {r.dataset for p in packs(config, done=lambda path: False) for r in p.runs if r.model == "variant"} == {"MUTAG"}
    config["models"]["variant"]["datasets"] = ["MUTAGG"]
    with pytest.raises(ValueError, match="config key 'models.variant.datasets': unknown dataset 'MUTAGG'"):
        check_protocol(config)


REDUCED = {"REDDIT-BINARY": {"graph_splits": 10, "grid_splits": 1}}


def test_a_dataset_override_reduces_that_dataset_and_keeps_the_record_paths(config):
    config["datasets"]["graph"].append("REDDIT-BINARY")
    full = runs(config)
    config["protocol"]["per_dataset"] = REDUCED
    reduced = runs(config)
    reddit = [j for j in reduced if j.dataset == "REDDIT-BINARY"]
    counts = {m: sum(j.model == m for j in reddit) for m in config["models"]}
    assert counts == {"repset": 21, "approx_repset": 21, "deepsets": 10, "nn_mean": 10, "nn_max": 10,
                      "nn_attention": 10, "set_transformer": 10}          # 12 points x 1 split + 9 chosen; 10 splits
    assert [j for j in reduced if j.dataset != "REDDIT-BINARY"] == [j for j in full if j.dataset != "REDDIT-BINARY"]
    split0 = {j.path for j in reddit if j.split == 0}
    assert split0 == {j.path for j in full if j.dataset == "REDDIT-BINARY" and j.split == 0} and len(split0) == 29
    assert {j.split for j in reddit if j.point == CHOSEN} == set(range(1, 10))
    assert all(j.model in ("repset", "approx_repset") for j in reddit if j.point == CHOSEN)
    assert {(j.point, j.split) for j in reddit if j.model == "deepsets"} == {("default", k) for k in range(10)}
    assert "results/runs/REDDIT-BINARY/repset/chosen/split9_seed0.json" in {j.path for j in reddit}
    inputs = grid_choice_inputs(config, "REDDIT-BINARY", "repset", 0)       # the grid choice reads split 0 only
    assert len(inputs) == 12 and set(inputs) == {p for p in split0 if "/REDDIT-BINARY/repset/" in p}
    assert searched_splits(config, "REDDIT-BINARY", "repset") == 1 and searched_splits(config, "MUTAG", "repset") == 100
    with pytest.raises(ValueError, match=r"split 10 of REDDIT-BINARY: the protocol has splits 0..9"):
        check_run(config, "REDDIT-BINARY", "deepsets", "default", "10", "0")
    with pytest.raises(ValueError, match=r"split 0 of REDDIT-BINARY searches the grid of repset"):
        check_run(config, "REDDIT-BINARY", "repset", CHOSEN, "0", "0")


PER_REPETITION = {"REDDIT-BINARY": {"graph_splits": 100, "grid_splits": 1, "grid_scope": "repetition"}}


def test_a_grid_searched_on_each_repetition_plans_920_runs_for_reddit(config):
    config["datasets"]["graph"].append("REDDIT-BINARY")
    config["protocol"]["per_dataset"] = PER_REPETITION
    reddit = runs(config, ["REDDIT-BINARY"])
    counts = {m: sum(j.model == m for j in reddit) for m in config["models"]}
    assert counts == {"repset": 210, "approx_repset": 210, "deepsets": 100, "nn_mean": 100, "nn_max": 100,
                      "nn_attention": 100, "set_transformer": 100} and len(reddit) == 920
    assert len({j.path for j in reddit}) == 920
    repset = [j for j in reddit if j.model == "repset"]
    assert {j.split for j in repset if j.point != CHOSEN} == set(range(0, 100, 10))          # each repetition's fold 0
    assert {j.split for j in repset if j.point == CHOSEN} == set(range(100)) - set(range(0, 100, 10))
    assert [(j.split, j.point) for j in repset[11:14]] == [(0, "k50-m100"), (1, CHOSEN), (2, CHOSEN)]
    assert searched_splits(config, "REDDIT-BINARY", "repset") == 10
    assert grid_blocks(config, "REDDIT-BINARY", "repset")[3] == (range(30, 31), range(31, 40))
    assert grid_blocks(config, "REDDIT-BINARY", "deepsets") == [(range(100), range(100, 100))]
    with pytest.raises(ValueError, match="on each CV repetition .* name the repetition \\(0..9\\)"):
        grid_choice_inputs(config, "REDDIT-BINARY", "repset", 0)
    with pytest.raises(ValueError, match="no grid choice of repset for repetition 10: it has repetitions 0..9"):
        grid_choice_inputs(config, "REDDIT-BINARY", "repset", 0, 10)
    with pytest.raises(ValueError, match=r"split 30 of REDDIT-BINARY searches the grid of repset \(splits 0, 10, 20"):
        check_run(config, "REDDIT-BINARY", "repset", CHOSEN, "30", "0")
    assert check_run(config, "REDDIT-BINARY", "repset", CHOSEN, "31", "0").split == 31
    # the other datasets keep one grid choice for the whole protocol
    assert grid_choice_of(config, Run("MUTAG", "repset", CHOSEN, 31, 0)) == "results/runs/MUTAG/repset/grid_seed0.json"


def test_a_later_fold_trains_the_point_chosen_on_its_own_repetitions_first_fold(config):
    """Records made by hand in which validation prefers grid point r on repetition r's first fold: each chosen run's
    grid choice reads that fold only (its file named by its repetition), so it trains point r."""
    config["datasets"]["graph"].append("REDDIT-BINARY")
    config["protocol"]["per_dataset"] = PER_REPETITION
    points = list(model_points(config, "repset"))

    def record(run):
        best = run.point == points[run.split // 10]
        return {"dataset": run.dataset, "model": run.model, "split": run.split, "point": run.point,
                "train_config": {"seed": run.seed}, "val": {"error": 0.1 if best else 0.3, "loss": 1.0},
                "test": {"error": 0.2, "accuracy": 0.8}, "epoch_seconds_median": 1.0, "epochs_run": 5}

    records = {run.path: record(run) for run in model_runs(config, "REDDIT-BINARY", "repset", 0) if run.point != CHOSEN}
    later = [run for run in model_runs(config, "REDDIT-BINARY", "repset", 0) if run.point == CHOSEN]
    assert len(records) == 120 and len(later) == 90
    for run in later:
        repetition = choice_repetitions(config, "REDDIT-BINARY", "repset")[run.split]
        inputs = grid_choice_inputs(config, "REDDIT-BINARY", "repset", 0, repetition)
        assert {records[p]["split"] for p in inputs} == {run.split // 10 * 10} and len(inputs) == 12
        assert selected_point(records_frame(records[p] for p in inputs)) == points[run.split // 10]
        assert grid_choice_of(config, run) == grid_choice_path("REDDIT-BINARY", "repset", 0, run.split // 10)
    assert grid_choice_path("REDDIT-BINARY", "repset", 0, 0) == "results/runs/REDDIT-BINARY/repset/grid_seed0.json"
    assert grid_choice_path("REDDIT-BINARY", "repset", 0, 3) == "results/runs/REDDIT-BINARY/repset/grid_seed0_rep3.json"


def test_the_recorded_first_repetition_is_reused_by_the_grid_on_each_repetition(config):
    """Every REDDIT-BINARY record of reproduction/runs.csv (the first repetition, grid on fold 0) is a job of the
    declaration over all repetitions, at the same path and reading the same grid choice from the same records."""
    import csv

    with open(ROOT / "reproduction" / "runs.csv", newline="") as f:
        recorded = {f"results/runs/{row['path']}" for row in csv.DictReader(f) if row["dataset"] == "REDDIT-BINARY"}
    config["datasets"]["graph"].append("REDDIT-BINARY")
    config["protocol"]["per_dataset"] = REDUCED
    first = runs(config, ["REDDIT-BINARY"])
    choices = {m: (grid_choice_inputs(config, "REDDIT-BINARY", m, 0), {grid_choice_of(config, r) for r in first
               if r.model == m and r.point == CHOSEN}) for m in ("repset", "approx_repset")}
    config["protocol"]["per_dataset"] = PER_REPETITION
    every = {run.path: run for run in runs(config, ["REDDIT-BINARY"])}
    assert len(recorded) == 92 and recorded == {r.path for r in first} and recorded <= set(every)
    for model, (inputs, files) in choices.items():
        assert grid_choice_inputs(config, "REDDIT-BINARY", model, 0, 0) == inputs
        assert files == {grid_choice_of(config, every[p]) for p in recorded if f"/{model}/{CHOSEN}/" in p} == {
            f"results/runs/REDDIT-BINARY/{model}/grid_seed0.json"}


def test_the_package_re_exports_the_jobs_names():
    """repset.protocol offers jobs.py's public names (the Snakefile's name_pattern helper aside), the same objects."""
    import repset.protocol
    from repset.protocol import jobs

    names = set(jobs.__all__) - {"name_pattern"}
    assert {"grid_blocks", "choice_repetitions", "grid_choice_of"} <= names <= set(repset.protocol.__all__)
    assert all(getattr(repset.protocol, name) is getattr(jobs, name) for name in names)
