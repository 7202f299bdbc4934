"""Sensitivity of RepSet's test error to m (number of hidden sets) and |Y| (their size)."""
from __future__ import annotations

import pandas as pd

from repset.io import save_figure

from .figures import pyplot


def sensitivity_grid(runs: pd.DataFrame, dataset: str, model: str = "repset") -> pd.DataFrame:
    """Mean test error (%) over splits, rows = |Y|, columns = m, from run rows with a ``point`` like ``k20-m50``.

    Only the splits on which the whole grid was trained count (with ``protocol.grid_splits`` the later
    splits train one point), so every cell averages the same splits.
    """
    part = runs[(runs["dataset"] == dataset) & (runs["model"] == model)].copy()
    if part.empty:
        raise ValueError(f"no runs of model {model!r} on dataset {dataset!r}")
    points_per_split = part.groupby("split")["point"].nunique()
    part = part[part["split"].isin(points_per_split.index[points_per_split == points_per_split.max()])]
    parsed = part["point"].str.extract(r"^k(?P<k>\d+)-m(?P<m>\d+)$")
    if parsed.isna().any().any():
        raise ValueError(f"points without k/m: {sorted(set(part['point'][parsed['k'].isna()]))}")
    part["k"], part["m"] = parsed["k"].astype(int), parsed["m"].astype(int)
    return part.pivot_table(index="k", columns="m", values="test_error", aggfunc="mean").sort_index() * 100


def plot_sensitivity(grid: pd.DataFrame, title: str, pdf_path, png_path) -> None:
    """Heatmap of test error over m x |Y| with the values written in the cells."""
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(1.1 * grid.shape[1] + 2.2, 0.8 * grid.shape[0] + 1.6))
    image = ax.imshow(grid.values, cmap="viridis_r", aspect="auto", origin="lower")
    ax.set_xticks(range(grid.shape[1]), [str(c) for c in grid.columns])
    ax.set_yticks(range(grid.shape[0]), [str(i) for i in grid.index])
    ax.set_xlabel("number of hidden sets m")
    ax.set_ylabel("hidden set size |Y|")
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            ax.text(j, i, f"{grid.values[i, j]:.1f}", ha="center", va="center", fontsize=8, color="white")
    fig.colorbar(image, ax=ax, label="test error (%)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    save_figure(fig, pdf_path, png_path)
