"""Protocol planning: stores, split counts, runs, config checks naming keys."""
import pytest
import yaml

from repo_paths import ROOT
from repset.protocol.plan import (check_protocol, datasets, describe_override, external_models, layer_options,
                                  model_points, protocol_for, split_count, store_path)


@pytest.fixture
def config():
    return yaml.safe_load((ROOT / "config.yaml").read_text())


def test_split_counts_follow_the_paper(config):
    assert split_count("bbcsport", config) == 5
    assert split_count("reuters", config) == 1          # predefined train/test
    assert split_count("MUTAG", config) == 100          # 10-fold x 10 repeats
    config["protocol"]["text_splits"] = 2
    assert split_count("twitter", config) == 2


def test_a_dataset_override_changes_that_dataset_only(config):
    config["protocol"]["per_dataset"] = {"reddit-binary": {"graph_splits": 10, "grid_splits": 1},
                                      "BBCSport": {"text_splits": 2}}
    # any registry spelling names the dataset; the result has the global keys, no ``per_dataset``
    assert protocol_for(config, "REDDIT-BINARY") == {"text_splits": 5, "graph_splits": 10, "seeds": [0],
                                                     "grid_splits": 1}
    assert protocol_for(config, "MUTAG") == {"text_splits": 5, "graph_splits": 100, "seeds": [0], "grid_splits": None}
    counts = [split_count(d, config) for d in ("REDDIT-BINARY", "MUTAG", "bbcsport", "twitter", "reuters")]
    assert counts == [10, 100, 2, 5, 1]
    assert describe_override(config, "REDDIT-BINARY") == ("10 of the 10 x 10 folds (the first repetition), the grid "
                                                          "searched on the first split only, later splits train the "
                                                          "point chosen there")
    assert describe_override(config, "bbcsport") == "2 of the 5 splits" and describe_override(config, "MUTAG") == ""
    # the WMD job's params (workflow/rules/report.smk): the dataset's protocol without grid_splits keeps its splits
    wmd = {"data": config["data"], "protocol": {k: v for k, v in protocol_for(config, "bbcsport").items()
                                                if k != "grid_splits"}}
    assert split_count("bbcsport", wmd) == 2 and "grid_splits" not in wmd["protocol"]
    config["protocol"]["per_dataset"] = {"MUTAG": {"graph_splits": 30, "grid_splits": 3}, "reuters": {"text_splits": 3}}
    assert describe_override(config, "MUTAG") == ("30 of the 10 x 10 folds (the first 3 repetitions), the grid "
                                                  "searched on the first 3 splits, later splits train the point "
                                                  "chosen there")
    assert describe_override(config, "reuters") == "the predefined split"     # no .mat: one split whatever the count
    config["protocol"]["grid_splits"] = 2
    config["protocol"]["per_dataset"] = {"MUTAG": {"grid_splits": None}}
    assert describe_override(config, "MUTAG") == "the grid searched on every split"
    assert protocol_for(config, "MUTAG")["grid_splits"] is None and protocol_for(config, "PROTEINS")["grid_splits"] == 2


def test_a_grid_searched_on_each_repetition_is_described_as_such(config):
    config["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"graph_splits": 100, "grid_splits": 1,
                                                           "grid_scope": "repetition"}}
    assert describe_override(config, "REDDIT-BINARY") == (
        "100 of the 10 x 10 folds, the grid searched on the first fold of each of the 10 repetitions, the other "
        "folds of a repetition train the point chosen on it")
    config["protocol"]["per_dataset"] = {"MUTAG": {"graph_splits": 30, "grid_splits": 2, "grid_scope": "repetition"}}
    assert describe_override(config, "MUTAG") == (
        "30 of the 10 x 10 folds (the first 3 repetitions), the grid searched on the first 2 folds of each of the 3 "
        "repetitions, the other folds of a repetition train the point chosen on it")
    config["protocol"]["per_dataset"] = {"MUTAG": {"grid_splits": 10, "grid_scope": "repetition"}}
    assert describe_override(config, "MUTAG") == "the grid searched on every split"      # every fold of each
    config["protocol"]["per_dataset"] = {"MUTAG": {"graph_splits": 10, "grid_splits": 1, "grid_scope": "protocol"}}
    assert describe_override(config, "MUTAG").endswith("the grid searched on the first split only, later splits "
                                                       "train the point chosen there")


