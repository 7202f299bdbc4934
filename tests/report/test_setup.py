"""REPORT.md's setup: how a config departs from the paper's protocol, the setup table, how the records say their
runs were trained and which stores they read, and how the config files are named."""
import copy

import pandas as pd
import yaml
from repo_paths import ROOT

from repset.report.setup import (config_file_names, embedding_differences, protocol_differences, read_training,
                                 recorded_stores, recorded_training, setup_table, struc2vec_variants)

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


REDDIT_LINE = ("REDDIT-BINARY: 10 of the 10 x 10 folds (the first repetition), the grid searched on the first "
               "split only, later splits train the point chosen there")


def test_a_per_dataset_reduction_is_a_departure_naming_the_dataset(tmp_path):
    import pandas as pd

    from repset.report.document import write_report

    config = copy.deepcopy(CONFIG)
    config["protocol"]["per_dataset"] = {"reddit-binary": {"graph_splits": 10, "grid_splits": 1}}
    assert protocol_differences(config) == [REDDIT_LINE, "text datasets left out: recipe"]
    # an override that keeps the paper's protocol for its dataset departs from nothing
    config["protocol"]["per_dataset"] = {"MUTAG": {"graph_splits": 100, "grid_splits": None}}
    assert protocol_differences(config) == ["text datasets left out: recipe"]
    config["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"graph_splits": 10, "grid_splits": 1},
                                      "bbcsport": {"text_splits": 2}}
    empty = pd.DataFrame(columns=["table", "dataset", "method", "mean", "std", "std_over", "source"])
    text = write_report(tmp_path / "REPORT.md", config=config, ours=empty, tables={"text": pd.DataFrame(),
                        "graph": pd.DataFrame()}, store_metas={}).read_text()
    departures = text.split("**Departures from the paper's protocol:** ")[1].split("\n")[0]
    assert REDDIT_LINE in departures and "bbcsport: 2 of the 5 splits" in departures
    protocol = setup_table(config, ["struc2vec"]).loc["protocol", "value"]
    assert f"; {REDDIT_LINE.replace(':', ' (`protocol.per_dataset`):', 1)}" in protocol


def test_config_files_are_named_relative_to_the_repository_never_by_a_machine_path(tmp_path, monkeypatch):
    repo, outside = tmp_path / "clone", tmp_path / "elsewhere"
    (repo / "profiles").mkdir(parents=True)
    outside.mkdir()
    (repo / "profiles" / "quick.yaml").write_text("a: 1\n")
    (outside / "mine.yaml").write_text("b: 2\n")
    monkeypatch.chdir(repo / "profiles")
    names = config_file_names(["quick.yaml", repo / "config.yaml", outside / "mine.yaml"], repo)
    assert names[:2] == ["profiles/quick.yaml", "config.yaml"]
    assert names[2] == "mine.yaml (outside the repository, sha256 d4eed209fa44)"
    assert not any(str(tmp_path) in n for n in names)


def test_the_setup_names_each_recorded_training_path_and_the_runs_per_device(tmp_path):
    training = pd.DataFrame({"dataset": ["NA", "amazon", "bbcsport", "MUTAG", "MUTAG"],
                             "distinct_elements": [False, False, True, False, False], "ragged": [False] * 4 + [True],
                             "max_elements": pd.array([None, None, None, 65536, 65536], dtype="Int64"),
                             "device": ["cpu", "cpu", "cpu", "cpu", "cuda"], "runs": [1, 145, 145, 1658, 1242]})
    training.to_csv(tmp_path / "training.csv", index=False)
    read = read_training(tmp_path / "training.csv")            # a dataset named "NA" stays a name; "" is no bound
    pd.testing.assert_frame_equal(read, training, check_dtype=False)
    assert recorded_training(read) == (
        "- training as recorded (the runs' `train_config` and store): padded batches, at most 65,536 elements per "
        "batch: MUTAG (1,658); padded batches, no element bound: NA (1), amazon (145); padded batches, ragged "
        "(groups of similar size), at most 65,536 elements per batch: MUTAG (1,242); each batch's distinct elements "
        "(matching layers), no element bound: bbcsport (145); runs per device: cpu 1,949, cuda 1,242")


