"""Packs: several short training jobs run by one process, so that they pay the interpreter's and torch's
start (2-3 s, about as long as a MUTAG run trains) once. A pack holds runs of one dataset, model, seed and
grid choice (:func:`~repset.protocol.jobs.grid_blocks`: one, or one per CV repetition with ``grid_scope:
repetition``) at one stage: the searched grid points, or the :data:`~repset.protocol.jobs.CHOSEN` splits (which
wait for that grid choice). Runs whose record exists already are left out, so a pack never replaces a
finished record; the default grain stays one job per run (``train_packs`` unset, or a dataset not in
its list)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from repset.datasets.registry import get_spec

from .jobs import CHOSEN, Run, choice_repetitions, grid_choice_path, model_runs
from .plan import models_for

__all__ = ["Pack", "packed_datasets", "packs"]


@dataclass(frozen=True)
class Pack:
    """Runs trained in one job: ``name`` (a rule-name-safe id), the ``runs``, and the grid-choice file the
    chosen runs read (None for searched points)."""

    name: str
    runs: tuple[Run, ...]
    choice: str | None

    @property
    def paths(self) -> list[str]:
        return [run.path for run in self.runs]


def packed_datasets(config: dict) -> list[str]:
    """Canonical names of the datasets whose training jobs travel in packs (``train_packs.datasets``; none
    without that key)."""
    return [get_spec(d).name for d in (config.get("train_packs") or {}).get("datasets", [])]


def packs(config: dict, done: Callable[[str], bool] = lambda path: False) -> list[Pack]:
    """The packs of every packed dataset: per model, seed and grid choice (with ``grid_scope: repetition``, CV
    repetition by repetition), the searched runs, then the chosen runs reading that choice, each list without the
    runs ``done`` (a record path -> bool) says are finished, cut into packs of at most ``train_packs.runs`` runs in
    protocol order. Names: ``<dataset>_<model>_seed<s>_<stage><i>``, ``..._<stage>_rep<r>_<i>`` for repetition
    r >= 1 (``-`` as ``_``)."""
    size = int((config.get("train_packs") or {}).get("runs", 50))
    out = []
    for dataset in packed_datasets(config):
        for model in models_for(config, dataset):
            repetition_of = choice_repetitions(config, dataset, model)
            for seed in config["protocol"]["seeds"]:
                todo = [r for r in model_runs(config, dataset, model, seed) if not done(r.path)]
                for repetition in sorted(set(repetition_of.values())):
                    rep = f"_rep{repetition}_" if repetition else ""
                    for stage, choice in (("grid", None), (CHOSEN, grid_choice_path(dataset, model, seed, repetition))):
                        mine = [r for r in todo if (r.point == CHOSEN) == (stage == CHOSEN)
                                and repetition_of[r.split] == repetition]
                        for i in range(0, len(mine), size):
                            name = f"{dataset}_{model}_seed{seed}_{stage}{rep}{i // size}".replace("-", "_")
                            out.append(Pack(name, tuple(mine[i:i + size]), choice))
    return out
