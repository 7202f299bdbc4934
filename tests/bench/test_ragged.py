"""Ragged bench: both paths timed on the same data, the ratio their quotient."""
import numpy as np

from repset.bench.graph_scale import synthetic
from repset.bench.ragged import epoch_ratio


def test_epoch_ratio_times_both_paths():
    data = synthetic(np.random.default_rng(0).integers(1, 40, 60), 3, 0)
    out = epoch_ratio(data, "approx_repset", {"n_hidden_sets": 3, "hidden_set_size": 2}, repeats=1)
    assert out["padded"] > 0 and out["ragged"] > 0
    assert out["speedup"] == out["padded"] / out["ragged"]
