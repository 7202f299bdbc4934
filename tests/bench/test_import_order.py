"""The import-order benchmark: both orders timed in fresh processes, arguments checked."""
import pytest

from repset.bench.import_order import compare_orders, time_order


def test_both_orders_are_timed_in_fresh_processes():
    rows = compare_orders(busy=[0], repeats=1, steps=5, threads=1)
    assert [r["order"] for r in rows] == ["torch-first", "repset-first"]
    assert all(r["busy"] == "0 spin" and r["OMP_WAIT_POLICY"] == "unset" for r in rows)
    assert all(0 < r["min_ms"] <= r["median_ms"] <= r["max_ms"] for r in rows)


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="unknown order 'numba-first'; valid: torch-first, repset-first"):
        time_order("numba-first")
    with pytest.raises(ValueError, match="unknown busy kind 'gpu'; valid: spin, torch"):
        compare_orders(busy=[1], kind="gpu")
