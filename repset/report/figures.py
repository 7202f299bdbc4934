"""Figures of what :mod:`repset.bench` measures: solver and epoch benchmarks, the runtime sweeps,
Proposition 1 / LP integrality, and the supplement's toy. Each ``plot_*`` writes a PDF and a PNG atomically
and returns the (closed) figure."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from repset.bench.runtime import PARAMETERS
from repset.bench.toy import TOY_SETS
from repset.io import save_figure
from repset.training import SetClassifier

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend (figures are files, never windows)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


#: benchmark variant -> the name a reader of the paper knows (solver or gradient in brackets)
METHOD_NAMES = {"repset/scipy": "RepSet (scipy)", "repset/numba": "RepSet (numba)",
                "repset/numba/dense-grad": "RepSet (numba, dense grad)", "repset/auction": "RepSet (auction)",
                "approx_repset": "ApproxRepSet", "approx_repset/dense-grad": "ApproxRepSet (dense grad)",
                "repset/numba/padded": "RepSet (numba, padded)", "approx_repset/padded": "ApproxRepSet (padded)",
                "deepsets": "DeepSets"}


def method_name(variant: str) -> str:
    return METHOD_NAMES.get(variant, variant)


def plot_benchmarks(solvers: pd.DataFrame, epoch: pd.DataFrame, pdf_path, png_path) -> Figure:
    """Left: solver seconds per problem shape (log scale, speedup over scipy annotated). Then one panel
    per epoch data source (the synthetic shape, each benchmarked store): epoch seconds per variant, with
    the dense forward-matmul floor (and, for word sets, the distinct-element floor) as lines."""
    plt = pyplot()

    sources = list(dict.fromkeys(epoch["data"])) if "data" in epoch.columns else [None]
    fig, axes = plt.subplots(1, 1 + len(sources), figsize=(5.5 + 5 * len(sources), 4.0),
                             gridspec_kw={"width_ratios": [1.1] + [1] * len(sources)})
    left = axes[0]
    shapes, names = list(dict.fromkeys(solvers["shape"])), list(dict.fromkeys(solvers["solver"]))
    width = 0.8 / len(names)
    for j, name in enumerate(names):
        part = solvers[solvers["solver"] == name].set_index("shape").reindex(shapes)
        xs = [i + j * width for i in range(len(shapes))]
        left.bar(xs, part["seconds"], width, label=name)
        for x, (sec, speed) in zip(xs, zip(part["seconds"], part["speedup_vs_scipy"])):
            left.text(x, sec, f"{speed:.0f}x" if speed >= 1.5 else f"{speed:.1f}x", ha="center", va="bottom", fontsize=7)
    first = solvers.drop_duplicates("shape").set_index("shape")
    labels = ([f"{s}\n{int(first.loc[s, 'problems']):,} problems\nof {int(first.loc[s, 'n'])} x {int(first.loc[s, 'k'])}"
               for s in shapes] if {"problems", "n", "k"} <= set(solvers.columns) else shapes)
    left.set_xticks([i + 0.4 - width / 2 for i in range(len(shapes))], labels, fontsize=8)
    left.set_yscale("log")
    left.set_xlabel("problem shape (dataset: input set size x hidden set size)")
    left.set_ylabel("seconds for all problems (log)")
    left.set_title("Exact matching solvers (speedup over scipy above the bars)", fontsize=9)
    left.legend(fontsize=8, title="solver", title_fontsize=8)
    for right, source in zip(axes[1:], sources):
        _epoch_panel(right, epoch if source is None else epoch[epoch["data"] == source], source)
    fig.tight_layout()
    save_figure(fig, pdf_path, png_path)
    return fig


def _epoch_panel(ax, epoch: pd.DataFrame, source: str | None) -> None:
    """Epoch seconds per variant (bars) with the matmul floors (lines) of one data source."""
    ys = range(len(epoch))
    ax.barh(list(ys), epoch["epoch_seconds"], color="tab:blue")
    ax.set_yticks(list(ys), [method_name(v) for v in epoch["variant"]], fontsize=8)
    ax.axvline(float(epoch["matmul_seconds"].median()), color="black", ls="--", lw=0.9, label="forward matmul V H")
    if "distinct_matmul_seconds" in epoch.columns and epoch["distinct_matmul_seconds"].notna().any():
        ax.axvline(float(epoch["distinct_matmul_seconds"].median()), color="tab:red", ls=":", lw=1.2,
                   label="distinct-element matmul E H")
    ax.set_xscale("log")
    row = epoch.iloc[0]
    if source not in (None, "synthetic") and "sets" in epoch.columns:
        shape = (f"{source}: {int(row['sets'])} sets of {row['mean_set_size']:.0f} x {int(row['dim'])}-d (mean), "
                 f"m {int(row['shape_m'])}, |Y| {int(row['shape_k'])}")
    elif "shape_n_sets" in epoch.columns:
        shape = (f"{int(row['shape_n_sets'])} sets of {int(row['shape_set_size'])} x {int(row['shape_d'])}-d, "
                 f"m {int(row['shape_m'])}, |Y| {int(row['shape_k'])}, batch {int(row['shape_batch_size'])}")
    else:
        shape = "the epoch shape"
    ax.set_xlabel("seconds per training epoch (log)")
    ax.set_title(f"Training epoch: {shape}", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")


def plot_runtime(table: pd.DataFrame, pdf_path, png_path) -> Figure:
    """The paper's runtime figure: one panel per swept parameter (the others at their base values),
    log-scale seconds per epoch with min-max error bars over the repeats, one line per method, the
    legend in a panel of its own."""
    plt = pyplot()

    parameters = [p for p in PARAMETERS if p in set(table["parameter"])]
    cols = 3
    rows = -(-(len(parameters) + 1) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    flat = list(axes.ravel())
    handles = {}
    for ax, parameter in zip(flat, parameters):
        part = table[table["parameter"] == parameter]
        for variant, points in part.groupby("variant", sort=False):
            points = points.sort_values("value")
            y = points["epoch_seconds"]
            err = None
            if {"min_seconds", "max_seconds"} <= set(points.columns):
                err = [y - points["min_seconds"], points["max_seconds"] - y]
            handles[variant] = ax.errorbar(points["value"], y, yerr=err, marker="o", ms=3.5, capsize=2.5,
                                           lw=1.3, label=method_name(variant))
        ax.set_xlabel(PARAMETERS[parameter][1], fontsize=10)
        ax.set_ylabel("seconds per epoch (log)", fontsize=9)
        ax.set_yscale("log")
        ax.grid(alpha=0.3, which="both")
    legend_ax = flat[len(parameters)]
    legend_ax.axis("off")
    repeats = int(table["repeats"].max()) if "repeats" in table.columns else 1
    legend_ax.legend(list(handles.values()), [method_name(v) for v in handles], loc="center", fontsize=10,
                     title=f"median of {repeats} timed epoch{'s' if repeats > 1 else ''}; bars: min-max", title_fontsize=9, frameon=False)
    for ax in flat[len(parameters) + 1:]:
        ax.axis("off")
    fig.tight_layout()
    save_figure(fig, pdf_path, png_path)
    return fig


def plot_proposition(table: pd.DataFrame, pdf_path, png_path) -> Figure:
    """Left: LP optimum vs Hungarian value (on the diagonal). Right: relaxed / exact, one outlined
    histogram per source on shared bins (none hides another)."""
    plt = pyplot()
    import numpy as np

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    ratios = table["relaxed_over_exact"].dropna()
    bins = np.linspace(min(1.0, float(ratios.min())), float(ratios.max()), 31) if len(ratios) else 30
    for source, part in table.groupby("source"):
        left.scatter(part["hungarian"], part["lp"], s=10, label=source, alpha=0.7)
        right.hist(part["relaxed_over_exact"].dropna(), bins=bins, histtype="step", lw=1.6, label=source)
    top = float(table[["hungarian", "lp"]].max().max())
    left.plot([0, top], [0, top], color="black", lw=0.8, ls="--", label="LP = Hungarian")
    left.set_xlabel("Hungarian value (exact matching)")
    left.set_ylabel("matching LP optimum")
    left.set_title("LP integrality: every point on the diagonal", fontsize=9)
    left.legend(fontsize=8)
    right.axvline(1.0, color="black", lw=0.8, ls="--")
    right.set_xlabel("relaxed LP / exact matching (Proposition 1: >= 1)")
    right.set_ylabel("instances")
    right.set_title("ApproxRepSet's relaxation bounds the matching from above", fontsize=9)
    right.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, pdf_path, png_path)
    return fig


def plot_toy(model: SetClassifier, pdf_path, png_path) -> Figure:
    """Input elements as circles (one colour per set), learned hidden elements as diamonds."""
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    colors = plt.get_cmap("tab10")
    for i, points in enumerate(TOY_SETS):
        ax.scatter(points[:, 0], points[:, 1], s=90, marker="o", color=colors(i), label=f"set {i + 1}",
                   edgecolor="black", linewidth=0.6, zorder=3)
        ax.plot(points[:, 0], points[:, 1], color=colors(i), alpha=0.3, zorder=1)
    for k, hidden in enumerate(model.layer.hidden_sets()):
        h = hidden.numpy()
        ax.scatter(h[:, 0], h[:, 1], s=110, marker="D", color=colors(4 + k), label=f"hidden set {k + 1}",
                   edgecolor="black", linewidth=0.6, zorder=4)
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), framealpha=0.8)
    ax.set_title("Toy sets (circles) and learned hidden sets (diamonds)", fontsize=8)
    fig.tight_layout()
    save_figure(fig, pdf_path, png_path)
    return fig
