"""Config checks that need the library: each names the key, before any job runs."""
import copy
import re

import pytest
import yaml
from repo_paths import ROOT

from repset.pipeline.config import check_config

CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())


def merged(base, over):
    """``over`` merged into ``base`` recursively, as Snakemake merges --configfile over config.yaml."""
    out = dict(base)
    for key, value in over.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def test_the_shipped_configs_pass():
    check_config(copy.deepcopy(CONFIG))
    for profile in ("quick.yaml", "medium.yaml"):
        check_config(merged(CONFIG, yaml.safe_load((ROOT / profile).read_text())))


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["models"]["repset"]["grid"].update(n_hidden_sets=[0]),
     r"config key 'models.repset.grid': .*n_hidden_sets must be integers >= 1"),
    (lambda c: c["models"]["repset"]["grid"].update(hiden_set_size=[3]),
     r"config key 'models.repset.grid': .*unexpected keyword argument 'hiden_set_size'"),
    (lambda c: c["models"]["repset"].update(grid={}),
     r"config key 'models.repset.options': .*missing 2 required positional arguments"),
    (lambda c: c["models"]["approx_repset"]["options"].update(form="exact"),
     r"config key 'models.approx_repset.options': .*unknown form='exact'"),
    (lambda c: c["models"]["deepsets"]["options"].update(widths=[3]),
     r"config key 'models.deepsets.options': .*unexpected keyword argument 'widths'"),
    (lambda c: c["struc2vec"]["per_dataset"].update(MUTAG={"walks": 3}),
     r"config key 'struc2vec.per_dataset.MUTAG': unknown options \['walks'\]"),
    (lambda c: c["struc2vec"]["per_dataset"].update(bbcsport={"epochs": 1}),
     r"config key 'struc2vec.per_dataset.bbcsport': bbcsport is a text dataset"),
    (lambda c: c["struc2vec"].update(dimension=3), r"config key 'struc2vec': unknown options \['dimension'\]"),
    (lambda c: c["bench"].update(solvers=["scipy", "hungarian"]), r"config key 'bench.solvers': unknown solver 'hungarian'"),
    (lambda c: c["bench"].update(epoch_variants=["repset/lap"]), r"config key 'bench.epoch_variants': unknown variants"),
    (lambda c: c["runtime"].update(variants=["deepset"]), r"config key 'runtime.variants': unknown variants"),
    (lambda c: c["bench"].update(epoch_stores=["MUTAG"]), r"config key 'bench.epoch_stores': MUTAG is a graph dataset"),
    (lambda c: c["bench"].update(epoch_stores=["bbc"]), r"config key 'bench.epoch_stores': unknown dataset 'bbc'"),
    (lambda c: c.update(sensitivity=["recipe"]), r"config key 'sensitivity': 'recipe' is not among the config's datasets"),
    (lambda c: c["wmd"].update(datasets=["MUTAG"]), r"config key 'wmd.datasets': 'MUTAG' is not among the config's text"),
    (lambda c: c["wmd"].update(datasets=["imdb"]), r"config key 'wmd.datasets': unknown dataset 'imdb'"),
    (lambda c: c["verify"].update(set_dataset="MUTAG"), r"config key 'verify.set_dataset': MUTAG is a graph dataset"),
    (lambda c: c["init_study"].update(model="repsett"), r"config key 'init_study.model': 'repsett' is not in models"),
    (lambda c: c["init_study"].update(model="deepsets"), r"config key 'init_study.model': deepsets .* has no hidden sets"),
    (lambda c: c["init_study"].update(inits=["uniform", "xavier"]),
     r"config key 'init_study.inits': unknown \['xavier'\]; valid: uniform, normal, small, elements, scaled"),
    (lambda c: c["init_study"].update(datasets=["recipe"]),
     r"config key 'init_study.datasets': 'recipe' is not among the config's datasets"),
    (lambda c: c["init_study"].update(latent_sets="MUTAG"),
     r"config key 'init_study.latent_sets': 'MUTAG' is not among the config's text datasets"),
])
def test_bad_values_are_named(edit, message):
    config = copy.deepcopy(CONFIG)
    edit(config)
    with pytest.raises(ValueError, match=message):
        check_config(config)


