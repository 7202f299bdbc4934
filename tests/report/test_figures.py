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
    fig = plot_benchmarks(solvers, epoch, tmp_path / "b.pdf", tmp_path / "b.png")
    assert_figure_files(tmp_path, "b")
    left, right = fig.axes
    assert left.get_xlabel() and left.get_ylabel() and right.get_xlabel()
    assert [t.get_text() for t in right.get_yticklabels()] == ["RepSet (numba)", "ApproxRepSet"]
    solvers = solvers.assign(problems=[3200] * 2 + [12800] * 2, n=[117] * 2 + [10] * 2, k=20)
    fig = plot_benchmarks(solvers, epoch, tmp_path / "b.pdf", tmp_path / "b.png")
    assert fig.axes[0].get_xticklabels()[0].get_text() == "bbcsport\n3,200 problems\nof 117 x 20"
    # one epoch panel per data source; word sets show the distinct-element floor too
    shape = {"shape_n_sets": 517, "shape_set_size": 117, "shape_d": 300, "shape_m": 50, "shape_k": 20, "shape_batch_size": 64}
    sources = pd.DataFrame([{**row, **shape, "data": data, "sets": sets, "mean_set_size": 115.0, "dim": dim,
                             "distinct_matmul_seconds": distinct}
                            for data, sets, dim, distinct in (("synthetic", 517, 300, float("nan")), ("bbcsport", 737, 50, 0.05))
                            for row in epoch.to_dict("records")])
    fig = plot_benchmarks(solvers, sources, tmp_path / "b.pdf", tmp_path / "b.png")
    synthetic, store = fig.axes[1], fig.axes[2]
    assert len(fig.axes) == 3 and "517 sets of 117 x 300-d" in synthetic.get_title()
    assert store.get_title().startswith("Training epoch: bbcsport: 737 sets of 115 x 50-d")
    assert [t.get_text() for t in store.get_legend().get_texts()] == ["forward matmul V H", "distinct-element matmul E H"]
    assert [t.get_text() for t in synthetic.get_legend().get_texts()] == ["forward matmul V H"]


def test_runtime_figure(tmp_path):
    rows = [{"parameter": p, "value": v, "variant": var, "epoch_seconds": 0.1 * v, "min_seconds": 0.09 * v,
             "max_seconds": 0.12 * v, "repeats": 3}
            for p in ("m", "d") for v in (10, 20) for var in ("repset/numba", "approx_repset")]
    fig = plot_runtime(pd.DataFrame(rows), tmp_path / "r.pdf", tmp_path / "r.png")
    assert_figure_files(tmp_path, "r")
    panels, legend_panel = fig.axes[:2], fig.axes[2]
    assert all(ax.get_ylabel() == "seconds per epoch (log)" for ax in panels)     # every panel labelled
    assert [ax.get_xlabel() for ax in panels] == ["number of hidden sets m", "element dimension d"]
    legend = legend_panel.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["RepSet (numba)", "ApproxRepSet"]   # paper names
    assert not legend_panel.axison                                                  # a panel of its own
    bars = panels[0].containers[0]                                                 # min-max error bars
    assert bars.has_yerr


def test_proposition_figure(tmp_path):
    pytest.importorskip("cvxpy")
    from repset.bench.proposition import proposition_table, random_instances

    fig = plot_proposition(proposition_table(random_instances(5, seed=1, max_side=5), "random"),
                           tmp_path / "p.pdf", tmp_path / "p.png")
    assert_figure_files(tmp_path, "p")
    assert all(patch.get_fill() is False for patch in fig.axes[1].patches)          # outlines: none hides another


def test_toy_figure(tmp_path):
    model, _ = train_toy(ToyConfig(epochs=5, seed=0))
    plot_toy(model, tmp_path / "toy.pdf", tmp_path / "toy.png")
    assert_figure_files(tmp_path, "toy")
