"""Every figure writes a real PDF and PNG (and nothing else) from the tables its rule reads."""
import pandas as pd
import pytest

from repset.bench.toy import ToyConfig, train_toy
from repset.report.figures import plot_benchmarks, plot_proposition, plot_runtime, plot_toy

PDF, PNG = b"%PDF", b"\x89PNG\r\n\x1a\n"


def assert_figure_files(folder, stem):
    assert (folder / f"{stem}.pdf").read_bytes()[:4] == PDF
    assert (folder / f"{stem}.png").read_bytes()[:8] == PNG
    assert sorted(p.name for p in folder.iterdir()) == [f"{stem}.pdf", f"{stem}.png"]   # no temporary left


def test_benchmark_figure(tmp_path):
    solvers = pd.DataFrame({"shape": ["bbcsport", "bbcsport", "twitter", "twitter"],
                            "solver": ["scipy", "numba"] * 2, "seconds": [2.0, 0.2, 1.0, 0.5],
                            "speedup_vs_scipy": [1.0, 10.0, 1.0, 2.0]})
    epoch = pd.DataFrame({"variant": ["repset/numba", "approx_repset"], "epoch_seconds": [0.7, 0.6],
                          "matmul_seconds": [0.4, 0.4]})
    plot_benchmarks(solvers, epoch, tmp_path / "b.pdf", tmp_path / "b.png")
    assert_figure_files(tmp_path, "b")


def test_runtime_figure(tmp_path):
    rows = [{"parameter": p, "value": v, "variant": var, "epoch_seconds": 0.1 * v}
            for p in ("m", "d") for v in (10, 20) for var in ("repset/numba", "approx_repset")]
    plot_runtime(pd.DataFrame(rows), tmp_path / "r.pdf", tmp_path / "r.png")
    assert_figure_files(tmp_path, "r")


def test_proposition_figure(tmp_path):
    pytest.importorskip("cvxpy")
    from repset.bench.proposition import proposition_table, random_instances

    plot_proposition(proposition_table(random_instances(5, seed=1, max_side=5), "random"),
                     tmp_path / "p.pdf", tmp_path / "p.png")
    assert_figure_files(tmp_path, "p")


def test_toy_figure(tmp_path):
    model, _ = train_toy(ToyConfig(epochs=5, seed=0))
    plot_toy(model, tmp_path / "toy.pdf", tmp_path / "toy.png")
    assert_figure_files(tmp_path, "toy")
