"""The protocol's training jobs at their natural grain: one run per (dataset, model, grid point, split, seed).

A split on which the grid is searched (every split when the dataset's ``grid_splits`` is null, else the first G;
:func:`~repset.protocol.plan.protocol_for`: ``protocol.grid_splits`` or its ``protocol.per_dataset`` override)
trains every grid point of the model, one job each. A later split trains the point that validation chose
most often on the searched splits: its job's point is :data:`CHOSEN` and it reads the grid-choice file,
written by its own job from the searched splits' records. With ``grid_scope: repetition`` (a graph dataset's
``protocol.per_dataset`` override) each CV repetition has a grid choice of its own: the grid is searched on
the first G folds of every repetition and its later folds train the point chosen there (:func:`grid_blocks`).
Models without a grid train one point (``default``) on every split. Paths (all under
``results/runs/<dataset>/<model>/``)::

    <point>/split<k>_seed<s>.json    one run record (metrics, timings, options, provenance)
    chosen/split<k>_seed<s>.json     a later split's record (the point it trained is inside)
    grid_seed<s>.json                the grid choice later splits inherit (of the first repetition, r = 0)
    grid_seed<s>_rep<r>.json         with grid_scope: repetition, the grid choice of repetition r >= 1
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .plan import datasets, layer_options, model_points, models_for, protocol_for, split_count, train_settings
from .selection import repetition

__all__ = ["CHOSEN", "Run", "grid_blocks", "searched_splits", "choice_repetitions", "model_runs", "runs",
           "grid_choice_path", "grid_choice_of", "grid_choice_inputs", "check_run", "run_settings", "wildcard_patterns",
           "name_pattern"]

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


def grid_blocks(config: dict, dataset: str, model: str) -> list[tuple[range, range]]:
    """The grid choices of ``model`` on ``dataset`` in split order, each as (the splits that train every grid
    point, the later splits that train the point validation chose on them). One choice for the whole protocol:
    its first ``grid_splits`` splits (every split, and no later ones, where ``grid_splits`` is null or the model
    has one point); with ``grid_scope: repetition``, one per CV repetition (:func:`~.selection.repetition`; a
    dataset without repetitions keeps one): the repetition's first ``grid_splits`` folds, then its other folds.
    A choice's index (0, 1, ...) is its ``repetition`` in :func:`grid_choice_path`."""
    n, protocol = split_count(dataset, config), protocol_for(config, dataset)
    searched = protocol.get("grid_splits")
    if searched is None or len(model_points(config, model)) == 1:
        return [(range(n), range(n, n))]
    per_repetition = protocol.get("grid_scope") == "repetition"
    groups: dict[int | None, list[int]] = {}
    for k in range(n):                    # splits are repetition-major: each group is a run of splits
        groups.setdefault(repetition(dataset, k) if per_repetition else None, []).append(k)
    blocks = []
    for splits in groups.values():
        cut = splits[0] + min(searched, len(splits))
        blocks.append((range(splits[0], cut), range(cut, splits[-1] + 1)))
    return blocks


def searched_splits(config: dict, dataset: str, model: str) -> int:
    """How many splits train every grid point of ``model`` on ``dataset`` (the first G; with ``grid_scope:
    repetition``, the first G folds of each repetition)."""
    return sum(len(searched) for searched, _ in grid_blocks(config, dataset, model))


def choice_repetitions(config: dict, dataset: str, model: str) -> dict[int, int]:
    """Split -> the index of the grid choice (:func:`grid_blocks`) it searches or trains: 0 for every split
    but with ``grid_scope: repetition``, where it is the split's CV repetition."""
    blocks = grid_blocks(config, dataset, model)
    return {k: b for b, (searched, later) in enumerate(blocks) for k in (*searched, *later)}


def model_runs(config: dict, dataset: str, model: str, seed: int) -> list[Run]:
    """The jobs of ``model`` on ``dataset`` with ``seed``, grid choice by grid choice (:func:`grid_blocks`):
    every point on its searched splits, then one :data:`CHOSEN` job per later split."""
    points = list(model_points(config, model))
    return [run for searched, later in grid_blocks(config, dataset, model)
            for run in [Run(dataset, model, point, k, seed) for k in searched for point in points]
            + [Run(dataset, model, CHOSEN, k, seed) for k in later]]


def runs(config: dict, dataset_names: list[str] | None = None) -> list[Run]:
    """Every training job the config asks for (datasets in config order, then models, then seeds)."""
    return [run for dataset in dataset_names or datasets(config) for model in models_for(config, dataset)
            for seed in config["protocol"]["seeds"] for run in model_runs(config, dataset, model, seed)]


def grid_choice_path(dataset: str, model: str, seed: int | str, repetition: int | str = 0) -> str:
    """The grid-choice file of ``repetition`` (:func:`grid_blocks`' index): ``grid_seed<s>.json`` for the
    first (the protocol's only choice without ``grid_scope: repetition``), ``grid_seed<s>_rep<r>.json`` after."""
    suffix = f"_rep{repetition}" if int(repetition) else ""
    return f"results/runs/{dataset}/{model}/grid_seed{seed}{suffix}.json"


def grid_choice_of(config: dict, run: Run) -> str:
    """The grid-choice file a :data:`CHOSEN` ``run`` reads: its repetition's (:func:`choice_repetitions`)."""
    return grid_choice_path(run.dataset, run.model, run.seed,
                            choice_repetitions(config, run.dataset, run.model)[run.split])


def grid_choice_inputs(config: dict, dataset: str, model: str, seed: int, repetition: int | None = None) -> list[str]:
    """Records the grid choice ``repetition`` (:func:`grid_blocks`' index) of ``model`` on ``dataset`` reads: every
    point on its searched splits. None: the only choice; ValueError where the grid is searched on each CV
    repetition (``grid_scope: repetition``) or there is no choice ``repetition``."""
    blocks = grid_blocks(config, dataset, model)
    if repetition is None and len(blocks) > 1:
        raise ValueError(f"{dataset} searches the grid of {model} on each CV repetition (grid_scope: repetition): "
                         f"name the repetition (0..{len(blocks) - 1}) whose grid choice to read")
    repetition = repetition or 0
    if not 0 <= repetition < len(blocks):
        raise ValueError(f"{dataset} has no grid choice of {model} for repetition {repetition}: it has "
                         + (f"repetitions 0..{len(blocks) - 1}" if len(blocks) > 1 else "one, for the whole protocol"))
    points = list(model_points(config, model))
    return [Run(dataset, model, point, k, seed).path for k in blocks[repetition][0] for point in points]


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
        blocks = grid_blocks(config, dataset, model)
        if not any(split in later for _, later in blocks):
            searched = ", ".join(f"{s.start}..{s.stop - 1}" if len(s) > 1 else str(s.start) for s, _ in blocks)
            raise ValueError(f"split {split} of {dataset} searches the grid of {model} (splits {searched}): "
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
