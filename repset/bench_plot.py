"""Figures of the solver and epoch benchmarks."""
from __future__ import annotations

import pandas as pd

from .io import save_figure


def plot_benchmarks(solvers: pd.DataFrame, epoch: pd.DataFrame, pdf_path, png_path) -> None:
    """Left: solver seconds per shape (log scale, speedup over scipy annotated). Right: epoch seconds
    per variant with the forward-matmul floor as a line."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
