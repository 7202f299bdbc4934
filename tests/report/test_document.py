"""REPORT.md says how it was produced and how far its config is from the paper's protocol."""
import copy

import yaml
from repo_paths import ROOT

from repset.report.document import protocol_differences

CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())


def test_the_default_config_departs_only_by_recipe():
    # RECIPE exists only in the WMD authors' .mat files, which are not public
    assert protocol_differences(copy.deepcopy(CONFIG)) == ["text datasets left out: recipe"]


def test_a_reduced_profile_is_named_as_such():
    config = copy.deepcopy(CONFIG)
    config["protocol"].update(text_splits=1, graph_splits=10, grid_splits=1)
    config["models"]["repset"]["grid"] = {"n_hidden_sets": [10, 20], "hidden_set_size": [5, 10]}
    config["datasets"] = {"text": ["bbcsport", "twitter"], "graph": ["MUTAG"]}
    found = protocol_differences(config)
    assert "protocol.text_splits = 1 (paper: 5)" in found and "protocol.graph_splits = 10 (paper: 100)" in found
    assert "protocol.grid_splits = 1 (paper: every split)" in found
    assert any(d.startswith("models.repset.grid") for d in found)
    assert any(d.startswith("graph datasets left out: IMDB-BINARY") for d in found)