REDUCED = {"REDDIT-BINARY": {"graph_splits": 10, "grid_splits": 1}}
PER_REPETITION = {"REDDIT-BINARY": {"graph_splits": 100, "grid_splits": 1, "grid_scope": "repetition"}}
SCHEMA = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())


def with_overrides(overrides: dict) -> dict:
    config = copy.deepcopy(CONFIG)
    config["protocol"]["per_dataset"] = overrides
    return config


def test_a_per_dataset_protocol_passes_the_schema_and_the_checks():
    jsonschema = pytest.importorskip("jsonschema")

    for overrides in (REDUCED, {"reddit-b": {"grid_splits": None}, "bbcsport": {"text_splits": 2}}, {}, PER_REPETITION,
                      {"MUTAG": {"grid_scope": "protocol"}},
                      {"MUTAG": {"grid_splits": 1, "grid_scope": "repetition"}}):   # packed: packs per repetition
        jsonschema.validate(with_overrides(overrides), SCHEMA)
        check_config(with_overrides(overrides))


@pytest.mark.parametrize("overrides, message", [
    ({"MUTAGG": {"graph_splits": 10}}, r"config key 'protocol.per_dataset.MUTAGG': unknown dataset 'MUTAGG'"),
    ({"recipe": {"text_splits": 2}},
     r"config key 'protocol.per_dataset.recipe': 'recipe' is not among the config's datasets"),
    ({"REDDIT-BINARY": {"graph_splits": 10, "seeds": [1]}},
     r"config key 'protocol.per_dataset.REDDIT-BINARY': cannot override \['seeds'\]; a graph dataset may override "
     r"graph_splits, grid_splits and grid_scope"),
    ({"bbcsport": {"grid_scope": "repetition"}},
     r"config key 'protocol.per_dataset.bbcsport': cannot override \['grid_scope'\]; a text dataset may override "
     r"text_splits and grid_splits \(its splits are no CV repetitions\)"),
    ({"REDDIT-BINARY": {"grid_scope": "fold"}},
     r"config key 'protocol.per_dataset.REDDIT-BINARY.grid_scope': 'fold' is not one of protocol, repetition"),
    ({"MUTAG": {"text_splits": 2}}, r"config key 'protocol.per_dataset.MUTAG': cannot override \['text_splits'\]"),
    ({"REDDIT-BINARY": {"graph_splits": 0}},
     r"config key 'protocol.per_dataset.REDDIT-BINARY.graph_splits': 0 is not an integer >= 1 and <= 100"),
    ({"bbcsport": {"text_splits": 6}}, r"config key 'protocol.per_dataset.bbcsport.text_splits': 6 is not an integer"),
    ({"MUTAG": {"grid_splits": 0}},
     r"config key 'protocol.per_dataset.MUTAG.grid_splits': 0 is not an integer >= 1 or null"),
    ({"MUTAG": {"graph_splits": "10"}}, r"config key 'protocol.per_dataset.MUTAG.graph_splits': '10' is not an integer"),
    ({"MUTAG": None}, r"config key 'protocol.per_dataset.MUTAG': cannot override None"),
    ({"REDDIT-BINARY": {"grid_splits": 1}, "reddit-b": {"grid_splits": 2}},
     r"config key 'protocol.per_dataset.reddit-b': REDDIT-BINARY is overridden twice \(also as 'REDDIT-BINARY'\)"),
])
def test_bad_dataset_overrides_are_named(overrides, message):
    with pytest.raises(ValueError, match=message):
        check_config(with_overrides(overrides))


@pytest.mark.parametrize("overrides, path", [
    ({"REDDIT-BINARY": {"graph_splits": 0}}, ["protocol", "per_dataset", "REDDIT-BINARY", "graph_splits"]),
    ({"REDDIT-BINARY": {"graph_splits": 101}}, ["protocol", "per_dataset", "REDDIT-BINARY", "graph_splits"]),
    ({"REDDIT-BINARY": {"seeds": [1]}}, ["protocol", "per_dataset", "REDDIT-BINARY"]),
    ({"REDDIT-BINARY": 10}, ["protocol", "per_dataset", "REDDIT-BINARY"]),
    ({"REDDIT-BINARY": {"grid_scope": "fold"}}, ["protocol", "per_dataset", "REDDIT-BINARY", "grid_scope"]),
])
def test_the_schema_refuses_bad_overrides_at_their_key(overrides, path):
    jsonschema = pytest.importorskip("jsonschema")

    with pytest.raises(jsonschema.ValidationError) as err:
        jsonschema.validate(with_overrides(overrides), SCHEMA)
    assert list(err.value.absolute_path) == path


