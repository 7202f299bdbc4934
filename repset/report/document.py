"""The paper's result tables with our numbers, and results/REPORT.md (paper vs reproduced)."""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from repset.datasets.registry import get_spec
from repset.io import write_atomic
from repset.protocol.selection import tie_spread
from repset.provenance import config_hash, git_commit, package_versions
from repset.report.cells import TIES_TITLE, cells_page
from repset.report.claims import NOT_JUDGED, paper_claims
from repset.report.findings import LEGEND, findings_section, marked_table
from repset.report.notes import aside_line, cell_stores, split_by_store
from repset.report.reported import reported_results
from repset.report.setup import (PAPER_DATASETS, PAPER_GRID, PAPER_PROTOCOL, config_file_names, embedding_differences,
                                 protocol_differences, read_training, recorded_stores, recorded_training, setup_table,
                                 struc2vec_variants)
from repset.report.standing import TITLE as STANDING_TITLE
from repset.report.tables import DISPLAY, VARIANTS, compare_with_paper, to_markdown, wide_table, write_table

__all__ = ["ours_long", "reference_long", "result_tables", "comparison", "verdict", "verdict_summary", "ranks",
           "variants_against_paper", "write_report",
           # the setup's, kept importable from here (repset.report.setup)
           "PAPER_PROTOCOL", "PAPER_GRID", "PAPER_DATASETS", "protocol_differences", "embedding_differences",
           "recorded_training", "recorded_stores", "read_training", "config_file_names"]


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
    paper_all: dict[tuple[str, str], dict[str, float]] = {}       # (table, dataset) -> method -> the paper's mean
    reported_only: dict[tuple[str, str], dict[str, float]] = {}
    for r in reported_results().itertuples():
        paper_all.setdefault((r.table, r.dataset), {})[r.method] = float(r.mean)
        if r.role == "reported_only":
            reported_only.setdefault((r.table, r.dataset), {})[r.method] = float(r.mean)

    def rank(of: dict[str, float], method: str, lower: bool) -> int:       # pandas' rank(method="min")
        return 1 + sum((v < of[method]) if lower else (v > of[method]) for v in of.values())
    rows = []
    for (table, dataset), rows_here in ours.groupby(["table", "dataset"], sort=False):
        here = dict(zip(rows_here["method"], rows_here["mean"].astype(float)))
        paper_here = paper_all.get((table, dataset), {})
        for m in methods:
            base = VARIANTS.get(m, m)
            left_out = (set(VARIANTS) | {base}) - {m}
            part = {base if k == m else k: v for k, v in here.items() if k not in left_out}
            if base not in part:
                continue
            if table == "graph":
                part = {**{k: v for k, v in part.items() if k in paper_here or k == base},
                        **reported_only.get((table, dataset), {})}        # a method of yours: ranked among the paper's
            paper = {k: v for k, v in paper_here.items() if k in part}
            lower = table == "text"
            rows.append({"table": table, "dataset": get_spec(dataset).display, "method": DISPLAY.get(m, m),
                         "rank ours": rank(part, base, lower),
                         "rank paper": rank(paper, base, lower) if base in paper else None, "of": len(part)})
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


