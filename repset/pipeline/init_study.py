"""Library side of the hidden-set initialisation study (:mod:`repset.protocol.init_study`) and of the
latent-set tables: one study job, the study table, a latent-set table per init and their side-by-side view."""
from __future__ import annotations

import logging
import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from repset.datasets.store import load_store, read_sidecar
from repset.io import write_json
from repset.protocol.init_study import InitRun
from repset.protocol.jobs import Run
from repset.protocol.selection import records_frame, select
from repset.training.run import train_run
from repset.training.trainer import TrainConfig

from .config import check_device
from .preflight import check_writable
from .train import read_record, run_record

log = logging.getLogger(__name__)

__all__ = ["train_init_run", "hidden_set_alignment", "init_study_frame", "init_study_table", "latent_sets",
           "latent_sets_side_by_side"]


def train_init_run(store: str, run: InitRun, settings: dict, protocol_records: Sequence[str | os.PathLike],
                   out: str | os.PathLike) -> dict:
    """Train the study's model (``settings``: :func:`~repset.protocol.init_study.init_settings`) on ``run``'s
    split from ``run.init``, at the point validation selected among ``protocol_records`` (the protocol's
    runs of the model on that split); write the record, with the hidden sets' movement and class
    alignment (:func:`hidden_set_alignment`), to ``out`` (its folder checked writable before training)."""
    check_writable([out], "nothing was trained")
    records = [read_record(p) for p in protocol_records]
    frame = records_frame(records)
    if frame.empty or set(frame["split"]) != {run.split} or set(frame["model"]) != {settings["model"]}:
        raise ValueError(f"{run}: the protocol records must be {settings['model']}'s runs on split {run.split}, "
                         f"got {sorted(set(zip(frame.get('model', []), frame.get('split', []))))}")
    selected = records[int(select(frame).index[0])]
    stored = selected.get("store_meta", {}).get("sha256")
    current = read_sidecar(store).get("sha256")
    if stored and current and stored != current:
        raise ValueError(f"{run}: the protocol's selected run was trained on a store with sha256 {stored[:12]}, "
                         f"{store} has {current[:12]}: rebuild one of them so that both use the same data")
    point = selected["point"]
    if point not in settings["options"]:
        raise ValueError(f"{run}: the protocol selected point {point!r}, not in the grid {sorted(settings['options'])}")
    options = {**settings["options"][point], "init": run.init}
    snapshots: dict = {}
    extra = {"init": run.init, "selected_run": {"point": point, "init": settings["options"][point].get("init", "uniform"),
                                                "val_error": selected["val"]["error"],
                                                "test_error": selected["test"]["error"]}}
    result = run_record(store, Run(run.dataset, settings["model"], point, run.split, run.seed), point, options,
                        {**settings, "init": run.init}, extra, snapshots=snapshots)
    result["class_alignment"] = hidden_set_alignment(snapshots["model"].layer, snapshots["initial_weight"],
                                                     snapshots["train"], seed=run.seed)
    write_json(out, result)
    return result


def hidden_set_alignment(layer, initial_weight, train, seed: int = 0) -> dict[str, float]:
    """:func:`~repset.report.latent_sets.class_alignment` of the trained hidden elements, their initial
    values, their displacement, and as many standard-normal vectors (seeded): the chance level."""
    from repset.report.latent_sets import class_alignment, class_directions

    directions = class_directions(train)
    start, end = layer.hidden_elements(initial_weight).double().numpy(), layer.hidden_elements().double().numpy()
    chance = np.random.default_rng(seed).standard_normal(end.shape)
    return {name: class_alignment(v, directions) for name, v in
            (("trained", end), ("initial", start), ("displacement", end - start), ("random", chance))}


def init_study_frame(records: Sequence[dict]) -> pd.DataFrame:
    """One row per study record: dataset, init, split, seed, point, test error and accuracy, movement and
    alignment figures."""
    rows = []
    for r in records:
        rows.append({"dataset": r["dataset"], "init": r["init"], "split": r["split"], "seed": r["seed"],
                     "point": r["point"], "val_error": r["val"]["error"], "test_error": r["test"]["error"],
                     "test_accuracy": r["test"]["accuracy"], "selected_test_error": r["selected_run"]["test_error"],
                     **r["hidden_movement"], **{f"alignment_{k}": v for k, v in r["class_alignment"].items()}})
    return pd.DataFrame(rows)