def test_grid_scope_is_a_dataset_override_only():
    jsonschema = pytest.importorskip("jsonschema")

    config = copy.deepcopy(CONFIG)
    config["protocol"]["grid_scope"] = "repetition"
    with pytest.raises(jsonschema.ValidationError, match="'grid_scope' was unexpected") as err:
        jsonschema.validate(config, SCHEMA)
    assert list(err.value.absolute_path) == ["protocol"]


def test_case_variants_of_dataset_names_are_accepted():
    config = copy.deepcopy(CONFIG)
    config["sensitivity"], config["wmd"]["datasets"] = ["TWITTER"], ["BBCSport", "r8"]
    check_config(config)


def test_the_cuda_solver_is_usable_from_the_config():
    """``solver: cuda`` with ``train.device: cuda`` passes on any machine: jobs may run on another (a GPU node);
    the solver itself runs on the tensors' device, the CPU included."""
    config = copy.deepcopy(CONFIG)
    config["solver"] = "cuda"
    config["train"]["device"] = "cuda"
    check_config(config)


def test_a_device_this_machine_lacks_is_named_at_job_start(monkeypatch):
    from repset.pipeline.config import check_device

    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    with pytest.raises(ValueError, match=r"config key 'train.device' \(or its override 'models.repset.train.device'\) "
                                         r"is 'cuda' but this machine has no CUDA device"):
        check_device({"device": "cuda"}, "repset")
    with pytest.raises(ValueError, match=r"config key 'train.device' is 'cuda'"):
        check_device({"device": "cuda"})
    check_device({"device": "cpu"}, "repset")
    check_device({}, "repset")                       # cpu, the default
    monkeypatch.setattr("torch.cuda.is_available", lambda: True)
    check_device({"device": "cuda"}, "repset")


def test_the_skipgram_options_pass_at_top_level_and_per_dataset():
    """``hs`` (the reference struc2vec's hierarchical softmax), ``negative``, ``opt1``, ``opt2``: in the schema
    and the checks, globally and in the shipped overlay; a wrong type is refused at its key."""
    jsonschema = pytest.importorskip("jsonschema")
    from repset.protocol.plan import struc2vec_options

    top = merged(CONFIG, {"struc2vec": {"hs": True, "negative": 0, "opt1": False, "opt2": False}})
    overlay = merged(CONFIG, yaml.safe_load((ROOT / "reproduction" / "struc2vec_hs.yaml").read_text()))
    for config in (top, overlay):
        jsonschema.validate(config, SCHEMA)
        check_config(copy.deepcopy(config))
    assert struc2vec_options("IMDB-BINARY", overlay)["hs"] is True and struc2vec_options("PROTEINS", overlay)["hs"] is True
    assert "hs" not in struc2vec_options("MUTAG", overlay)
    with pytest.raises(jsonschema.ValidationError, match="'yes' is not of type 'boolean'"):
        jsonschema.validate(merged(CONFIG, {"struc2vec": {"hs": "yes"}}), SCHEMA)


def test_the_struc2vec_variant_and_checkpoint_pass_and_a_bad_one_is_named():
    """``variant`` (reference / paper) and ``checkpoint`` (a resumable build): in the schema and the checks, at top
    level, per dataset and in the measurement's overlay; an unknown variant and the function's own
    ``checkpoint_dir`` (the job names the folder) are refused at their key."""
    jsonschema = pytest.importorskip("jsonschema")
    from repset.protocol.plan import struc2vec_options

    overlay = merged(CONFIG, yaml.safe_load((ROOT / "reproduction" / "struc2vec_reference.yaml").read_text()))
    top = merged(CONFIG, {"struc2vec": {"variant": "paper", "per_dataset": {"REDDIT-BINARY": {"checkpoint": True}}}})
    for config in (overlay, top):
        jsonschema.validate(config, SCHEMA)
        check_config(copy.deepcopy(config), SCHEMA)
    assert struc2vec_options("MUTAG", overlay)["variant"] == "reference"
    assert struc2vec_options("MUTAG", CONFIG)["variant"] == "reference"          # the default
    for name in ("reproduction/completed", "reproduction/struc2vec_hs", "reproduction/struc2vec_reddit_dose",
                 "reproduction/struc2vec_reddit_walks", "examples/mutag"):           # the record's wording
        paper = merged(CONFIG, yaml.safe_load((ROOT / f"{name}.yaml").read_text()))
        assert {struc2vec_options(d, paper)["variant"] for d in ("MUTAG", "REDDIT-BINARY")} == {"paper"}, name
    assert struc2vec_options("REDDIT-BINARY", top)["checkpoint"] is True
    with pytest.raises(jsonschema.ValidationError, match="'original' is not one of"):
        jsonschema.validate(merged(CONFIG, {"struc2vec": {"variant": "original"}}), SCHEMA)
    with pytest.raises(ValueError, match=r"config key 'struc2vec': unknown options \['checkpoint_dir'\]"):
        check_config(merged(CONFIG, {"struc2vec": {"checkpoint_dir": "x"}}))


