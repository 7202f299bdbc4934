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