def test_store_paths_and_points(config):
    assert store_path("bbcsport", config) == "data/sets/bbcsport.glove-6b-50d.npz"
    assert store_path("MUTAG", config) == "data/sets/MUTAG.struc2vec.npz"
    assert len(model_points(config, "repset")) == 12 and list(model_points(config, "deepsets")) == ["default"]
    assert datasets(config)[0] == "bbcsport"


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["datasets"]["text"].append("imagenet"), "config key 'datasets.text': unknown dataset 'imagenet'"),
    (lambda c: c["datasets"]["text"].append("MUTAG"), "config key 'datasets.text': MUTAG is a graph dataset"),
    (lambda c: c["datasets"]["text"].append("recipe"), "set data.wmd_mat_dir"),
    (lambda c: c["models"]["repset"].update(layer="hungarian"), "config key 'models.repset.layer': unknown layer"),
    (lambda c: c["models"].update(mine={"layer": "no_such_package.pool:Pool", "options": {}, "grid": {}}),
     "config key 'models.mine.layer': layer 'no_such_package.pool:Pool': cannot import"),
])
def test_check_protocol_names_the_key(config, edit, message):
    edit(config)
    with pytest.raises(ValueError, match=message):
        check_protocol(config)


def test_external_models_are_those_whose_layer_is_not_the_packages(config):
    assert external_models(config) == []
    config["models"]["sum_pool"] = {"layer": "examples/sum_pool.py:SumPool", "options": {}, "grid": {}}
    config["models"]["by_entry_point"] = {"layer": "my_layer", "options": {}, "grid": {}}
    assert external_models(config) == ["sum_pool", "by_entry_point"]


def test_struc2vec_overrides_per_dataset(config):
    from repset.protocol.plan import struc2vec_options

    assert struc2vec_options("MUTAG", config)["walks_per_node"] == 10
    reddit = struc2vec_options("reddit-b", config)
    assert reddit["walks_per_node"] == 1 and reddit["epochs"] == 1 and "per_dataset" not in reddit
    # an override keyed in another spelling of the name (config validation accepts any) applies too
    config["struc2vec"]["per_dataset"] = {"mutag": {"walks_per_node": 3}}
    assert struc2vec_options("MUTAG", config)["walks_per_node"] == 3


def test_a_section_splits_into_its_own_keys_and_canonical_overrides():
    from repset.protocol.plan import split_per_dataset

    own, overrides = split_per_dataset({"graph_splits": 100, "per_dataset": {"reddit-b": {"graph_splits": 10}}})
    assert own == {"graph_splits": 100} and overrides == {"REDDIT-BINARY": {"graph_splits": 10}}
    assert split_per_dataset({"dim": 20, "per_dataset": None}) == ({"dim": 20}, {})


def test_train_settings_apply_the_model_overrides():
    from repset.protocol.plan import train_settings

    config = {"train": {"epochs": 100, "batch_size": 64, "lr": 0.001, "patience": 20},
              "models": {"repset": {"train": {"lr": 0.01, "epochs": 30}}, "deepsets": {}}}
    # a config without distinct_elements trains on padded batches (as records made before the key)
    from repset.provenance import LEGACY_DEFAULTS

    assert LEGACY_DEFAULTS == {"distinct_elements": False, "ragged": False, "max_elements": None}
    assert train_settings(config, "repset") == {"epochs": 30, "batch_size": 64, "lr": 0.01, "patience": 20,
                                                **LEGACY_DEFAULTS}
    assert train_settings(config, "deepsets") == {**config["train"], **LEGACY_DEFAULTS}
    config["train"]["distinct_elements"] = True
    assert train_settings(config, "repset")["distinct_elements"] is True


def test_solver_reaches_every_repset_point(config):
    config["solver"] = "brute"
    assert {o["solver"] for o in layer_options(config, "repset").values()} == {"brute"}
    assert all("solver" not in o for o in layer_options(config, "approx_repset").values())
    assert "solver" not in layer_options(config, "deepsets")["default"]
