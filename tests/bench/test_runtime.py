"""The runtime sweep: one row per point and variant, median within its repeats' min and max."""
import pytest

from repset.bench.epoch import EpochShape
from repset.bench.runtime import runtime_sweep


def test_sweep_rows_and_spread():
    base = EpochShape(n_sets=16, set_size=4, d=3, m=2, k=2, batch_size=8, n_classes=2)
    table = runtime_sweep(base, {"m": [2, 3], "d": [3]}, ["approx_repset", "deepsets"], repeats=3)
    assert len(table) == 3 * 2 and set(table["parameter"]) == {"m", "d"}
    assert ((table["min_seconds"] <= table["epoch_seconds"]) & (table["epoch_seconds"] <= table["max_seconds"])).all()
    assert (table["repeats"] == 3).all()
    with pytest.raises(ValueError, match="unknown runtime sweep parameters \\['width'\\]"):
        runtime_sweep(base, {"width": [1]}, ["deepsets"])