def test_the_full_walk_overlay_declares_reddits_store_and_its_ten_repetitions():
    jsonschema = pytest.importorskip("jsonschema")
    from repset.protocol.jobs import runs
    from repset.protocol.plan import struc2vec_options

    full = merged(CONFIG, yaml.safe_load((ROOT / "reproduction" / "reddit_full_walks.yaml").read_text()))
    jsonschema.validate(full, SCHEMA)
    check_config(copy.deepcopy(full), SCHEMA)
    options = struc2vec_options("REDDIT-BINARY", full)
    assert (options["variant"], options["walks_per_node"], options["epochs"], options["checkpoint"]) == (
        "reference", 10, 5, True)
    reddit = runs(full, ["REDDIT-BINARY"])
    assert len(reddit) == 920 and sum(j.model == "repset" for j in reddit) == 210


def test_the_record_overlay_gives_reddit_the_full_walk_store_and_the_rest_the_records():
    """reddit_full_record.yaml over completed.yaml (the report's list once the full-walk protocol is recorded):
    REDDIT-BINARY's struc2vec options, protocol and run paths are those of reddit_full_walks.yaml over config.yaml,
    every other dataset's those of completed.yaml with reddit_reduced.yaml (their stores and records unchanged)."""
    jsonschema = pytest.importorskip("jsonschema")
    from repset.protocol.jobs import runs
    from repset.protocol.plan import protocol_for, struc2vec_options

    def over(*names):
        config = CONFIG
        for name in names:
            config = merged(config, yaml.safe_load((ROOT / "reproduction" / f"{name}.yaml").read_text()))
        return config

    record, full, reduced = over("completed", "reddit_full_record"), over("reddit_full_walks"), over(
        "completed", "reddit_reduced")
    jsonschema.validate(record, SCHEMA)
    check_config(copy.deepcopy(record), SCHEMA)
    assert struc2vec_options("REDDIT-BINARY", record) == struc2vec_options("REDDIT-BINARY", full)
    assert protocol_for(record, "REDDIT-BINARY") == protocol_for(full, "REDDIT-BINARY")
    assert [j.path for j in runs(record, ["REDDIT-BINARY"])] == [j.path for j in runs(full, ["REDDIT-BINARY"])]
    others = [d for kind in ("text", "graph") for d in record["datasets"][kind] if d != "REDDIT-BINARY"]
    assert len(others) == 11
    for dataset in others:
        assert [j.path for j in runs(record, [dataset])] == [j.path for j in runs(reduced, [dataset])], dataset
    for dataset in record["datasets"]["graph"][:-1]:
        assert struc2vec_options(dataset, record) == struc2vec_options(dataset, reduced), dataset
        assert struc2vec_options(dataset, record)["variant"] == "paper"
    from repset.report.setup import embedding_differences     # what the report's setup says of it
    assert embedding_differences(record) == ["REDDIT-BINARY: struc2vec variant reference (the other graph datasets: "
                                             "paper)"]


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["train"].update(epochs=5.0), r"config key 'train.epochs': 5.0 is not an integer \(write 5\)"),
    (lambda c: c["models"]["repset"]["train"].update(patience=2.0),
     r"config key 'models.repset.train.patience': 2.0 is not an integer \(write 2\)"),
    (lambda c: c["protocol"].update(seeds=[0, 1.0]), r"config key 'protocol.seeds\[1\]': 1.0 is not an integer"),
    (lambda c: c["runtime"]["base"].update(m=20.0), r"config key 'runtime.base.m': 20.0 is not an integer"),
    (lambda c: c["runtime"]["sweeps"].update(d=[25, 50.0]), r"config key 'runtime.sweeps.d\[1\]': 50.0 is not"),
])
def test_an_integer_key_written_as_a_float_is_refused(edit, message):
    """JSON Schema's ``integer`` accepts 5.0; ``range(5.0)`` fails in every training job."""
    config = copy.deepcopy(CONFIG)
    edit(config)
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(config, SCHEMA)                         # what the schema alone lets through
    with pytest.raises(ValueError, match=message):
        check_config(config, SCHEMA)                            # the Snakefile passes its schema


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_a_float_that_is_not_finite_is_refused_at_its_key(value):
    for edit, key in ((lambda c: c["train"].update(lr=value), "train.lr"),
                      (lambda c: c["models"]["deepsets"].setdefault("train", {}).update(lr=value),
                       "models.deepsets.train.lr"),
                      (lambda c: c["data"].update(val_fraction=value), "data.val_fraction")):
        config = copy.deepcopy(CONFIG)
        edit(config)
        with pytest.raises(ValueError, match=rf"config key '{re.escape(key)}': -?(inf|nan) is not a finite number"):
            check_config(config)


