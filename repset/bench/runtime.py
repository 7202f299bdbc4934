"""The paper's runtime analysis: seconds per training epoch against m, |Y|, d, N and |X|.

Synthetic sets (Gaussian elements, random labels); one parameter varies at a time around a base
shape; every variant (RepSet with each exact solver, ApproxRepSet, DeepSets) is timed on the same
data in the same process.
"""
from __future__ import annotations

import statistics
from dataclasses import replace

import pandas as pd

from repset.bench.epoch import EpochShape, check_variants, epoch_seconds_all, synthetic_sets

#: sweep key -> (EpochShape field, axis label)
PARAMETERS = {"m": ("m", "number of hidden sets m"), "hidden_set_size": ("k", "hidden set size |Y|"),
              "d": ("d", "element dimension d"), "n_sets": ("n_sets", "number of input sets N"),
              "set_size": ("set_size", "input set size |X|")}


def runtime_sweep(base: EpochShape, sweeps: dict[str, list[int]], variants: list[str], repeats: int = 3,
                  seed: int = 0, progress=None) -> pd.DataFrame:
    """Rows (parameter, value, variant, epoch_seconds: the median, min_seconds, max_seconds over the
    ``repeats`` timed epochs, repeats) for every sweep point and variant."""
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
                seconds = epoch_seconds_all(variant, data, shape, repeats, seed)
                rows.append({"parameter": parameter, "value": int(value), "variant": variant,
                             "epoch_seconds": statistics.median(seconds), "min_seconds": min(seconds),
                             "max_seconds": max(seconds), "repeats": repeats})
                if progress is not None:
                    progress(rows[-1])
    return pd.DataFrame(rows)
