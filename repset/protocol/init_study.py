"""The hidden-set initialisation study (config ``init_study``): how RepSet's accuracy and the movement
of its hidden elements depend on how they start.

One job per (dataset, init, split, seed) trains the study's model (``init_study.model``, RepSet by
default) from that init at the grid point the protocol's validation selected on that split, among the
protocol's own runs of the model (trained from the model's configured init). Fixing the point makes the
comparison one of initialisations alone; it favours the configured init, whose own runs chose the point,
so an init that still beats it does so on a handicap. The configured init is rerun too, so that every
init's record carries the same measurements (the rerun equals the protocol's run: tested). Paths::

    results/init_study/<dataset>/<init>/split<k>_seed<s>.json
"""
from __future__ import annotations

from dataclasses import dataclass

from .jobs import name_pattern, model_runs
from .plan import datasets, layer_options, split_count, train_settings

__all__ = ["InitRun", "study_splits", "init_runs", "selection_inputs", "check_init_run", "init_settings",
           "configured_init", "init_wildcard_patterns"]


@dataclass(frozen=True)
class InitRun:
    """One study job: the study's model on ``dataset`` split ``split`` from hidden-set init ``init``."""

    dataset: str
    init: str
    split: int
    seed: int

    @property
    def path(self) -> str:
        return f"results/init_study/{self.dataset}/{self.init}/split{self.split}_seed{self.seed}.json"


def study_splits(config: dict, dataset: str) -> int:
    """How many (first) splits of ``dataset`` the study trains: ``init_study.splits`` (null: all)."""
    n, wanted = split_count(dataset, config), config["init_study"].get("splits")
    return n if wanted is None else min(int(wanted), n)


def init_runs(config: dict) -> list[InitRun]:
    """Every study job (none when the config has no ``init_study``)."""
    study = config.get("init_study")
    if not study:
        return []
    return [InitRun(d, init, k, seed) for d in _study_datasets(config) for init in study["inits"]
            for k in range(study_splits(config, d)) for seed in config["protocol"]["seeds"]]


def selection_inputs(config: dict, run: InitRun) -> list[str]:
    """The protocol's records of the study's model on ``run``'s split: every grid point where the grid is
    searched there, else the one run of the point chosen on the searched splits."""
    model = config["init_study"]["model"]
    return [r.path for r in model_runs(config, run.dataset, model, run.seed) if r.split == run.split]


def check_init_run(config: dict, dataset: str, init: str, split: int | str, seed: int | str) -> InitRun:
    """The :class:`InitRun` a job's wildcards name; ValueError saying what is wrong otherwise."""
    study = config.get("init_study") or {}
    names = _study_datasets(config) if study else []
    if dataset not in names:
        raise ValueError(f"dataset {dataset!r} is not in init_study.datasets {names}")
    if init not in study["inits"]:
        raise ValueError(f"init {init!r} is not in init_study.inits {study['inits']}")
    split, seed = int(split), int(seed)
    if not 0 <= split < study_splits(config, dataset):
        raise ValueError(f"split {split} of {dataset}: the study trains splits 0..{study_splits(config, dataset) - 1}")
    if seed not in config["protocol"]["seeds"]:
        raise ValueError(f"seed {seed} is not in protocol.seeds {config['protocol']['seeds']}")
    return InitRun(dataset, init, split, seed)


def init_settings(config: dict) -> dict:
    """What a study job depends on: the model's layer, the options of every grid point (the job learns its
    point from the protocol's records) and its train settings."""
    model = config["init_study"]["model"]
    return {"model": model, "layer": config["models"][model]["layer"], "options": layer_options(config, model),
            "train": train_settings(config, model)}


def configured_init(config: dict) -> str:
    """The init the study's model trains from in the protocol (its options' ``init``, else the layer's default)."""
    return config["models"][config["init_study"]["model"]]["options"].get("init", "uniform")


def init_wildcard_patterns(config: dict) -> dict[str, str]:
    """Regular expressions of the study jobs' wildcards (the study's datasets and inits)."""
    study = config.get("init_study") or {}
    return {"dataset": name_pattern(_study_datasets(config) if study else ["-"]),
            "init": name_pattern(study.get("inits") or ["-"]), "split": r"\d+", "seed": r"\d+"}


def _study_datasets(config: dict) -> list[str]:
    """The study's datasets in registry spelling, in the config's dataset order."""
    from repset.datasets.registry import get_spec

    wanted = {get_spec(d).name for d in config["init_study"]["datasets"]}
    return [d for d in datasets(config) if d in wanted]