@pytest.mark.parametrize("name", ["rep/set", "../repset", ".hidden", "rep set"])
def test_a_model_name_that_is_not_one_folder_is_refused(name):
    config = copy.deepcopy(CONFIG)
    config["models"][name] = config["models"].pop("deepsets")
    with pytest.raises(ValueError, match=rf"config key 'models.{re.escape(name)}': a model name is a folder"):
        check_config(config)


def test_a_grid_point_that_is_not_one_folder_is_refused():
    config = copy.deepcopy(CONFIG)
    config["models"]["deepsets"]["grid"] = {"init": ["a/b"]}
    with pytest.raises(ValueError, match=r"config key 'models.deepsets.grid': grid point 'inita/b' is not a folder"):
        check_config(config)


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["datasets"].update(text=["bbcsport", "twitter", "TWITTER"]),
     r"config key 'datasets.text': lists twitter twice \('twitter' and 'TWITTER'\)"),
    (lambda c: c["datasets"].update(graph=["MUTAG", "MUTAG"]), r"config key 'datasets.graph': lists 'MUTAG' twice"),
    (lambda c: c["protocol"].update(seeds=[0, 1, 0]), r"config key 'protocol.seeds': lists 0 twice"),
    (lambda c: c.update(sensitivity=["twitter", "Twitter"]), r"config key 'sensitivity': lists twitter twice"),
    (lambda c: c["wmd"].update(datasets=["reuters", "r8"]), r"config key 'wmd.datasets': lists reuters twice"),
    (lambda c: c["train_packs"].update(datasets=["MUTAG", "mutag"]), r"config key 'train_packs.datasets': lists MUTAG"),
    (lambda c: c["bench"].update(solvers=["scipy", "scipy"]), r"config key 'bench.solvers': lists 'scipy' twice"),
    (lambda c: c["models"]["repset"].update(datasets=["bbcsport", "BBCSport"]),
     r"config key 'models.repset.datasets': lists bbcsport twice"),
])
def test_a_list_that_names_one_thing_twice_is_refused(edit, message):
    config = copy.deepcopy(CONFIG)
    edit(config)
    with pytest.raises(ValueError, match=message):
        check_config(config)


@pytest.mark.parametrize("packed, message", [
    (["MUTAGG"], r"config key 'train_packs.datasets': unknown dataset 'MUTAGG'"),
    (["PROTEINS"], r"config key 'train_packs.datasets': 'PROTEINS' is not among the config's datasets"),
])
def test_packed_datasets_are_datasets_of_the_config(packed, message):
    """A misspelled packed dataset is named (not a failure in the rules' file), and so is one the config does
    not train, which would get pack rules of its own; quick.yaml narrows its packs with its datasets."""
    config = merged(CONFIG, yaml.safe_load((ROOT / "quick.yaml").read_text()))
    assert config["train_packs"]["datasets"] == ["MUTAG"]
    check_config(copy.deepcopy(config))
    config["train_packs"]["datasets"] = packed
    with pytest.raises(ValueError, match=message):
        check_config(config)


