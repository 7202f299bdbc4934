"""Model selection and aggregation over run records: per split and model the hyper-parameters with the
lowest validation error (ties: lower validation loss, then the first in grid order); mean and std of
the test metrics over splits."""
from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:   # pandas is imported where a frame is built: a training job needs none (0.3 s)
    import numpy as np
    import pandas as pd

__all__ = ["records_frame", "TrainingPath", "training_path", "count_training_paths", "training_paths", "select",
           "tie_spread", "tie_break_cells", "random_tie_cells", "aggregate", "selected_point", "repetition",
           "FRAME_COLUMNS", "SUMMARY_COLUMNS", "TRAINING_COLUMNS", "TIE_COLUMNS"]

#: the columns of :func:`records_frame` (also of an empty one)
FRAME_COLUMNS = ("dataset", "model", "split", "point", "seed", "val_error", "val_loss", "test_error",
                 "test_accuracy", "epoch_seconds", "epochs_run")
#: the columns of :func:`aggregate` (also of an empty one)
SUMMARY_COLUMNS = ("dataset", "model", "test_error_mean", "test_error_std", "test_accuracy_mean",
                   "test_accuracy_std", "splits", "repetitions", "std_over", "epoch_seconds", "points")
#: the columns of :func:`training_paths`
TRAINING_COLUMNS = ("dataset", "distinct_elements", "ragged", "max_elements", "device", "store", "runs")
#: the columns of :func:`tie_spread`
TIE_COLUMNS = ("dataset", "model", "choices", "tied_error", "tied_both", "error_selected", "error_random",
               "error_low", "error_high")


def records_frame(records: Iterable[dict]) -> pd.DataFrame:
    """Flatten run records (with ``dataset``, ``model``, ``split``, ``point`` keys) into a table
    (:data:`FRAME_COLUMNS`; no records: an empty one)."""
    rows = []
    for r in records:
        rows.append({"dataset": r["dataset"], "model": r["model"], "split": r["split"], "point": r["point"],
                     "seed": r["train_config"]["seed"], "val_error": r["val"]["error"], "val_loss": r["val"]["loss"],
                     "test_error": r["test"]["error"], "test_accuracy": r["test"]["accuracy"],
                     "epoch_seconds": r["epoch_seconds_median"], "epochs_run": r["epochs_run"]})
    import pandas as pd

    return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))


class TrainingPath(NamedTuple):
    """One run's training path: :data:`TRAINING_COLUMNS` but ``runs``."""
    dataset: str
    distinct_elements: bool
    ragged: bool
    max_elements: int | None
    device: str
    store: str = ""     # the sha256 of the store the run read (its record's ``store_meta``; "" where it names none)


def training_path(record: dict) -> TrainingPath:
    """How one run was trained, as its record says: the row key of :func:`training_paths` (``dataset``,
    ``distinct_elements``, ``ragged``, ``max_elements``, ``device``). ``distinct_elements``: the path taken, i.e.
    the option on (``train_config``) and a store with element ids (``store_meta.layout``; the matching layers then
    train on each batch's distinct elements; a store of values, as the graphs', pads whatever the option says).
    ``ragged``, ``max_elements``: the options. A record without one of them predates it
    (:data:`repset.provenance.LEGACY_DEFAULTS`). ``store``: the sha256 of the store it read."""
    from repset.provenance import LEGACY_DEFAULTS

    config = {**LEGACY_DEFAULTS, **record["train_config"]}
    store = record.get("store_meta") or {}
    layout = store.get("layout") or ""
    return TrainingPath(record["dataset"], bool(config["distinct_elements"]) and "element_ids" in layout.split("+"),
                        bool(config["ragged"]), config["max_elements"], str(config.get("device") or "cpu"),
                        str(store.get("sha256") or ""))


