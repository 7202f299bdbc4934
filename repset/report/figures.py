"""Figures of what :mod:`repset.bench` measures: solver and epoch benchmarks, the runtime sweeps,
Proposition 1 / LP integrality, and the supplement's toy. Each ``plot_*`` writes a PDF and a PNG atomically."""
from __future__ import annotations

import pandas as pd

from repset.bench.runtime import PARAMETERS
from repset.bench.toy import TOY_SETS
from repset.io import save_figure
from repset.training import SetClassifier


def pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend (figures are files, never windows)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_benchmarks(solvers: pd.DataFrame, epoch: pd.DataFrame, pdf_path, png_path) -> None:
    """Left: solver seconds per shape (log scale, speedup over scipy annotated). Right: epoch seconds
    per variant with the forward-matmul floor as a line."""
    plt = pyplot()

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    shapes, names = list(dict.fromkeys(solvers["shape"])), list(dict.fromkeys(solvers["solver"]))
    width = 0.8 / len(names)
    for j, name in enumerate(names):
        part = solvers[solvers["solver"] == name].set_index("shape").reindex(shapes)
        xs = [i + j * width for i in range(len(shapes))]
        left.bar(xs, part["seconds"], width, label=name)
        for x, (sec, speed) in zip(xs, zip(part["seconds"], part["speedup_vs_scipy"])):
            left.text(x, sec, f"{speed:.0f}x" if speed >= 1.5 else f"{speed:.1f}x", ha="center", va="bottom", fontsize=6)
    left.set_xticks([i + 0.4 - width / 2 for i in range(len(shapes))], shapes)
    left.set_yscale("log")
    left.set_ylabel("seconds for all problems")
    left.legend(fontsize=7)
    right.barh(epoch["variant"], epoch["epoch_seconds"], color="tab:blue")
    right.axvline(float(epoch["matmul_seconds"].median()), color="black", ls="--", lw=0.8, label="forward matmul")
    right.set_xscale("log")
    right.set_xlabel("seconds per training epoch (BBCSPORT shape)")
    right.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, pdf_path, png_path)


def plot_runtime(table: pd.DataFrame, pdf_path, png_path) -> None:
    """One panel per swept parameter, log-scale seconds per epoch, one line per variant."""
    plt = pyplot()

    parameters = [p for p in PARAMETERS if p in set(table["parameter"])]
    fig, axes = plt.subplots(1, len(parameters), figsize=(3.2 * len(parameters), 3.0), squeeze=False)
    for ax, parameter in zip(axes[0], parameters):
        part = table[table["parameter"] == parameter]
        for variant, rows in part.groupby("variant", sort=False):
            rows = rows.sort_values("value")
            ax.plot(rows["value"], rows["epoch_seconds"], marker="o", ms=3, label=variant)
        ax.set_xlabel(PARAMETERS[parameter][1])
        ax.set_yscale("log")
        ax.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("seconds per epoch")
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    save_figure(fig, pdf_path, png_path)


def plot_proposition(table: pd.DataFrame, pdf_path, png_path) -> None:
    """Left: LP optimum vs Hungarian value (on the diagonal). Right: relaxed / exact histogram per source."""
    plt = pyplot()

    fig, (left, right) = plt.subplots(1, 2, figsize=(8.5, 3.4))
    for source, part in table.groupby("source"):
        left.scatter(part["hungarian"], part["lp"], s=8, label=source, alpha=0.7)
        right.hist(part["relaxed_over_exact"].dropna(), bins=30, alpha=0.6, label=source)
    top = float(table[["hungarian", "lp"]].max().max())
    left.plot([0, top], [0, top], color="black", lw=0.8, ls="--")
    left.set_xlabel("Hungarian value")
    left.set_ylabel("matching LP optimum")
    right.axvline(1.0, color="black", lw=0.8, ls="--")
    right.set_xlabel("relaxed LP / exact matching (Proposition 1: >= 1)")
    right.set_ylabel("instances")
    right.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, pdf_path, png_path)


def plot_toy(model: SetClassifier, pdf_path, png_path) -> None:
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