def test_a_bad_option_is_named_under_options_and_a_bad_grid_value_under_grid():
    config = copy.deepcopy(CONFIG)
    config["models"]["repset"]["options"] = {"init": "xavier"}
    with pytest.raises(ValueError, match=r"config key 'models.repset.options': .*init"):
        check_config(config)
    config = copy.deepcopy(CONFIG)
    config["models"]["repset"]["grid"]["n_hidden_sets"] = [20, 0]
    with pytest.raises(ValueError, match=r"config key 'models.repset.grid': .*point k10-m0"):
        check_config(config)


# ---- a model from outside the package (repset.training.external): by config alone, or a clear error ----

EXAMPLE = yaml.safe_load((ROOT / "examples" / "sum_pool.yaml").read_text())
BROKEN = '''
import torch
from torch import nn


class NoOutDim(nn.Module):
    def __init__(self, in_dim):
        super().__init__()

    def forward(self, V, lengths):
        return V.sum(1)


class WrongShape(NoOutDim):
    out_dim = 5
'''


def test_the_example_model_passes_over_every_profile(monkeypatch):
    monkeypatch.chdir(ROOT)                                  # its layer is a file relative to the repository root
    for profiles in ([], ["quick.yaml"], ["examples/mutag.yaml"]):
        config = copy.deepcopy(CONFIG)
        for profile in profiles:
            config = merged(config, yaml.safe_load((ROOT / profile).read_text()))
        check_config(merged(config, EXAMPLE), ROOT / "workflow" / "schemas" / "config.schema.yaml")


@pytest.mark.parametrize("name, layer, message", [
    ("mine", "examples/sum_pool.py:SumPol",
     r"config key 'models.mine.layer': layer 'examples/sum_pool.py:SumPol': examples/sum_pool.py has no attribute"),
    ("mine", "no_such_package.pooling:Pool",
     r"config key 'models.mine.layer': layer 'no_such_package.pooling:Pool': cannot import 'no_such_package.pooling'"),
    ("mine", "{broken}:NoOutDim", r"config key 'models.mine.layer': .*needs an attribute out_dim, an int >= 1"),
    ("mine", "{broken}:WrongShape", r"config key 'models.mine.layer': .*returned \(3, 2\), expected \(B, out_dim\)"),
    ("deepsets", "examples/sum_pool.py:SumPool",
     r"config key 'models.deepsets': 'deepsets' is a model of the package and of the record .*needs a model name"),
    ("repset_init_small", "examples/sum_pool.py:SumPool", r"config key 'models.repset_init_small': .*of its own"),
])
def test_a_wrong_import_a_broken_contract_and_a_recorded_name_are_named(tmp_path, monkeypatch, name, layer, message):
    (tmp_path / "broken.py").write_text(BROKEN)
    monkeypatch.chdir(ROOT)
    config = copy.deepcopy(CONFIG)
    config["models"][name] = {"layer": layer.format(broken=tmp_path / "broken.py"), "options": {}, "grid": {}}
    with pytest.raises(ValueError, match=message):
        check_config(config)


def test_records_of_another_layer_under_the_models_name_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    config = merged(CONFIG, EXAMPLE)
    record = tmp_path / "MUTAG" / "sum_pool" / "hidden32" / "split0_seed0.json"
    record.parent.mkdir(parents=True)
    record.write_text('{"layer": "examples/sum_pool.py:SumPool"}')
    check_config(config, records=tmp_path)                  # its own records: nothing to say
    record.write_text('{"layer": "nn_mean"}')
    check_config(config)                                     # no records folder given: not looked at
    with pytest.raises(ValueError, match=rf"config key 'models.sum_pool.layer': 'examples/sum_pool.py:SumPool', but "
                                         rf"{re.escape(str(record))} holds a run of layer 'nn_mean': name the model"):
        check_config(config, records=tmp_path)


def test_cell_notes_take_one_file_or_a_list_of_them():
    jsonschema = pytest.importorskip("jsonschema")
    for notes in ("reproduction/cell_notes.yaml", ["reproduction/cell_notes.yaml", "more.yaml"], None):
        jsonschema.validate(merged(CONFIG, {"cell_notes": notes}), SCHEMA)
    with pytest.raises(jsonschema.ValidationError, match="3 is not of type 'string'"):
        jsonschema.validate(merged(CONFIG, {"cell_notes": [3]}), SCHEMA)
