"""The paper's runtime analysis: seconds per training epoch against m, |Y|, d, N and |X|.

Synthetic sets (Gaussian elements, random labels); one parameter varies at a time around a base
shape; every variant (RepSet with each exact solver, ApproxRepSet, DeepSets) is timed on the same
data in the same process.
"""
from __future__ import annotations

from dataclasses import replace

import pandas as pd

from .epoch_benchmark import EpochShape, check_variants, epoch_seconds, synthetic_sets
from .io import save_figure

#: sweep key -> (EpochShape field, axis label)
PARAMETERS = {"m": ("m", "number of hidden sets m"), "hidden_set_size": ("k", "hidden set size |Y|"),
              "d": ("d", "element dimension d"), "n_sets": ("n_sets", "number of input sets N"),
              "set_size": ("set_size", "input set size |X|")}


def runtime_sweep(base: EpochShape, sweeps: dict[str, list[int]], variants: list[str], repeats: int = 3,
                  seed: int = 0, progress=None) -> pd.DataFrame:
    """Rows (parameter, value, variant, epoch_seconds) for every sweep point and variant."""
    check_variants(variants)
    unknown = sorted(set(sweeps) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown runtime sweep parameters {unknown}; valid: {', '.join(PARAMETERS)}")
    rows = []
    for parameter, values in sweeps.items():
        field = PARAMETERS[parameter][0]
        for value in values:
            shape = replace(base, **{field: int(value)})
            data = synthetic_sets(shape, seed)
            for variant in variants:
                seconds = epoch_seconds(variant, data, shape, repeats, seed)
                rows.append({"parameter": parameter, "value": int(value), "variant": variant,
                             "epoch_seconds": seconds, "repeats": repeats})
                if progress is not None:
                    progress(rows[-1])
    return pd.DataFrame(rows)


def plot_runtime(table: pd.DataFrame, pdf_path, png_path) -> None:
    """One panel per swept parameter, log-scale seconds per epoch, one line per variant."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
