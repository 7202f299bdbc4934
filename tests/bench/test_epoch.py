"""The epoch benchmark on a tiny shape: one row per variant, paired floors, unknown variants rejected."""
from __future__ import annotations

import pytest

from repset.bench.epoch import EpochShape, epoch_benchmark, paired_seconds, synthetic_sets

TINY = EpochShape(n_sets=12, set_size=5, d=6, m=3, k=4, batch_size=4, n_classes=2)


def test_rows_and_ratio_per_variant():
    table = epoch_benchmark(["repset/numba", "approx_repset", "deepsets"], TINY, repeats=3)
    assert table["variant"].tolist() == ["repset/numba", "approx_repset", "deepsets"]
    assert (table["epoch_seconds"] > 0).all() and (table["matmul_seconds"] > 0).all()
    assert (table["epoch_over_matmul"] > 0).all() and (table["repeats"] == 3).all()
    assert (table["shape_set_size"] == 5).all() and (table["shape_m"] == 3).all()


def test_paired_seconds_has_one_floor_per_epoch():
    epochs, floors = paired_seconds("repset/scipy", synthetic_sets(TINY), TINY, repeats=4)
    assert len(epochs) == len(floors) == 4
    assert min(epochs) > 0 and min(floors) > 0


def test_synthetic_sets_are_seeded():
    a, b = synthetic_sets(TINY, seed=3), synthetic_sets(TINY, seed=3)
    assert len(a) == 12 and a.values.shape == (60, 6)
    assert (a.values == b.values).all() and not (a.values == synthetic_sets(TINY, seed=4).values).all()


def test_unknown_variant_lists_valid_names():
    with pytest.raises(ValueError, match="unknown variants \\['fast'\\]; valid: repset/scipy"):
        epoch_benchmark(["fast"], TINY)
