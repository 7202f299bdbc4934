"""Jobs of the hidden-set initialisation study: counts, the protocol records each reads, wildcard checks."""
import re

import pytest
import yaml
from repo_paths import ROOT

from repset.protocol.init_study import (InitRun, check_init_run, configured_init, init_runs, init_settings,
                                        init_wildcard_patterns, selection_inputs, study_splits)


@pytest.fixture
def config():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["datasets"] = {"text": ["bbcsport", "reuters"], "graph": ["MUTAG"]}
    config["init_study"] = {"model": "repset", "inits": ["uniform", "scaled"], "datasets": ["BBCSport", "mutag"],
                            "splits": 3, "latent_sets": "bbcsport"}
    return config


def test_one_job_per_dataset_init_split_and_seed(config):
    config["protocol"]["seeds"] = [0, 1]
    jobs = init_runs(config)
    assert len(jobs) == 2 * 2 * 3 * 2 and len({j.path for j in jobs}) == len(jobs)
    assert {j.dataset for j in jobs} == {"bbcsport", "MUTAG"}     # registry spelling
    assert jobs[0] == InitRun("bbcsport", "uniform", 0, 0)
    assert jobs[0].path == "results/init_study/bbcsport/uniform/split0_seed0.json"
    config["init_study"]["splits"] = None                          # all: text 5, graphs 100
    assert (study_splits(config, "bbcsport"), study_splits(config, "MUTAG")) == (5, 100)
    config["init_study"]["splits"] = 50
    assert study_splits(config, "bbcsport") == 5                    # capped at the protocol's splits
    assert init_runs({**config, "init_study": None}) == []


def test_selection_reads_the_protocols_runs_of_the_split(config):
    config["protocol"]["grid_splits"] = None
    paths = selection_inputs(config, InitRun("bbcsport", "scaled", 2, 0))
    assert len(paths) == 12 and all("/repset/" in p and p.endswith("split2_seed0.json") for p in paths)
    config["protocol"]["grid_splits"] = 1                           # a later split: its one chosen run
    assert selection_inputs(config, InitRun("bbcsport", "scaled", 2, 0)) == [
        "results/runs/bbcsport/repset/chosen/split2_seed0.json"]


def test_wildcards_outside_the_study_are_refused(config):
    assert check_init_run(config, "MUTAG", "scaled", "2", "0") == InitRun("MUTAG", "scaled", 2, 0)
    for args, message in ((("reuters", "scaled", 0, 0), "not in init_study.datasets"),
                          (("bbcsport", "normal", 0, 0), "init 'normal' is not in init_study.inits"),
                          (("bbcsport", "scaled", 3, 0), r"trains splits 0..2"),
                          (("bbcsport", "scaled", 0, 4), "seed 4 is not in protocol.seeds")):
        with pytest.raises(ValueError, match=message):
            check_init_run(config, *args)
    patterns = init_wildcard_patterns(config)
    assert re.fullmatch(patterns["init"], "scaled") and not re.fullmatch(patterns["init"], "normal")
    assert re.fullmatch(patterns["dataset"], "MUTAG") and not re.fullmatch(patterns["dataset"], "reuters")


def test_settings_carry_every_point_and_the_configured_init(config):
    settings = init_settings(config)
    assert settings["model"] == "repset" and settings["layer"] == "repset" and len(settings["options"]) == 12
    assert all(o["solver"] == config["solver"] for o in settings["options"].values())
    assert configured_init(config) == "uniform"
    config["models"]["repset"]["options"]["init"] = "normal"
    assert configured_init(config) == "normal"
