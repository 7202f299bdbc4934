"""The device benchmark on CPU tensors: tables of the right shape, equal values across solvers."""
import json

import pytest

from repset.bench.epoch import EpochShape
from repset.bench.gpu import epoch_seconds, main, solver_seconds

pytest.importorskip("numba")


def test_solver_rows_agree_with_numba():
    rows = solver_seconds({"tiny": (3, 9, 4, 5)}, "cpu", repeats=1)
    by_solver = {row["solver"]: row for row in rows}
    assert {"cuda", "cuda-lockstep", "numba", "numba+transfer", "torch-linear-assignment"} <= set(by_solver)
    for name in ("cuda", "cuda-lockstep", "numba", "numba+transfer"):
        assert by_solver[name]["status"] == "ok" and by_solver[name]["max_rel_err"] < 1e-12
        assert by_solver[name]["seconds"] > 0 and by_solver[name]["problems"] == 12
    tla = by_solver["torch-linear-assignment"]
    assert tla["status"] == "ok" or tla["status"].startswith("skipped: torch-linear-assignment is not installed")


def test_epoch_rows_compare_the_solvers_on_one_device():
    shape = EpochShape(n_sets=12, set_size=6, d=4, m=3, k=4, batch_size=6, n_classes=2)
    rows = epoch_seconds({"tiny": shape}, "cpu", repeats=1)
    assert [row["solver"] for row in rows] == ["cuda", "cuda-lockstep", "numba"]
    assert all(row["epoch_seconds"] > 0 and row["speedup_vs_numba"] > 0 for row in rows)
    assert [row["backend"] for row in rows] == ["lockstep", "lockstep", ""]     # auto on CPU tensors: lock-step


def test_cli_writes_the_tables(tmp_path):
    main(["--device", "cpu", "--shapes", "twitter", "--batch-sets", "2", "--repeats", "1", "--epoch-repeats", "1",
          "--max-sets", "4", "--solvers", "cuda", "numba", "--out", str(tmp_path)])
    assert json.loads((tmp_path / "environment.json").read_text())["device"] == "cpu"
    assert (tmp_path / "solver_seconds.csv").read_text().count("\n") == 3
    assert (tmp_path / "epoch_seconds.csv").read_text().count("\n") == 4   # header, cuda, cuda-lockstep, numba


def test_epoch_rows_train_on_given_ragged_sets():
    from repset.bench.graph_scale import synthetic
    import numpy as np

    sizes = np.array([2, 9, 5, 3, 7, 4, 8, 6])
    shape = EpochShape(n_sets=1, set_size=1, d=3, m=2, k=3, batch_size=4, n_classes=2)
    rows = epoch_seconds({"ragged": shape}, "cpu", solvers=["numba"], repeats=1, max_sets=2,
                         datasets={"ragged": synthetic(sizes, 3, seed=0)})
    (row,) = rows
    assert (row["sets"], row["max_set_size"], row["d"]) == (8, 9, 3)      # the given sets, max_sets not applied
    assert row["set_size"] == sizes.mean() and row["first_epoch_seconds"] > 0 and row["epoch_seconds"] > 0


def test_cli_adds_reddits_fold0_sizes_from_the_raw_archive(tmp_path, monkeypatch):
    import numpy as np
    import repset.bench.graph_scale as graph_scale

    calls = []
    monkeypatch.setattr(graph_scale, "fold_sizes",
                        lambda dataset, raw: calls.append((dataset, raw)) or {"train": np.array([3, 6, 4, 5])})
    main(["--device", "cpu", "--shapes", "twitter", "--batch-sets", "2", "--repeats", "1", "--epoch-repeats", "1",
          "--max-sets", "4", "--solvers", "numba", "--epoch-solvers", "numba", "--raw", "RAW", "--out", str(tmp_path)])
    assert calls == [("REDDIT-BINARY", "RAW")]
    lines = (tmp_path / "epoch_seconds.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in lines[1:]] == ["twitter", "reddit-fold0"]
