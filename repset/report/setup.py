"""REPORT.md's setup: how a config departs from the paper's protocol and inputs, the setup table (solver,
embeddings, protocol, training, selection), how the records say their runs were trained and which stores they read,
and how the config files are named."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from repset.datasets.registry import get_spec
from repset.protocol.plan import (describe_override, protocol_for, protocol_overrides, split_count, split_per_dataset,
                                  struc2vec_options)
from repset.report.tables import DISPLAY

__all__ = ["PAPER_PROTOCOL", "PAPER_GRID", "PAPER_DATASETS", "BUILD_ONLY_OPTIONS", "protocol_differences",
           "embedding_differences",
           "struc2vec_variants",
           "setup_table", "recorded_training", "recorded_stores", "read_training", "config_file_names"]

#: the paper's protocol: what a config must keep to call its numbers a reproduction of the paper's
PAPER_PROTOCOL = {"text_splits": 5, "graph_splits": 100, "grid_splits": None}
PAPER_GRID = {"n_hidden_sets": [20, 30, 50, 100], "hidden_set_size": [10, 20, 50]}
PAPER_DATASETS = {"text": ["bbcsport", "twitter", "recipe", "ohsumed", "classic", "reuters", "amazon", "20ng"],
                  "graph": ["MUTAG", "PROTEINS", "IMDB-BINARY", "IMDB-MULTI", "REDDIT-BINARY"]}


def protocol_differences(config: dict) -> list[str]:
    """How ``config`` departs from the paper's protocol (empty: the paper's protocol)."""
    out = []
    for key, paper in PAPER_PROTOCOL.items():
        ours = config["protocol"].get(key)
        if ours != paper and not (key.endswith("_splits") and paper is not None and ours is not None and ours >= paper):
            out.append(f"protocol.{key} = {ours} (paper: {'every split' if paper is None else paper})")
    out += [f"{name}: {describe_override(config, name)}" for name in protocol_overrides(config)
            if _reduced(config, name)]
    for model in ("repset", "approx_repset"):
        grid = config["models"].get(model, {}).get("grid")
        if grid is not None and {k: sorted(v) for k, v in grid.items()} != PAPER_GRID:
            out.append(f"models.{model}.grid = {grid} (paper: {PAPER_GRID})")
    for kind, names in PAPER_DATASETS.items():
        missing = sorted({get_spec(n).name for n in names} - {get_spec(n).name for n in config["datasets"][kind]})
        if missing:
            out.append(f"{kind} datasets left out: {', '.join(missing)}")
    return out


#: struc2vec options that choose how a store is built, not its embedding (a resumed build's embedding equals an
#: uninterrupted one's; the store's metadata still records the option, so its sha256 differs)
BUILD_ONLY_OPTIONS = frozenset({"checkpoint"})


def embedding_differences(config: dict) -> list[str]:
    """The graph datasets of ``config`` whose node embeddings (``struc2vec.per_dataset``) depart from the struc2vec
    settings every other graph dataset uses, in words (e.g. ``REDDIT-BINARY: struc2vec walks_per_node 1, epochs 1
    (the other graph datasets: 10, 5)``; :data:`BUILD_ONLY_OPTIONS` are no departure); none: empty."""
    defaults, _ = split_per_dataset(config["struc2vec"])
    out = []
    for name in config["datasets"].get("graph") or []:
        changed = {k: v for k, v in struc2vec_options(name, config).items()
                   if defaults.get(k) != v and k not in BUILD_ONLY_OPTIONS}
        if changed:
            out.append(f"{get_spec(name).name}: struc2vec {', '.join(f'{k} {v}' for k, v in changed.items())} "
                       f"(the other graph datasets: {', '.join(str(defaults.get(k, 'the default')) for k in changed)})")
    return out


#: what each struc2vec variant computes, in words (docs/data.md, "Two variants")
STRUC2VEC_VARIANTS = {"paper": "the struc2vec paper's wording (`variant: paper`)",
                      "reference": "the reference implementation's rules, as its code runs them (`variant: reference`)"}


def struc2vec_variants(store_metas: dict[str, dict]) -> list[str]:
    """The struc2vec variant of every graph store the report read, from the stores' metadata (``store_metas``: store
    name -> the ``meta`` of its sidecar): one phrase per variant naming its datasets, e.g. ``the struc2vec paper's
    wording (`variant: paper`): MUTAG, PROTEINS``. A store whose metadata names no variant was built before the key
    existed, by the rules ``variant: paper`` keeps bit for bit. No graph store: empty."""
    found: dict[str, list[str]] = {}
    for meta in store_metas.values():
        if meta.get("embedding") == "struc2vec":
            variant = (meta.get("struc2vec") or {}).get("variant", "paper")
            found.setdefault(variant, []).append(get_spec(meta["dataset"]).name)
    return [f"{STRUC2VEC_VARIANTS.get(v, f'`variant: {v}`')}: {', '.join(sorted(names))}"
            for v, names in sorted(found.items())]


def _reduced(config: dict, dataset: str) -> bool:
    """Whether ``dataset``'s protocol (its ``protocol.per_dataset`` override applied) trains fewer splits than
    the paper's, or searches the grid on fewer than all of them."""
    paper = split_count(dataset, {"data": config["data"], "protocol": PAPER_PROTOCOL})
    splits, searched = split_count(dataset, config), protocol_for(config, dataset).get("grid_splits")
    return splits < paper or (searched is not None and searched < splits)



