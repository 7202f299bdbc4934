"""Model selection and aggregation over run records: per split and model the hyper-parameters with the
lowest validation error (ties: lower validation loss, then the first in grid order); mean and std of
the test metrics over splits."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # pandas is imported where a frame is built: a training job needs none (0.3 s)
    import pandas as pd

__all__ = ["records_frame", "select", "aggregate", "selected_point"]


def records_frame(records: Iterable[dict]) -> pd.DataFrame:
    """Flatten run records (with ``dataset``, ``model``, ``split``, ``point`` keys) into a table."""
    rows = []
    for r in records:
        rows.append({"dataset": r["dataset"], "model": r["model"], "split": r["split"], "point": r["point"],
                     "seed": r["train_config"]["seed"], "val_error": r["val"]["error"], "val_loss": r["val"]["loss"],
                     "test_error": r["test"]["error"], "test_accuracy": r["test"]["accuracy"],
                     "epoch_seconds": r["epoch_seconds_median"], "epochs_run": r["epochs_run"]})
    import pandas as pd

    return pd.DataFrame(rows)


def select(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, model, split, seed): the run with the lowest val error, then val loss, then grid order."""
    keys = ["dataset", "model", "split"] + (["seed"] if "seed" in frame.columns else [])
    ordered = frame.reset_index(drop=True).reset_index(names="order")
    ordered = ordered.sort_values(keys + ["val_error", "val_loss", "order"])
    return ordered.groupby(keys, sort=False).head(1).drop(columns="order")


def aggregate(selected: pd.DataFrame) -> pd.DataFrame:
    """Mean and std (ddof=0, over splits and seeds) of test error and accuracy in percent, per dataset and model."""
    g = selected.groupby(["dataset", "model"])
    import pandas as pd

    out = pd.DataFrame({
        "test_error_mean": g["test_error"].mean() * 100, "test_error_std": g["test_error"].std(ddof=0) * 100,
        "test_accuracy_mean": g["test_accuracy"].mean() * 100, "test_accuracy_std": g["test_accuracy"].std(ddof=0) * 100,
        "splits": g["split"].nunique(), "epoch_seconds": g["epoch_seconds"].median(),
        "points": g["point"].agg(lambda s: ",".join(sorted(set(s)))),
    })
    return out.reset_index()


def selected_point(frame: pd.DataFrame) -> str:
    """The grid point that validation selected on most splits of ``frame`` (ties: the lower mean
    validation error of the selected runs, then grid order)."""
    chosen = select(frame).reset_index(drop=True).reset_index(names="order")
    votes = chosen.groupby("point").agg(count=("split", "size"), val=("val_error", "mean"), order=("order", "min"))
    votes = votes.sort_values(["count", "val", "order"], ascending=[False, True, True])
    return str(votes.index[0])