def test_the_setup_names_the_stores_the_runs_read_and_the_title_any_disagreement(tmp_path):
    """Each dataset's runs name the store they read (training.csv's ``store``); a dataset whose runs name two
    stores, none, or another store than the one the report reads is stated under the title, never hidden."""
    from repset.report.document import write_report

    a, b, c = "a" * 64, "b" * 64, "c" * 64
    training = pd.DataFrame({"dataset": ["MUTAG", "MUTAG", "PROTEINS", "bbcsport", "twitter"],
                             "distinct_elements": [False] * 5, "ragged": [False] * 5,
                             "max_elements": pd.array([65536, 65536, 65536, None, None], dtype="Int64"),
                             "device": ["cpu", "cuda", "cpu", "cpu", "cpu"], "store": [a, a, b, c, ""],
                             "runs": [1658, 1242, 2900, 145, 145]})
    training.to_csv(tmp_path / "training.csv", index=False)
    read = read_training(tmp_path / "training.csv")
    assert read["store"].tolist() == [a, a, b, c, ""]
    line, problems = recorded_stores(read, {"MUTAG": a, "PROTEINS": b, "bbcsport": a})
    assert line == ("- stores as recorded (the sha256 each run's record names, first 12 hex digits): MUTAG "
                    f"{a[:12]} (2,900); PROTEINS {b[:12]} (2,900); bbcsport {c[:12]} (145); twitter none named (145)")
    assert problems == [f"bbcsport's runs name {c[:12]}; the store read here is {a[:12]}",
                        "the runs of twitter name no store"]
    two = pd.concat([read, read.iloc[[2]].assign(store=c, runs=3)], ignore_index=True)
    assert f"the runs of PROTEINS name 2 stores ({b[:12]}: 2,900 runs, {c[:12]}: 3 runs)" in recorded_stores(two)[1]
    # agreeing records and stores: a Setup line, nothing under the title; a table of before the column: no line
    agreeing = read.iloc[:3]
    assert recorded_stores(agreeing, {"MUTAG": a, "PROTEINS": b})[1] == []
    assert recorded_stores(read.drop(columns="store")) == ("", [])
    empty = pd.DataFrame(columns=["table", "dataset", "method", "mean", "std", "std_over", "source"])
    tables = {"text": pd.DataFrame(), "graph": pd.DataFrame()}
    text = write_report(tmp_path / "REPORT.md", config=copy.deepcopy(CONFIG), ours=empty, tables=tables,
                        store_metas={}, training=read, store_sha256={"bbcsport": a}).read_text()
    title = text.split("## Setup")[0]
    assert f"**Records and stores disagree:** bbcsport's runs name {c[:12]}; the store read here is {a[:12]}" in title
    assert line in text.split("## Setup")[1]
    text = write_report(tmp_path / "REPORT.md", config=copy.deepcopy(CONFIG), ours=empty, tables=tables,
                        store_metas={}, training=agreeing, store_sha256={"MUTAG": a, "PROTEINS": b}).read_text()
    assert "disagree" not in text and "- stores as recorded" in text


def test_a_per_dataset_embedding_setting_is_an_input_difference():
    config = copy.deepcopy(CONFIG)
    assert embedding_differences(config) == ["REDDIT-BINARY: struc2vec walks_per_node 1, epochs 1 "
                                             "(the other graph datasets: 10, 5)"]
    config["datasets"]["graph"] = ["MUTAG", "PROTEINS"]          # only the config's datasets are named
    assert embedding_differences(config) == []
    config["struc2vec"]["per_dataset"] = {"mutag": {"dim": 20, "hs": True}}   # a key equal to the default is no difference
    assert embedding_differences(config) == ["MUTAG: struc2vec hs True (the other graph datasets: the default)"]
    config["struc2vec"]["per_dataset"] = {"MUTAG": {"checkpoint": True, "variant": "paper"}}   # how it is built: none
    config["struc2vec"]["variant"] = "reference"
    assert embedding_differences(config) == ["MUTAG: struc2vec variant paper (the other graph datasets: reference)"]


def test_the_setup_is_a_table_of_five_settings_without_dict_dumps():
    config = copy.deepcopy(CONFIG)
    config["models"]["repset_init_small"] = {**config["models"]["repset"], "options": {"init": "small"}}
    table = setup_table(config, ["glove-6b-50d", "struc2vec"])
    assert table.index.tolist() == ["solver", "embeddings", "protocol", "training", "selection"]
    assert not any("{'" in v or "':" in v for v in table["value"])
    assert table.loc["solver", "value"].startswith("numba")
    assert table.loc["embeddings", "value"].startswith("glove-6b-50d, struc2vec (the paper:")
    shown = {k: "none" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
             for k, v in config["train"].items()}
    assert table.loc["training", "value"] == (", ".join(f"{k} {v}" for k, v in shown.items())
                                              + "; lr 0.01: RepSet, ApproxRepSet, RepSet (init small)")
    assert "distinct_elements true" in table.loc["training", "value"]
    assert table.loc["selection", "value"].endswith(
        "grids: m {20, 30, 50, 100} x |Y| {10, 20, 50}: RepSet, ApproxRepSet, RepSet (init small); fixed: DeepSets, "
        "NN-mean, NN-max, NN-attention, Set-Transformer")
    config["protocol"]["grid_splits"] = 1
    assert "the grid searched on the first 1 split(s) only" in setup_table(config, []).loc["selection", "value"]


def test_every_graph_store_names_its_struc2vec_variant():
    metas = {"MUTAG.struc2vec": {"dataset": "MUTAG", "embedding": "struc2vec", "struc2vec": {"dim": 20}},
             "proteins.struc2vec": {"dataset": "proteins", "embedding": "struc2vec",
                                    "struc2vec": {"variant": "reference"}},
             "IMDB-BINARY.struc2vec": {"dataset": "IMDB-BINARY", "embedding": "struc2vec",
                                       "struc2vec": {"variant": "paper"}},
             "bbcsport.glove-6b-50d": {"dataset": "bbcsport", "vectors": "glove-6b-50d"}}
    # a store without the key was built by the rules `paper` keeps; text stores are not named
    assert struc2vec_variants(metas) == [
        "the struc2vec paper's wording (`variant: paper`): IMDB-BINARY, MUTAG",
        "the reference implementation's rules, as its code runs them (`variant: reference`): PROTEINS"]
    assert struc2vec_variants({}) == []