def _in_table_order(comp: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """``comp``'s rows in the order of the result tables: text first, datasets by column, methods by row."""
    position = {}
    for t, (table, wide) in enumerate(tables.items()):
        for d, dataset in enumerate(wide.columns):
            for m, method in enumerate(wide.index):
                position[(table, dataset, method)] = (t, d, m)
    key = [position.get((c.table, c.dataset, c.method), (len(tables), 0, i)) for i, c in enumerate(comp.itertuples())]
    return comp.iloc[sorted(range(len(comp)), key=key.__getitem__)].reset_index(drop=True)


def _ranks_wide(ranked: pd.DataFrame, methods: Sequence[str], datasets: Sequence[str] = ()) -> str:
    """The ranks of ``methods`` (display names) as methods x datasets (in the order of ``datasets``, the others
    after), each cell ``ours (the paper's)``."""
    part = ranked[ranked["method"].isin(methods)]
    if part.empty:
        return "(no run)\n"
    cells, columns = {}, {}
    order = {d: i for i, d in enumerate(datasets)}
    for dataset, rows in sorted(part.groupby("dataset", sort=False), key=lambda g: order.get(g[0], len(order))):
        of = rows["of"].unique()
        columns[dataset] = f"{dataset} (of {of[0]})" if len(of) == 1 else dataset
        for r in rows.to_dict("records"):
            paper = "-" if r["rank paper"] is None or pd.isna(r["rank paper"]) else int(r["rank paper"])
            cells[(r["method"], dataset)] = f"{r['rank ours']} ({paper})" + ("" if len(of) == 1 else f" of {r['of']}")
    order = [m for m in methods if m in set(part["method"])]
    wide = pd.DataFrame([[cells.get((m, d), "-") for d in columns] for m in order], index=order,
                        columns=list(columns.values()))
    wide.index.name = "rank here (the paper's)"
    return to_markdown(wide)


#: who made the report, as its first line says
MADE_BY = "this repository's workflow (`snakemake`)"


def _header(config: dict, configfiles: Sequence[str], cells: str, differences: list[str], integrity: list[str],
            made_by: str = MADE_BY) -> list[str]:
    return ["# RepSet reproduction report", "",
            f"Made by {made_by} at commit `{git_commit(Path.cwd())}` from the config "
            f"files {', '.join(f'`{f}`' for f in configfiles) or '(none named)'} (config sha256 "
            f"`{config_hash(config)}`); the paper: Skianis et al., AISTATS 2020. Every cell's numbers, notes and "
            f"measurements: [{cells}]({cells}).", "",
            ("**The paper's protocol.**" if not differences else
             "**Departures from the paper's protocol:** " + "; ".join(differences) + "."), "",
            *([] if not integrity else ["**Records and stores disagree:** " + "; ".join(integrity) + ".", ""])]


def write_report(path: str | os.PathLike, *, config: dict, ours: pd.DataFrame, tables: dict[str, pd.DataFrame],
                 store_metas: dict[str, dict], extra_sections: Sequence[tuple[str, str]] = (),
                 configfiles: Sequence[str] = (), noise: str | None = None, notes: pd.DataFrame | None = None,
                 training: pd.DataFrame | None = None, store_sha256: dict[str, str] | None = None,
                 standing: str | None = None, runs: pd.DataFrame | None = None, runtime: pd.DataFrame | None = None,
                 init_study: pd.DataFrame | None = None, init_baseline: str | None = None,
                 cells: str | os.PathLike | None = None, made_by: str = MADE_BY) -> Path:
    """results/REPORT.md and its cell page ``cells`` (default ``cells.md`` beside it, :mod:`repset.report.cells`).

    REPORT.md opens with the findings (:mod:`repset.report.findings`: the paper's claims judged by
    :func:`~repset.report.claims.paper_claims`, the cells within 1 and 2 paper sigma, each cell outside in one
    sentence), then the setup table, the two result tables with each cell's verdict marked and linked to its section
    of the cell page, the counts and ranks, the opt-in variants, the input differences, the provenance and
    ``extra_sections`` (title, Markdown). ``noise``: a Markdown table of :mod:`repset.pipeline.noise`, in the setup.
    ``notes``: :func:`repset.report.notes.read_notes`, on the cell page and in the findings. ``training``:
    :func:`~repset.protocol.selection.training_paths` of the runs, in the setup with the stores they read;
    ``store_sha256`` (dataset -> the sha256 of the store read here) checks those (:func:`recorded_stores`): a
    problem is stated under the title. ``standing``: :func:`repset.report.standing.standing_section`, after the
    result tables. ``runs``: every run (``results/aggregate/runs.csv``): the validation ties (cell page) and the
    sensitivity claim; ``runtime``: the runtime sweep; ``init_study`` (index (dataset, init)) with its configured
    init ``init_baseline``: the interpretability claim. Without them those claims are "not measured". ``made_by``:
    what made the report, in its first line."""
    path = Path(path)
    cells = Path(cells) if cells is not None else path.with_name("cells.md")
    link = Path(os.path.relpath(cells, path.parent)).as_posix()
    comp = _in_table_order(comparison(ours), tables)
    methods = [m for m in dict.fromkeys(ours["method"]) if m != "majority"] if len(ours) else []
    ranked = ranks(ours, methods) if len(ours) else ranks(ours)
    ties = tie_spread(runs) if runs is not None else None
    stores_line, integrity = ("", []) if training is None else recorded_stores(training, store_sha256)
    notes, aside = split_by_store(notes, cell_stores(training, store_sha256))   # an earlier store's speak for no cell
    vectors = sorted({m.get("vectors") or m.get("embedding") for m in store_metas.values()} - {None})
    claims = paper_claims(ours, ranked, runtime=runtime, solver=config["solver"], study=init_study,
                          study_baseline=init_baseline, runs=runs)
    summary = verdict_summary(comp) if len(comp) else pd.DataFrame()
    shown = {table: marked_table(wide, comp, link) for table, wide in tables.items()}
    ranked_methods = [DISPLAY.get(m, m) for m in ("repset", "approx_repset", *VARIANTS)]
    lines = [
        *_header(config, configfiles, link, protocol_differences(config), integrity, made_by),
        "## Findings", "", findings_section(claims, comp, summary, notes, link, NOT_JUDGED),
        "## Setup", "", to_markdown(setup_table(config, vectors), escape=False, pad=False),
        *([] if training is None or training.empty else [recorded_training(training)]),
        *([stores_line] if stores_line else []), "",
        *([] if noise is None else [
            "### How far apart two honest reruns can be", "",
            "One recorded run (the point validation selected on split 0) retrained with seeds 0-4 on this "
            "machine's kernels, and with its own seed under each CPU capability torch offers here "
            "(`ATEN_CPU_CAPABILITY`); test error in %, beside the paper's std over splits "
            "(`python -m repset.pipeline.noise`):", "", noise.strip(), ""]),
        "## Text categorisation: test error (%)", "", LEGEND, "", to_markdown(shown["text"], escape=False, pad=False),
        "## Graph classification: accuracy (%)", "", to_markdown(shown["graph"], escape=False, pad=False),
        *([] if standing is None else [f"## {STANDING_TITLE}", "", standing.strip(), ""]),
        "## Paper vs reproduced", "",
        f"Each cell against the paper's number, with its delta, verdict, rank, validation ties and every measurement "
        f"about it: [{link}]({link}).", "", *aside_line(aside),
        "### Cells per table", "", to_markdown(summary) if len(comp) else "(no cell to compare)\n",
        "### Where RepSet and ApproxRepSet rank", "",
        "Per dataset (1 = best), beside the paper's ranking of the same methods: on text among the methods run "
        "here; on graphs among the methods of the paper's graph table (ours where we ran them, the paper's numbers "
        "for its reported-only baselines PSCN, Deep GR, EMD, DGCNN, SAEN, RetGK, DiffPool).", "",
        _ranks_wide(ranked, ranked_methods, [d for wide in tables.values() for d in wide.columns]),
        *_variant_section(comp),
        "## Input differences that explain deltas", "",
        "- word vectors: see Setup; GloVe 6B 50-d (offline) instead of GoogleNews 300-d lowers capacity and vocabulary",
        "- OHSUMED: the mirror holds only the single-label subset (1,249 + 1,632 docs) vs the paper's 3,999 + 5,153",
        "- RECIPE: exists only in the WMD authors' .mat files; absent unless `data.wmd_mat_dir` is set",
        "- TWITTER keeps stop words (as the WMD preprocessing); 20NG mail headers are stripped",
        "- graphs: like the paper's, our std is that of the 10-fold CV repetitions' means; where a dataset ran "
        "one repetition, its std is over folds and its cells get no sigma verdict",
        "- fewer splits, epochs or grid points than the paper (see Setup) where a reduced profile was run",
        *[f"- node embeddings (`struc2vec.per_dataset`), {line}" for line in embedding_differences(config)],
        *[f"- node embeddings built by struc2vec with {line} (how the variants differ: docs/data.md)"
          for line in struc2vec_variants(store_metas)], "",
        "## Provenance", "",
        "- packages: " + ", ".join(f"{k} {v}" for k, v in package_versions().items() if v),
    ]
    for name, meta in sorted(store_metas.items()):
        sources = meta.get("sources") or {}
        digest = ", ".join(f"`{Path(p).name}` {v['sha256'][:12]}" for p, v in sources.items()) or \
            f"embedding {str(meta.get('embedding_sha256', ''))[:12]}"
        lines.append(f"- {name}: {digest}")
    for title, body in extra_sections:
        if not (ties is not None and title == TIES_TITLE):      # the tie analysis is on the cell page
            lines += ["", f"## {title}", "", body]
    text = "\n".join(lines) + "\n"
    page = cells_page(comp, ranked, notes, ties, path.name)
    write_atomic(cells, lambda p: p.write_text(page, encoding="utf-8"))
    return write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))