def init_study_table(records: Sequence[dict], baseline: str, out_stem: str | os.PathLike | None = None) -> pd.DataFrame:
    """Per dataset and init: the test metric (text: error %, graphs: accuracy %) mean +- std over splits,
    the paper's RepSet cell and the gain over it in paper sigma (positive: better than the paper), the
    paired gain over ``baseline`` (the configured init) in points with the splits it wins and loses, and
    how far the hidden elements moved (cosine to their start, displacement / initial norm) and how they
    align with the class directions (trained, displacement, chance). Written to ``out_stem``.{md,tex,csv}."""
    from repset.datasets.registry import get_spec
    from repset.report.reported import reported_results
    from repset.report.tables import write_table

    frame = init_study_frame(records)
    paper = reported_results()
    paper = paper[paper["method"] == "repset"].set_index("dataset")
    rows = []
    for (dataset, init), part in frame.groupby(["dataset", "init"], sort=False):
        text = get_spec(dataset).kind == "text"
        column = "test_error" if text else "test_accuracy"
        metric = part[column] * 100
        sign = -1 if text else 1                                       # +: better
        base = frame[(frame["dataset"] == dataset) & (frame["init"] == baseline)].set_index(["split", "seed"])
        paired = (sign * (part.set_index(["split", "seed"])[column] - base[column]) * 100).dropna()
        ref = paper.loc[dataset] if dataset in paper.index else None
        ref_std = None if ref is None or pd.isna(ref["std"]) or not ref["std"] else float(ref["std"])
        rows.append({
            "dataset": get_spec(dataset).display, "init": init, "metric": "error %" if text else "accuracy %",
            "splits": len(part), "mean": metric.mean(), "std": metric.std(ddof=0),
            "paper": None if ref is None else float(ref["mean"]), "paper std": ref_std,
            "gain over paper (sigma)": None if ref_std is None else sign * (metric.mean() - float(ref["mean"])) / ref_std,
            f"gain over {baseline} (pp)": paired.mean() if len(paired) else None,
            "wins/losses": f"{int((paired > 0).sum())}/{int((paired < 0).sum())}" if len(paired) else "-",
            "cos to start": part["cosine_to_initial"].mean(),
            "moved / start norm": (part["displacement_norm"] / part["initial_norm"]).mean(),
            "align trained": part["alignment_trained"].mean(), "align moved": part["alignment_displacement"].mean(),
            "align chance": part["alignment_random"].mean()})
    table = pd.DataFrame(rows).set_index(["dataset", "init"])
    if out_stem is not None:
        caption = ("Hidden-set initialisation study: RepSet at the grid point the protocol's validation selected per "
                   f"split (with init {baseline}), trained from each init; gains are positive when better; "
                   "alignment: mean largest cosine of a hidden element with a class's mean-element direction")
        write_table(table.map(lambda v: round(v, 3) if isinstance(v, float) else v), out_stem, caption)
    return table


def latent_sets(store: str, vectors_name: str, config: dict, out_stem: str, *, init: str = "uniform",
                n_hidden_sets: int = 50, hidden_set_size: int = 20, count: int = 5, seed: int = 0,
                top_words: int = 50000) -> pd.DataFrame:
    """The paper's latent-set table: train RepSet (m, |Y|, hidden sets from ``init``) on split 0 with
    ``config["train"]`` (RepSet's settings), then the words nearest to the elements and centroid of the
    ``count`` most used hidden sets, and to their displacement from the initial values, among the
    ``top_words`` most frequent words of the embedding (GloVe and word2vec list words by frequency; the
    rare tail is mostly noise). The caption gives the hidden elements' class alignment."""
    from repset.datasets.vectors import load_vectors
    from repset.report.latent_sets import latent_table, most_used_hidden_sets
    from repset.report.tables import write_table

    check_device(config["train"], "repset")
    data, splits, _ = load_store(store)
    options = {"n_hidden_sets": n_hidden_sets, "hidden_set_size": hidden_set_size, "solver": config["solver"],
               "init": init}
    snapshots: dict = {}
    record, model = train_run(data, splits[0], "repset", options, TrainConfig.from_record(config["train"], seed=seed),
                              snapshots=snapshots)
    kv = load_vectors(vectors_name)
    chosen = most_used_hidden_sets(model, count)
    trained, initial = model.layer.hidden_sets(), model.layer.hidden_sets(snapshots["initial_weight"])
    table = latent_table([trained[i].numpy() for i in chosen], [initial[i].numpy() for i in chosen],
                         kv.vectors[:top_words], kv.index_to_key[:top_words])
    table.insert(1, "hidden_set_index", chosen)
    align = hidden_set_alignment(model.layer, snapshots["initial_weight"], data.subset(splits[0]["train"]), seed)
    caption = (f"Words (the {top_words} most frequent) of {vectors_name} nearest (cosine) to the elements and centroids "
               f"of the {count} most used hidden sets of RepSet (m={n_hidden_sets}, |Y|={hidden_set_size}, init {init}) "
               f"trained on split 0 (test error {record['test']['error'] * 100:.2f}%), and to their displacement from "
               f"the initial values; elements moved: cosine to start {record['hidden_movement']['cosine_to_initial']:.3f}; "
               "class alignment: " + ", ".join(f"{k} {v:.3f}" for k, v in align.items()))
    write_table(table.set_index("hidden_set"), out_stem, caption)
    return table


def latent_sets_side_by_side(csv_files: dict[str, str | os.PathLike], out_stem: str | os.PathLike) -> pd.DataFrame:
    """The latent-set tables of several inits (``init -> its .csv``) in one table, rows (init, hidden set)."""
    from repset.report.tables import write_table

    table = pd.concat({init: pd.read_csv(path, index_col="hidden_set") for init, path in csv_files.items()},
                      names=["init", "hidden_set"])
    write_table(table.drop(columns="hidden_set_index"), out_stem,
                "Latent sets per hidden-set init: words nearest to the trained elements and to their displacement")
    return table
