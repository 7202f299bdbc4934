"""Protocol planning: stores, split counts, runs, config checks naming keys."""
import pytest
import yaml

from repo_paths import ROOT
from repset.protocol.plan import check_protocol, datasets, layer_options, model_points, split_count, store_path


@pytest.fixture
def config():
    return yaml.safe_load((ROOT / "config.yaml").read_text())


def test_split_counts_follow_the_paper(config):
    assert split_count("bbcsport", config) == 5
    assert split_count("reuters", config) == 1          # predefined train/test
    assert split_count("MUTAG", config) == 100          # 10-fold x 10 repeats
    config["protocol"]["text_splits"] = 2
    assert split_count("twitter", config) == 2


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
])
def test_check_protocol_names_the_key(config, edit, message):
    edit(config)
    with pytest.raises(ValueError, match=message):
        check_protocol(config)


def test_struc2vec_overrides_per_dataset(config):
    from repset.protocol.plan import struc2vec_options

    assert struc2vec_options("MUTAG", config)["walks_per_node"] == 10
    reddit = struc2vec_options("reddit-b", config)
    assert reddit["walks_per_node"] == 1 and reddit["epochs"] == 1 and "per_dataset" not in reddit


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
