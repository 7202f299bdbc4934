"""The paper's result tables with our numbers, and results/REPORT.md (paper vs reproduced)."""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from repset.datasets.registry import get_spec
from repset.io import write_atomic
from repset.protocol.plan import (describe_override, protocol_for, protocol_overrides, split_count, split_per_dataset,
                                  struc2vec_options)
from repset.provenance import config_hash, git_commit, package_versions
from repset.report.notes import notes_table
from repset.report.reported import reported_results
from repset.report.standing import TITLE as STANDING_TITLE
from repset.report.tables import DISPLAY, VARIANTS, compare_with_paper, to_markdown, wide_table, write_table


def ours_long(summary: pd.DataFrame, wmd_files: Sequence[str | os.PathLike] = ()) -> pd.DataFrame:
    """Our results as (table, dataset, method, mean, std, std_over, source="ours"): text = test error %, graphs =
    accuracy %. ``std_over``: "splits", "repetitions" (graphs: the std of the CV repetitions' means, as the
    paper's) or "folds" (one repetition). The std is NaN (shown as no "±") where a result comes from one split."""
    rows = []
    for r in summary.itertuples():
        graph = get_spec(r.dataset).kind == "graph"
        std = (r.test_accuracy_std if graph else r.test_error_std) if r.splits > 1 else float("nan")
        rows.append({"table": "graph" if graph else "text", "dataset": r.dataset, "method": r.model,
                     "mean": r.test_accuracy_mean if graph else r.test_error_mean, "std": std,
                     "std_over": getattr(r, "std_over", "splits"), "source": "ours"})
    for path in wmd_files:
        w = json.loads(Path(path).read_text())
        rows.append({"table": "text", "dataset": w["dataset"], "method": "wmd", "mean": w["test_error_mean"],
                     "std": w["test_error_std"] if w["splits"] > 1 else float("nan"), "std_over": "splits",
                     "source": "ours"})
    return pd.DataFrame(rows, columns=["table", "dataset", "method", "mean", "std", "std_over", "source"])


def reference_long(majority_files: Sequence[str | os.PathLike] = ()) -> pd.DataFrame:
    """Reference rows of the result tables, as :func:`ours_long`'s (source "reference"): the majority-class
    predictor (:mod:`repset.protocol.majority`) per dataset. Shown in the tables only: no paper cell, verdict or
    rank."""
    rows = []
    for path in majority_files:
        m = json.loads(Path(path).read_text())
        graph = get_spec(m["dataset"]).kind == "graph"
        key = "test_accuracy" if graph else "test_error"
        rows.append({"table": "graph" if graph else "text", "dataset": m["dataset"], "method": "majority",
                     "mean": m[f"{key}_mean"], "std": m[f"{key}_std"] if m["splits"] > 1 else float("nan"),
                     "std_over": m["std_over"], "source": "reference"})
    return pd.DataFrame(rows, columns=["table", "dataset", "method", "mean", "std", "std_over", "source"])


def _paper(reported: pd.DataFrame, table: str) -> pd.DataFrame:
    part = reported[(reported["table"] == table)]
    return part[["dataset", "method", "method_label", "mean", "std", "role"]].astype({"mean": float, "std": float})


