"""Pipeline glue of the protocol budget: dataset shapes from the stores / raw graphs, CSV + Markdown out."""
from __future__ import annotations

import logging

import numpy as np

from repset.protocol.budget import DatasetShape, budget_table, summarize
from repset.datasets import build_graph_collection, get_spec, graph_cv_splits
from repset.datasets.store import load_collection
from repset.io import atomic_path

log = logging.getLogger(__name__)


def text_shape(dataset: str, store: str) -> DatasetShape:
    """Training-set sizes of split 0 of a built text store (element dim of its word vectors)."""
    coll, _ = load_collection(store)
    split = coll.splits[0]
    sizes = np.diff(coll.offsets)   # set sizes straight from the offsets: no element values materialised
    return DatasetShape(get_spec(dataset).name, sizes[split["train"]], coll.dim, len(coll.class_names),
                        len(split["val"]))


def graph_shape(dataset: str, raw_dir: str, dim: int, val_fraction: float, seed: int) -> DatasetShape:
    """Training-set node counts of fold 0 of the 10 x 10 CV (no embedding needed: dim from the config)."""
    coll = build_graph_collection(dataset, raw_dir)
    split = graph_cv_splits(coll, val_fraction=val_fraction, seed=seed)[0]
    return DatasetShape(get_spec(dataset).name, coll.n_nodes[split["train"]], dim, coll.n_classes,
                        len(split["val"]))


def write_budget(shapes: list[DatasetShape], config: dict, cores: int, csv_out: str, md_out: str,
                 sample: int = 256) -> None:
    """Measure every dataset x model x point; write the rows (CSV) and the per-job summary (Markdown)."""
    table = budget_table(shapes, config, sample=sample, seed=config["seed"],
                         progress=lambda r: log.info("%s %s %s: %.3f s/epoch", r["dataset"], r["model"], r["point"],
                                                     r["epoch_seconds"]))
    jobs = summarize(table, cores)
    with atomic_path(csv_out) as tmp:
        table.to_csv(tmp, index=False)
    searched = config["protocol"].get("grid_splits")
    lines = [
        "# Protocol budget (estimated from measured epochs)", "",
        f"Every dataset x model x grid point trained for one timed epoch on {sample} synthetic sets with the "
        "dataset's training-set sizes, dimension and classes (scaled to the full training set), one thread, "
        f"times `train.epochs` = {config['train']['epochs']} (an upper bound: early stopping stops sooner) "
        "times the runs of the protocol (grid searched on "
        + (f"the first {searched} split(s))." if searched else "every split)."), "",
        f"**Total: {jobs.attrs['total_hours']:.1f} CPU hours; {jobs.attrs['wall_hours']:.1f} h wall-clock on "
        f"{cores} cores** (total / cores, at least the longest job).", "",
        "| dataset | model | hours | share |", "|---|---|---|---|",
        *[f"| {r.dataset} | {r.model} | {r.hours:.2f} | {100 * r.share:.1f} % |" for r in jobs.itertuples()],
    ]
    with atomic_path(md_out) as tmp:
        with open(tmp, "w") as f:
            f.write("\n".join(lines) + "\n")
