"""The ragged-aggregation benchmark: both paths timed on the same batches, padding share exact."""
import numpy as np
import pytest

from repset.bench.aggregation import compare_paths, graph_sizes
from repo_paths import MIRROR


def test_both_paths_on_the_same_batches():
    sizes = np.array([2, 3, 9, 4, 1, 7])
    rows = compare_paths(sizes, [("repset", {"solver": "scipy"}), ("approx_repset", {})], m=3, k=2, d=4,
                         batch_size=4, batches=2, repeats=1)
    assert [r["layer"] for r in rows] == ["repset {'solver': 'scipy'}", "approx_repset"] * 2
    for r in rows:
        assert r["padded ms"] > 0 and r["ragged ms"] > 0
        assert r["padded rows %"] == pytest.approx(100 * (1 - r["elements"] / (r["largest"] * 4)))


def test_graph_sizes_of_a_tu_archive():
    for raw in (MIRROR / "MUTAG/MUTAG.zip", MIRROR / "MUTAG"):
        if not raw.exists():
            pytest.skip(f"no data mirror at {MIRROR}")
        sizes = graph_sizes(str(raw))
        assert len(sizes) == 188 and sizes.min() == 10 and sizes.max() == 28