def result_tables(ours: pd.DataFrame, out_dir: str | os.PathLike | None, text_datasets: Sequence[str],
                  graph_datasets: Sequence[str], reference: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """The text_error and graph_accuracy tables: our rows, then the reported-only rows of the paper, then the
    ``reference`` rows (:func:`reference_long`); written to ``out_dir`` (md, tex, csv) unless it is None."""
    reported = reported_results()
    tables = {}
    for table, datasets, stem, caption in (
            ("text", text_datasets, "text_error", "Test error (%) on text categorisation, mean ± std over splits"),
            ("graph", graph_datasets, "graph_accuracy",
             "Accuracy (%) on graph classification, mean ± std over the means of the 10-fold CV repetitions")):
        paper = _paper(reported, table)
        only = paper[paper["role"] == "reported_only"]
        only = only.assign(method=only["method_label"], source="reported").drop(columns=["role", "method_label"])
        extra = reference[reference["table"] == table] if reference is not None else ours.iloc[:0]
        rows = pd.concat([frame.drop(columns=["table", "std_over"], errors="ignore")
                          for frame in (ours[ours["table"] == table], only, extra)])
        wide = wide_table(rows, list(datasets))
        wide.columns = [get_spec(d).display for d in datasets]
        if out_dir is not None:
            write_table(wide, Path(out_dir) / stem, caption)
        tables[table] = wide
    return tables


def comparison(ours: pd.DataFrame) -> pd.DataFrame:
    """Paper vs ours for every method we ran and the paper reports (delta in units of the paper's std)."""
    reported = reported_results()
    frames = []
    for table in ("text", "graph"):
        paper = _paper(reported, table)
        paper = paper[paper["role"] != "reported_only"].drop(columns=["role", "method_label"])
        paper = pd.concat([paper] + [paper[paper["method"] == base].assign(method=variant)
                                     for variant, base in VARIANTS.items()], ignore_index=True)
        mine = ours[ours["table"] == table]
        joined = compare_with_paper(mine[["dataset", "method", "mean", "std"]], paper)
        joined = joined.merge(mine[["dataset", "method", "std_over"]], on=["dataset", "method"], how="left")
        frames.append(joined[joined["mean_ours"].notna()].assign(table=table))
    out = pd.concat(frames, ignore_index=True)
    out["method"] = out["method"].map(lambda m: DISPLAY.get(m, m))
    out["dataset"] = out["dataset"].map(lambda d: get_spec(d).display)
    out["verdict"] = out["delta_in_paper_sigma"].map(verdict)
    one = out["std_over"] == "folds"                 # one CV repetition: its std is not the paper's kind
    out.loc[one, "verdict"] = "no sigma verdict (one repetition: std over folds)"
    out.loc[one, "delta_in_paper_sigma"] = float("nan")   # one repetition's mean is not a mean of 10: no paper-sigma unit
    return out.drop(columns="std_over")


def verdict(delta_in_sigma: float) -> str:
    """Where a cell lands against the paper: within 1 or 2 of the paper's std, outside, or no std given."""
    if delta_in_sigma is None or pd.isna(delta_in_sigma):
        return "no paper std"
    size = abs(float(delta_in_sigma))
    return "within 1 sigma" if size <= 1 else "within 2 sigma" if size <= 2 else "outside 2 sigma"


def verdict_summary(comp: pd.DataFrame) -> pd.DataFrame:
    """Per table: cells compared, how many within 1 and 2 paper sigma (cumulative), outside, without a std;
    the paper's methods only (an opt-in variant's cells are counted in its own section)."""
    rows = []
    if "method" in comp:
        comp = comp[~comp["method"].isin({DISPLAY.get(v, v) for v in VARIANTS})]
    for table, part in comp.groupby("table", sort=False):
        v = part["verdict"]
        rows.append({"table": table, "cells": len(part), "within 1 sigma": int((v == "within 1 sigma").sum()),
                     "within 2 sigma": int(v.isin(["within 1 sigma", "within 2 sigma"]).sum()),
                     "outside 2 sigma": int((v == "outside 2 sigma").sum()),
                     "no paper std": int((v == "no paper std").sum()),
                     "one repetition": int(v.str.startswith("no sigma verdict").sum())})
    return pd.DataFrame(rows).set_index("table")


def ranks(ours: pd.DataFrame, methods: Sequence[str] = ("repset", "approx_repset", *VARIANTS)) -> pd.DataFrame:
    """Rank (1 = best) of ``methods`` per dataset, ours beside the paper's ranking (text: lower error is better;
    graphs: higher accuracy). Text: among the methods we ran. Graphs: among the methods of the paper's graph
    table: those we ran (ours) and its reported-only baselines (PSCN ... DiffPool, the paper's numbers). A
    variant (:data:`~repset.report.tables.VARIANTS`) is ranked in its paper method's place."""
    reported = reported_results()
    rows = []
    for (table, dataset), rows_here in ours.groupby(["table", "dataset"], sort=False):
        paper_here = _paper(reported, table)
        paper_here = paper_here[paper_here["dataset"] == dataset]
        for m in methods:
            base = VARIANTS.get(m, m)
            part = rows_here[~rows_here["method"].isin((set(VARIANTS) | {base}) - {m})].replace({"method": {m: base}})
            if base not in set(part["method"]):
                continue
            paper = paper_here
            if table == "graph":
                baselines = paper[paper["role"] == "reported_only"][["method", "mean"]].dropna()
                part = pd.concat([part[part["method"].isin(paper["method"])][["method", "mean"]], baselines])
            paper = paper[paper["method"].isin(part["method"])]
            ascending = table == "text"
            mine = part.set_index("method")["mean"].rank(ascending=ascending, method="min")
            theirs = paper.set_index("method")["mean"].rank(ascending=ascending, method="min")
            rows.append({"table": table, "dataset": get_spec(dataset).display, "method": DISPLAY.get(m, m),
                         "rank ours": int(mine[base]), "rank paper": int(theirs[base]) if base in theirs.index else None,
                         "of": int(len(mine))})
    return pd.DataFrame(rows, columns=["table", "dataset", "method", "rank ours", "rank paper", "of"])


def variants_against_paper(comp: pd.DataFrame) -> pd.DataFrame:
    """Each variant's cells against its paper method's number (:func:`comparison` rows), beside our number for
    that method: ``beats`` is a lower error (text) or a higher accuracy (graphs) than the paper's."""
    names = {DISPLAY.get(v, v): DISPLAY.get(b, b) for v, b in VARIANTS.items()}
    part = comp[comp["method"].isin(names) & comp["mean_paper"].notna()].copy()
    better = (part["mean_ours"] < part["mean_paper"]).where(part["table"] == "text", part["mean_ours"] > part["mean_paper"])
    part["paper method"] = part["method"].map(names)
    part["beats the paper"] = better.map({True: "yes", False: "no"})
    ours_base = comp[["dataset", "method", "mean_ours"]].rename(columns={"method": "paper method", "mean_ours": "ours, paper method"})
    part = part.merge(ours_base, on=["dataset", "paper method"], how="left")
    return part[["method", "table", "dataset", "mean_ours", "paper method", "ours, paper method", "mean_paper", "verdict",
                 "beats the paper"]]


def _fmt(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.map(lambda v: f"{v:.2f}" if isinstance(v, float) else ("-" if v is None else v))


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


def embedding_differences(config: dict) -> list[str]:
    """The graph datasets of ``config`` whose node embeddings (``struc2vec.per_dataset``) depart from the struc2vec
    settings every other graph dataset uses, in words (e.g. ``REDDIT-BINARY: struc2vec walks_per_node 1, epochs 1
    (the other graph datasets: 10, 5)``); none: empty."""
    defaults, _ = split_per_dataset(config["struc2vec"])
    out = []
    for name in config["datasets"].get("graph") or []:
        changed = {k: v for k, v in struc2vec_options(name, config).items() if defaults.get(k) != v}
        if changed:
            out.append(f"{get_spec(name).name}: struc2vec {', '.join(f'{k} {v}' for k, v in changed.items())} "
                       f"(the other graph datasets: {', '.join(str(defaults.get(k, 'the default')) for k in changed)})")
    return out


def _reduced(config: dict, dataset: str) -> bool:
    """Whether ``dataset``'s protocol (its ``protocol.per_dataset`` override applied) trains fewer splits than
    the paper's, or searches the grid on fewer than all of them."""
    paper = split_count(dataset, {"data": config["data"], "protocol": PAPER_PROTOCOL})
    splits, searched = split_count(dataset, config), protocol_for(config, dataset).get("grid_splits")
    return splits < paper or (searched is not None and searched < splits)


def _variant_section(comp: pd.DataFrame) -> list[str]:
    """REPORT.md lines for the opt-in variants that ran (none: no lines)."""
    table = variants_against_paper(comp)
    if table.empty:
        return []
    lines = ["### Past the paper: opt-in variants", "",
             "Rows trained from their own config overlay and records (e.g. `reproduction/init_small.yaml`), each "
             "compared with the paper's number for the method it varies, beside ours for that method on the same "
             "data (where our data differ from the paper's, see the input differences below, only that comparison "
             "is like for like):", "",
             to_markdown(_fmt(table.set_index("method")))]
    for method, part in table.groupby("method", sort=False):
        lines.append(f"{method} beats the paper's {part['paper method'].iloc[0]} on "
                     f"{int((part['beats the paper'] == 'yes').sum())} of {len(part)} datasets.")
    return lines + [""]


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


def write_report(path: str | os.PathLike, *, config: dict, ours: pd.DataFrame, tables: dict[str, pd.DataFrame],
                 store_metas: dict[str, dict], extra_sections: Sequence[tuple[str, str]] = (),
                 configfiles: Sequence[str] = (), noise: str | None = None, notes: pd.DataFrame | None = None,
                 training: pd.DataFrame | None = None, store_sha256: dict[str, str] | None = None,
                 standing: str | None = None) -> Path:
    """results/REPORT.md: how it was produced (config files, commit, how far from the paper's protocol),
    setup, the two result tables, paper vs ours with deltas, provenance, input differences. ``noise``: a
    markdown table of :mod:`repset.pipeline.noise` (one run's test error over seeds and CPU kernels), shown
    in the setup. ``notes``: :func:`repset.report.notes.read_notes`, shown with every cell outside 2 sigma.
    ``training``: :func:`~repset.protocol.selection.training_paths` of the runs, shown in the setup with the stores
    they read; ``store_sha256`` (dataset -> the sha256 of the store read here) checks those (:func:`recorded_stores`):
    a problem is stated under the title. ``standing``: :func:`repset.report.standing.standing_section`, after the
    result tables."""
    comp = comparison(ours)
    stores_line, integrity = ("", []) if training is None else recorded_stores(training, store_sha256)
    vectors = sorted({m.get("vectors") or m.get("embedding") for m in store_metas.values()} - {None})
    differences = protocol_differences(config)
    lines = [
        "# RepSet reproduction report", "",
        f"Produced by this repository's workflow (`snakemake`) at commit `{git_commit(Path.cwd())}` with the "
        f"config files {', '.join(f'`{f}`' for f in configfiles) or '(none named)'}; paper: Skianis et al., "
        "AISTATS 2020.", "",
        ("**The paper's protocol.**" if not differences else
         "**Departures from the paper's protocol:** " + "; ".join(differences) + "."), "",
        *([] if not integrity else ["**Records and stores disagree:** " + "; ".join(integrity) + ".", ""]),
        "## Setup", "",
        f"- solver for exact RepSet: `{config['solver']}`; config sha256 `{config_hash(config)}`",
        f"- embeddings: {', '.join(vectors)} (the paper: GoogleNews word2vec 300-d for text; struc2vec 20-d for graphs)",
        f"- splits: text {config['protocol']['text_splits']} of 5 random 70/30 (1 where predefined), graphs "
        f"{config['protocol']['graph_splits']} of 10 x 10 folds; seeds {config['protocol']['seeds']}"
        + "".join(f"; {name} (`protocol.per_dataset`): {describe_override(config, name)}"
                  for name in protocol_overrides(config)),
        f"- training: {config['train']}"
        + "".join(f"; {m}: {s['train']}" for m, s in config["models"].items() if s.get("train")) + "; grid per model: "
        + "; ".join(f"{m}: {s['grid'] or 'fixed'}" for m, s in config["models"].items()),
        *([] if training is None or training.empty else [recorded_training(training)]),
        *([stores_line] if stores_line else []),
        "- model selection: per split, the grid point with the lowest validation error (then loss)"
        + (f"; the grid is searched on the first {config['protocol']['grid_splits']} split(s) only, every later "
           "split trains the point selected most often there" if config["protocol"].get("grid_splits") else ""), "",
        *([] if noise is None else [
            "### How far apart two honest reruns can be", "",
            "One recorded run (the point validation selected on split 0) retrained with seeds 0-4 on this "
            "machine's kernels, and with its own seed under each CPU capability torch offers here "
            "(`ATEN_CPU_CAPABILITY`); test error in %, beside the paper's std over splits "
            "(`python -m repset.pipeline.noise`):", "", noise.strip(), ""]),
        "## Text categorisation: test error (%)", "", to_markdown(tables["text"]),
        "## Graph classification: accuracy (%)", "", to_markdown(tables["graph"]),
        *([] if standing is None else [f"## {STANDING_TITLE}", "", standing.strip(), ""]),
        "## Paper vs reproduced", "",
        "delta = ours - paper; in units of the paper's std where it gives one; verdict: within 1 or 2 of the "
        "paper's std, or outside (every cell outside 2 sigma is unexplained unless a measured cause is given).", "",
        to_markdown(_fmt(comp.set_index("method")[["table", "dataset", "mean_ours", "std_ours", "mean_paper",
                                                  "std_paper", "delta", "delta_in_paper_sigma", "verdict"]])),
        "### Cells per table", "", to_markdown(verdict_summary(comp)) if len(comp) else "(no cell to compare)\n",
        "### What was measured about single cells", "",
        "Every cell outside 2 paper sigma, and every cell with a measurement on record (`cell_notes`): the lead, what "
        "was measured, its result and what it did to the lead.", "",
        to_markdown(_fmt(notes_table(comp, notes).set_index("method"))) if len(comp) else "(no cell to compare)\n",
        "### Where RepSet and ApproxRepSet rank", "",
        "Per dataset (1 = best), beside the paper's ranking of the same methods: on text among the methods run "
        "here; on graphs among the methods of the paper's graph table (ours where we ran them, the paper's numbers "
        "for its reported-only baselines PSCN, Deep GR, EMD, DGCNN, SAEN, RetGK, DiffPool).", "",
        to_markdown(ranks(ours).set_index("table")) if len(ours) else "(no run)\n",
        *_variant_section(comp),
        "## Input differences that explain deltas", "",
        "- word vectors: see Setup; GloVe 6B 50-d (offline) instead of GoogleNews 300-d lowers capacity and vocabulary",
        "- OHSUMED: the mirror holds only the single-label subset (1,249 + 1,632 docs) vs the paper's 3,999 + 5,153",
        "- RECIPE: exists only in the WMD authors' .mat files; absent unless `data.wmd_mat_dir` is set",
        "- TWITTER keeps stop words (as the WMD preprocessing); 20NG mail headers are stripped",
        "- graphs: like the paper's, our std is that of the 10-fold CV repetitions' means; where a dataset ran "
        "one repetition, its std is over folds and its cells get no sigma verdict",
        "- fewer splits, epochs or grid points than the paper (see Setup) where a reduced profile was run",
        *[f"- node embeddings (`struc2vec.per_dataset`), {line}" for line in embedding_differences(config)], "",
        "## Provenance", "",
        "- packages: " + ", ".join(f"{k} {v}" for k, v in package_versions().items() if v),
    ]
    for name, meta in sorted(store_metas.items()):
        sources = meta.get("sources") or {}
        digest = ", ".join(f"`{Path(p).name}` {v['sha256'][:12]}" for p, v in sources.items()) or \
            f"embedding {str(meta.get('embedding_sha256', ''))[:12]}"
        lines.append(f"- {name}: {digest}")
    for title, body in extra_sections:
        lines += ["", f"## {title}", "", body]
    text = "\n".join(lines) + "\n"
    return write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))