def recorded_training(training: pd.DataFrame) -> str:
    """One Setup line from :func:`~repset.protocol.selection.training_paths`: the datasets on each training path
    (with their runs on it) and the runs per device, as the records say (the config's ``train`` names one path,
    for new runs only)."""
    def path_name(distinct: bool, ragged: bool, bound) -> str:
        return ", ".join(["each batch's distinct elements (matching layers)" if distinct else "padded batches",
                          *(["ragged (groups of similar size)"] if ragged else []),
                          "no element bound" if pd.isna(bound) else f"at most {int(bound):,} elements per batch"])

    groups = training.groupby(["distinct_elements", "ragged", "max_elements"], dropna=False, sort=True)
    paths = "; ".join(f"{path_name(*key)}: "
                      + ", ".join(f"{d} ({n:,})" for d, n in frame.groupby("dataset", sort=False)["runs"].sum().items())
                      for key, frame in groups)
    devices = training.groupby("device")["runs"].sum()
    return (f"- training as recorded (the runs' `train_config` and store): {paths}; runs per device: "
            + ", ".join(f"{device} {n:,}" for device, n in devices.items()))


def recorded_stores(training: pd.DataFrame, current: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """The stores the runs read, from :func:`~repset.protocol.selection.training_paths`' ``store`` column: a Setup
    line (each dataset's store sha256, first 12 hex digits, with its runs) and the integrity problems found: a
    dataset whose runs name more than one store, or none, or a store other than ``current`` (dataset -> the sha256
    of the store this report read, e.g. for its Majority class row). ("", []) for an empty table or one without the
    column."""
    if training.empty or "store" not in training.columns:
        return "", []
    problems, parts = [], []
    for dataset, frame in training.groupby("dataset", sort=False):
        runs = frame.groupby(frame["store"].fillna("").astype(str), sort=True)["runs"].sum()
        parts.append(f"{dataset} " + ", ".join(f"{sha[:12] or 'none named'} ({n:,})" for sha, n in runs.items()))
        named = [sha for sha in runs.index if sha]
        if len(runs) > 1:
            problems.append(f"the runs of {dataset} name {len(runs)} stores (" + ", ".join(
                f"{sha[:12] or 'none'}: {n:,} runs" for sha, n in runs.items()) + ")")
        elif not named:
            problems.append(f"the runs of {dataset} name no store")
        theirs = (current or {}).get(dataset)
        if theirs and named and set(named) != {theirs}:
            problems.append(f"{dataset}'s runs name {', '.join(sha[:12] for sha in named)}; the store read here is "
                            f"{theirs[:12]}")
    line = "- stores as recorded (the sha256 each run's record names, first 12 hex digits): " + "; ".join(parts)
    return line, problems


def read_training(path: str | os.PathLike) -> pd.DataFrame:
    """``results/aggregate/training.csv`` as :func:`~repset.protocol.selection.training_paths` wrote it (names
    such as "NA" stay names; an empty ``max_elements`` is no bound)."""
    return pd.read_csv(path, keep_default_na=False, na_values={"max_elements": [""]},
                       dtype={"dataset": str, "device": str, "store": str, "max_elements": "Int64"})


def config_file_names(paths: Sequence[str | os.PathLike], root: str | os.PathLike) -> list[str]:
    """How REPORT.md names the config files ``paths`` (relative ones are relative to the working
    directory): POSIX paths relative to the repository ``root``; a file outside it by its name, marked
    so, with the first 12 hex digits of its sha256. Never a path of the machine that ran the workflow."""
    root = Path(root).resolve()
    names = []
    for f in paths:
        path = Path(f).resolve()
        if path.is_relative_to(root):
            names.append(path.relative_to(root).as_posix())
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.is_file() else "unread"
            names.append(f"{path.name} (outside the repository, sha256 {digest})")
    return names


def _settings(values: dict) -> str:
    """``{'epochs': 50, 'lr': 0.001}`` -> ``epochs 50, lr 0.001`` (None as none, booleans in lower case)."""
    def show(v) -> str:
        return "none" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
    return ", ".join(f"{k} {show(v)}" for k, v in values.items())


#: grid key -> its symbol in the paper
GRID_SYMBOL = {"n_hidden_sets": "m", "hidden_set_size": "|Y|"}


def _grid(grid: dict | None) -> str:
    if not grid:
        return "fixed"
    return " x ".join(f"{GRID_SYMBOL.get(k, k)} {{{', '.join(str(v) for v in values)}}}" for k, values in grid.items())


def _grouped(config: dict, text) -> str:
    """Models grouped by ``text(settings)``: ``value: Model, Model; value: Model``."""
    groups: dict[str, list[str]] = {}
    for model, settings in config["models"].items():
        groups.setdefault(text(settings), []).append(DISPLAY.get(model, model))
    return "; ".join(f"{value}: {', '.join(models)}" for value, models in groups.items())


def setup_table(config: dict, vectors: Sequence[str]) -> pd.DataFrame:
    """REPORT.md's setup as a table of five rows (solver, embeddings, protocol, training, selection), from
    ``config`` and the stores' ``vectors``."""
    protocol = config["protocol"]
    splits = (f"text: {protocol['text_splits']} of the 5 random 70/30 splits (1 where predefined); graphs: "
              f"{protocol['graph_splits']} of the 10 x 10 CV folds; seeds {', '.join(str(s) for s in protocol['seeds'])}"
              + "".join(f"; {name} (`protocol.per_dataset`): {describe_override(config, name)}"
                        for name in protocol_overrides(config)))
    overrides = {m: s["train"] for m, s in config["models"].items() if s.get("train")}
    training = _settings(config["train"]) + ("; " + _grouped(
        {"models": {m: config["models"][m] for m in overrides}}, lambda s: _settings(s["train"])) if overrides else "")
    searched = protocol.get("grid_splits")
    selection = ("per split, the grid point with the lowest validation error (then loss)"
                 + (f"; the grid searched on the first {searched} split(s) only, every later split training the point "
                    "selected most often there" if searched else "") + "; grids: " + _grouped(config, lambda s: _grid(s.get("grid"))))
    rows = {"solver": f"{config['solver']} (exact RepSet's matchings)",
            "embeddings": f"{', '.join(vectors) or 'none read'} (the paper: GoogleNews word2vec 300-d for text, "
                          "struc2vec 20-d for graphs)",
            "protocol": splits, "training": training, "selection": selection}
    return pd.DataFrame({"setting": list(rows), "value": list(rows.values())}).set_index("setting")
