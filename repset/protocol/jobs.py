"""The protocol's training jobs at their natural grain: one run per (dataset, model, grid point, split, seed).

A split on which the grid is searched (every split when the dataset's ``grid_splits`` is null, else the first G;
:func:`~repset.protocol.plan.protocol_for`: ``protocol.grid_splits`` or its ``protocol.per_dataset`` override)
trains every grid point of the model, one job each. A later split trains the point that validation chose
most often on the searched splits: its job's point is :data:`CHOSEN` and it reads the grid-choice file,
written by its own job from the searched splits' records. Models without a grid train one point
(``default``) on every split. Paths (all under ``results/runs/<dataset>/<model>/``)::

    <point>/split<k>_seed<s>.json    one run record (metrics, timings, options, provenance)
    chosen/split<k>_seed<s>.json     a later split's record (the point it trained is inside)
    grid_seed<s>.json                the grid choice later splits inherit
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .plan import datasets, layer_options, model_points, models_for, protocol_for, split_count, train_settings

__all__ = ["CHOSEN", "Run", "searched_splits", "model_runs", "runs", "grid_choice_path", "grid_choice_inputs",
           "check_run", "run_settings", "wildcard_patterns", "name_pattern"]

#: the point of a job that trains the grid choice of the searched splits
CHOSEN = "chosen"


@dataclass(frozen=True)
class Run:
    """One training job: ``point`` is a grid point id (``k20-m50``, ``default``) or :data:`CHOSEN`."""

    dataset: str
    model: str
    point: str
    split: int
    seed: int

    @property
    def path(self) -> str:
        return f"results/runs/{self.dataset}/{self.model}/{self.point}/split{self.split}_seed{self.seed}.json"


def searched_splits(config: dict, dataset: str, model: str) -> int:
    """How many (first) splits train every grid point of ``model`` on ``dataset``."""
    n, searched = split_count(dataset, config), protocol_for(config, dataset).get("grid_splits")
    if searched is None or len(model_points(config, model)) == 1:
        return n
    return min(searched, n)


def model_runs(config: dict, dataset: str, model: str, seed: int) -> list[Run]:
    """The jobs of ``model`` on ``dataset`` with ``seed``: every point on the searched splits, then one
    :data:`CHOSEN` job per later split."""
    searched, points = searched_splits(config, dataset, model), list(model_points(config, model))
    return ([Run(dataset, model, point, k, seed) for k in range(searched) for point in points]
            + [Run(dataset, model, CHOSEN, k, seed) for k in range(searched, split_count(dataset, config))])


def runs(config: dict, dataset_names: list[str] | None = None) -> list[Run]:
    """Every training job the config asks for (datasets in config order, then models, then seeds)."""
    return [run for dataset in dataset_names or datasets(config) for model in models_for(config, dataset)
            for seed in config["protocol"]["seeds"] for run in model_runs(config, dataset, model, seed)]


def grid_choice_path(dataset: str, model: str, seed: int | str) -> str:
    return f"results/runs/{dataset}/{model}/grid_seed{seed}.json"


def grid_choice_inputs(config: dict, dataset: str, model: str, seed: int) -> list[str]:
    """Records the grid choice of ``model`` on ``dataset`` reads: every point on the searched splits."""
    return [run.path for run in model_runs(config, dataset, model, seed) if run.point != CHOSEN]


def check_run(config: dict, dataset: str, model: str, point: str, split: int | str, seed: int | str) -> Run:
    """The :class:`Run` a job's wildcards name; ValueError saying what is wrong with them otherwise."""
    if dataset not in datasets(config):
        raise ValueError(f"dataset {dataset!r} is not in the config's datasets {datasets(config)}")
    if model not in config["models"]:
        raise ValueError(f"model {model!r} is not in the config's models {list(config['models'])}")
    if model not in models_for(config, dataset):
        raise ValueError(f"model {model!r} does not train on {dataset!r}: its config key 'models.{model}.datasets' "
                         f"lists {config['models'][model]['datasets']}")
    split, seed = int(split), int(seed)
    n = split_count(dataset, config)
    if not 0 <= split < n:
        raise ValueError(f"split {split} of {dataset}: the protocol has splits 0..{n - 1}")
    points = list(model_points(config, model))
    if point == CHOSEN:
        searched = searched_splits(config, dataset, model)
        if split < searched:
            raise ValueError(f"split {split} of {dataset} searches the grid of {model} (splits 0..{searched - 1}): "
                             f"train a grid point there ({', '.join(points)}), not {CHOSEN!r}")
    elif point not in points:
        raise ValueError(f"grid point {point!r} is not in the grid of {model}: {', '.join(points)}")
    return Run(dataset, model, point, split, seed)


def run_settings(config: dict, model: str, point: str) -> dict:
    """What one job depends on, and nothing else (the rule's params: editing another model, dataset or
    grid point reruns nothing here): the layer, the options of ``point`` (of every point for
    :data:`CHOSEN`, which learns its point from the grid choice) and the model's train settings."""
    options = layer_options(config, model)
    return {"layer": config["models"][model]["layer"], "options": options if point == CHOSEN else options[point],
            "train": train_settings(config, model)}


def wildcard_patterns(config: dict) -> dict[str, str]:
    """Regular expressions of the training jobs' wildcards: the config's dataset, model and point names,
    integer splits and seeds. A target outside them matches no rule (Snakemake refuses it)."""
    points = {p for model in config["models"] for p in model_points(config, model)} | {CHOSEN}
    return {"dataset": name_pattern(datasets(config)), "model": name_pattern(config["models"]),
            "point": name_pattern(points), "split": r"\d+", "seed": r"\d+"}


def name_pattern(names) -> str:
    """``a|b|c`` matching exactly these names (longest first, escaped)."""
    return "|".join(re.escape(n) for n in sorted(set(names), key=lambda n: (-len(n), n)))
