"""Config checks that need the library: each names the key, before any job runs."""
import copy

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
     r"config key 'models.approx_repset.grid': .*unknown form='exact'"),
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
