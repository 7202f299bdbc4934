"""Many training runs in one process, outside Snakemake (a GPU machine's driver, an interactive session):
each record written exactly as the ``train`` rule writes it (:func:`~repset.pipeline.train.train_pack`).

    python -m repset.pipeline.pack config.yaml results/runs/MUTAG/repset/k10-m20/split0_seed0.json ...

Records that exist are skipped (``--force``: retrained); a ``chosen`` run reads its grid-choice file,
which must exist. Paths are the protocol's (:attr:`repset.protocol.jobs.Run.path`), relative to the
repository root.
"""
from __future__ import annotations

import argparse
import logging
import os
import re
from collections.abc import Sequence

from repset.protocol.jobs import CHOSEN, Run, check_run, grid_choice_path, run_settings
from repset.protocol.plan import store_path

from .train import train_pack

__all__ = ["run_of_path", "train_paths", "main"]

PATH = re.compile(r"results/runs/(?P<dataset>[^/]+)/(?P<model>[^/]+)/(?P<point>[^/]+)/split(?P<split>\d+)_seed(?P<seed>\d+)\.json$")


def run_of_path(config: dict, path: str) -> Run:
    """The protocol run whose record is ``path`` (ValueError when it names none of the config's runs)."""
    match = PATH.search(str(path))
    if match is None:
        raise ValueError(f"{path}: not a run record path (results/runs/<dataset>/<model>/<point>/split<k>_seed<s>.json)")
    return check_run(config, **match.groupdict())


def train_paths(config: dict, paths: Sequence[str], force: bool = False) -> list[dict]:
    """Train the runs of the record ``paths`` (missing ones, or all with ``force``) in this process, grouped
    by store and grid-choice file in the given order; returns the records written."""
    runs = [run_of_path(config, p) for p in paths if force or not os.path.exists(p)]
    groups: dict[tuple[str, str | None], list[dict]] = {}
    for run in runs:
        choice = grid_choice_path(run.dataset, run.model, run.seed) if run.point == CHOSEN else None
        groups.setdefault((store_path(run.dataset, config), choice), []).append(
            {"run": run, "settings": run_settings(config, run.model, run.point), "out": run.path})
    return [record for (store, choice), jobs in groups.items() for record in train_pack(store, jobs, choice=choice)]


def main(argv: Sequence[str] | None = None) -> None:
    import yaml

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config")
    parser.add_argument("records", nargs="+")
    parser.add_argument("--force", action="store_true", help="retrain records that exist")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    with open(args.config) as f:
        config = yaml.safe_load(f)
    train_paths(config, args.records, args.force)


if __name__ == "__main__":
    main()