def count_training_paths(paths: Iterable[TrainingPath]) -> pd.DataFrame:
    """:func:`training_path` keys -> one row per distinct key with its count of runs (:data:`TRAINING_COLUMNS`),
    sorted by dataset then path."""
    import pandas as pd

    counts: dict[tuple, int] = {}
    for key in paths:
        counts[key] = counts.get(key, 0) + 1
    order = sorted(counts, key=lambda k: (k.dataset, k.distinct_elements, k.ragged, k.max_elements is not None,
                                          k.max_elements or 0, k.device, k.store))
    frame = pd.DataFrame([(*key, counts[key]) for key in order], columns=list(TRAINING_COLUMNS))
    frame["max_elements"] = frame["max_elements"].astype("Int64")
    return frame


def training_paths(records: Iterable[dict]) -> pd.DataFrame:
    """How the runs were trained: one row per dataset and training path (:func:`training_path`) with its count
    of runs (:data:`TRAINING_COLUMNS`)."""
    return count_training_paths(training_path(r) for r in records)


def select(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, model, split, seed): the run with the lowest val error, then val loss, then grid order."""
    keys = _choice_keys(frame)
    ordered = frame.reset_index(drop=True).reset_index(names="order")
    ordered = ordered.sort_values(keys + ["val_error", "val_loss", "order"])
    return ordered.groupby(keys, sort=False).head(1).drop(columns="order")


def tie_spread(frame: pd.DataFrame) -> pd.DataFrame:
    """How often a tie on validation error decided the grid choice, and how far it can move a cell: per dataset and
    model with a grid, over its (split, seed) groups with two or more grid points (``choices``), those where two or
    more points share the lowest validation error (``tied_error``; :func:`select` then takes the lower validation
    loss) and those tied on the loss too (``tied_both``; grid order decides). ``error_selected``: the cell's mean test
    error (%) as :func:`select` chooses; ``error_random``: its expected value were the ties broken uniformly at random
    (each group's mean tied test error); ``error_low``/``error_high``: its least and greatest over every way of
    breaking the ties (each group's best and worst tied test error). A group of one point (a reduced protocol's
    chosen run, ``grid_splits``) counts at its own test error, so the cell is the result table's; a tie on a searched
    split would also change the point its later splits train, which these bounds do not follow. Columns:
    :data:`TIE_COLUMNS`; ValueError where a validation error or loss is missing (NaN)."""
    import pandas as pd

    missing = frame[frame[["val_error", "val_loss"]].isna().any(axis=1)]
    if len(missing):
        raise ValueError(f"tie_spread: {len(missing)} runs without a validation error or loss, e.g. "
                         f"{missing.iloc[0][_choice_keys(frame) + ['point']].to_dict()}")
    tied, keys = _error_tied(frame)
    tied = tied.assign(at_loss_min=tied["val_loss"] == tied.groupby(keys)["val_loss"].transform("min"))
    groups = tied.groupby(keys).agg(points=("point", "size"), at_loss_min=("at_loss_min", "sum"),
                                    low=("test_error", "min"), high=("test_error", "max"),
                                    random=("test_error", "mean"))
    groups = groups.join(frame.groupby(keys).size().rename("grid")).join(
        select(frame).set_index(keys)["test_error"].rename("chosen"))
    rows = []
    for (dataset, model), g in groups.groupby(level=["dataset", "model"]):
        choice = g["grid"] > 1
        if choice.any():
            rows.append({"dataset": dataset, "model": model, "choices": int(choice.sum()),
                         "tied_error": int((choice & (g["points"] > 1)).sum()),
                         "tied_both": int((choice & (g["at_loss_min"] > 1)).sum()),
                         **{f"error_{name}": g[column].mean() * 100 for name, column in
                            (("selected", "chosen"), ("random", "random"), ("low", "low"), ("high", "high"))}})
    return pd.DataFrame(rows, columns=list(TIE_COLUMNS))


def _choice_keys(frame: pd.DataFrame) -> list[str]:
    """The columns of one grid choice: dataset, model, split and, where the frame has it, seed."""
    return ["dataset", "model", "split"] + (["seed"] if "seed" in frame.columns else [])


def _error_tied(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The runs of ``frame`` at their choice's lowest validation error, and the choice's columns."""
    keys = _choice_keys(frame)
    return frame[frame["val_error"] == frame.groupby(keys)["val_error"].transform("min")], keys


def tie_break_cells(frame: pd.DataFrame, rules: dict[str, tuple[str, bool]]) -> pd.DataFrame:
    """The cell (mean test error, %) per dataset and model were its ties on validation error broken by each of
    ``rules`` (name -> (a column of ``frame``, ascending): among the tied points the first by it, then by grid order),
    rules that never see the test error. One row per dataset and model, one column per rule."""
    import pandas as pd

    tied, keys = _error_tied(frame.reset_index(drop=True).reset_index(names="order"))
    cells = {name: tied.sort_values(keys + [column, "order"], ascending=[True] * len(keys) + [ascending, True])
             .groupby(keys, sort=False).head(1).groupby(["dataset", "model"])["test_error"].mean() * 100
             for name, (column, ascending) in rules.items()}
    return pd.DataFrame(cells).reset_index()


def random_tie_cells(frame: pd.DataFrame, draws: int, seed: int = 0) -> np.ndarray:
    """``draws`` values of the cell (mean test error, %) of one dataset and model (``frame`` holds its runs only), each
    breaking every tie on validation error uniformly at random (``numpy.random.default_rng(seed)``)."""
    import numpy as np

    tied, keys = _error_tied(frame)
    rng = np.random.default_rng(seed)
    groups = [g["test_error"].to_numpy() for _, g in tied.groupby(keys)]
    picks = np.stack([g[rng.integers(0, len(g), draws)] for g in groups])   # (groups, draws)
    return picks.mean(axis=0) * 100


@functools.lru_cache(maxsize=65536)
def repetition(dataset: str, split: int) -> int | None:
    """The repetition of the CV that ``split`` belongs to (``split // folds``: splits are repetition-major),
    None for a dataset whose protocol is not repeated CV (the text datasets) or that the registry does not
    know (its splits are taken as independent). Cached: the planner asks it for every split of every job."""
    from repset.datasets.registry import dataset_names, get_spec

    if dataset.lower() not in {n.lower() for n in dataset_names()}:
        return None
    spec = get_spec(dataset)
    return split // spec.n_splits if spec.n_repeats > 1 else None


def aggregate(selected: pd.DataFrame) -> pd.DataFrame:
    """Mean and std (ddof=0) of test error and accuracy in percent, per dataset and model. For repeated CV (the
    graphs) with two or more repetitions, the std is over the repetitions' means (the paper's), not over folds;
    ``std_over`` says which ("repetitions", "splits"; "folds" for a single repetition). Columns:
    :data:`SUMMARY_COLUMNS` (no runs selected: an empty table)."""
    import pandas as pd

    selected = selected.assign(repetition=[repetition(d, s) for d, s in zip(selected["dataset"], selected["split"])])
    rows = []
    for (dataset, model), g in selected.groupby(["dataset", "model"]):
        reps = g["repetition"].dropna()
        means = g.groupby("repetition")[["test_error", "test_accuracy"]].mean() if reps.nunique() > 1 else g
        row = {"dataset": dataset, "model": model, "test_error_mean": g["test_error"].mean() * 100,
               "test_error_std": means["test_error"].std(ddof=0) * 100,
               "test_accuracy_mean": g["test_accuracy"].mean() * 100,
               "test_accuracy_std": means["test_accuracy"].std(ddof=0) * 100,
               "splits": g["split"].nunique(), "repetitions": int(reps.nunique()),
               "std_over": "repetitions" if reps.nunique() > 1 else "folds" if len(reps) else "splits",
               "epoch_seconds": g["epoch_seconds"].median(), "points": ",".join(sorted(set(g["point"])))}
        rows.append(row)
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))


def selected_point(frame: pd.DataFrame) -> str:
    """The grid point that validation selected on most splits of ``frame`` (ties: the lower mean
    validation error of the selected runs, then grid order)."""
    chosen = select(frame).reset_index(drop=True).reset_index(names="order")
    votes = chosen.groupby("point").agg(count=("split", "size"), val=("val_error", "mean"), order=("order", "min"))
    votes = votes.sort_values(["count", "val", "order"], ascending=[False, True, True])
    return str(votes.index[0])
