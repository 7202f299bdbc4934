"""Graph parsers (TU folder/zip, GIN text), label remapping, count checks, CV splits, and the mirror's counts."""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from repset.datasets import graphs as G
from repset.datasets.registry import ExpectedGraph, get_spec
from repset.datasets.text import ParseError

from repo_paths import MIRROR  # noqa: E402
needs_mirror = pytest.mark.skipif(not (MIRROR / "SHA256SUMS").is_file(), reason="data mirror not present")

# two graphs: a triangle (nodes 1-3, one self-loop, one one-way entry) and a path (nodes 4-5)
TU = {
    "TOY_A.txt": "1, 2\n2, 1\n2, 3\n3, 2\n1, 3\n3, 3\n4, 5\n5, 4\n",
    "TOY_graph_indicator.txt": "1\n1\n1\n2\n2\n",
    "TOY_graph_labels.txt": "1\n-1\n",
}
GIN = "2\n3 2\n0 2 1 2\n0 2 0 2\n1 2 0 1\n2 0\n5 1 1\n5 1 0\n"


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_read_tu_folder(tmp_path):
    c = G.read_tu(_write(tmp_path / "TOY", TU), "TOY")
    assert c.n_nodes.tolist() == [3, 2] and c.labels.tolist() == [1, 0] and c.class_names == ["-1", "1"]
    assert c.edges.tolist() == [[0, 1], [0, 2], [1, 2], [3, 4]]
    assert c.meta["n_self_loops_dropped"] == 1 and c.meta["n_one_way_entries"] == 1
    assert c.edge_counts().tolist() == [3, 1] and c.graph_edges(1).tolist() == [[0, 1]]


def test_read_tu_zip_skips_macos_junk(tmp_path):
    z = tmp_path / "TOY.zip"
    with zipfile.ZipFile(z, "w") as f:
        for name, text in TU.items():
            f.writestr(f"TOY/{name}", text)
            f.writestr(f"__MACOSX/TOY/._{name}", "\x00junk")
    c = G.read_tu(z, "TOY")
    assert c.n_graphs == 2 and len(c.edges) == 4


@pytest.mark.parametrize("fname,text,line,msg", [
    ("TOY_A.txt", "1, 2\n2, 4\n", 2, "edge joins two different graphs"),
    ("TOY_A.txt", "1, 2\n2, x\n", 2, "not an integer"),
    ("TOY_A.txt", "1, 2\n2\n", 2, "expected 2 integer"),
    ("TOY_A.txt", "1, 9\n", 1, "node id outside 1..5"),
    ("TOY_graph_indicator.txt", "1\n2\n1\n2\n2\n", 3, "nondecreasing"),
    ("TOY_graph_indicator.txt", "1\n1\n1\n2\n3\n", 5, "graph id 3 outside 1..2"),
])
def test_read_tu_errors_name_file_and_line(tmp_path, fname, text, line, msg):
    folder = _write(tmp_path / "TOY", {**TU, fname: text})
    with pytest.raises(ParseError) as e:
        G.read_tu(folder, "TOY")
    assert str(e.value).startswith(f"{folder / fname}:{line}: ") and msg in str(e.value)


def test_read_gin_zip_with_junk_and_label_remap(tmp_path):
    z = tmp_path / "TOY.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("TOY/", "")
        f.writestr("TOY/TOY.txt", GIN)
        f.writestr("TOY/.DS_Store", "x")
        f.writestr("__MACOSX/TOY/._TOY.txt", "junk")
        f.writestr("TOY/10fold_idx/test_idx-1.txt", "0\n")
    c = G.read_gin_txt(z)
    assert c.name == "TOY" and c.n_nodes.tolist() == [3, 2]
    assert c.labels.tolist() == [1, 0] and c.class_names == ["0", "2"]  # REDDIT-style 0/2 labels
    assert c.edges.tolist() == [[0, 1], [0, 2], [1, 2], [3, 4]] and c.meta["n_directed_entries"] == 8


@pytest.mark.parametrize("text,line,msg", [
    ("2\n3 2\n0 2 1 2\n0 2 0 7\n1 2 0 1\n2 0\n5 1 1\n5 1 0\n", 4, "neighbour 7 outside 0..2"),
    ("2\n3 2\n0 2 1 2\n0 3 0 2\n1 2 0 1\n2 0\n5 1 1\n5 1 0\n", 4, "degree 3 but 2 neighbour"),
    ("2\n3 2\n0 2 1 2\n0 2 0 2\n1 2 0 1\n2 0\n5 1 1\n", 7, "needs 2 node lines"),
    ("2\n3 2\n0 2 1 2\n0 2 0 2\n1 2 0 1\n2\n", 6, "graph header must be 'n label'"),
    ("x\n", 1, "first line must be the number of graphs"),
    ("1\n1 0\n0 0\nextra\n", 4, "unexpected content"),
])
def test_read_gin_errors_name_file_and_line(tmp_path, text, line, msg):
    p = tmp_path / "TOY.txt"
    p.write_text(text)
    with pytest.raises(ParseError) as e:
        G.read_gin_txt(p)
    assert str(e.value).startswith(f"{p}:{line}: ") and msg in str(e.value)


def test_check_counts_and_splits_and_npz_round_trip(tmp_path):
    c = G.read_tu(_write(tmp_path / "TOY", TU), "TOY")
    assert G.check_counts(c, ExpectedGraph(2, 5, 4, 2)) == []
    assert G.check_counts(c, ExpectedGraph(2, 5, 5, 3)) == ["edges: expected 5, got 4", "classes: expected 3, got 2"]
    back = G.GraphCollection.load_npz(c.save_npz(tmp_path / "toy.npz"))
    assert back.name == "TOY" and np.array_equal(back.edges, c.edges) and back.meta == c.meta
    labels = np.array([0, 1] * 20)
    coll = G.GraphCollection("x", np.ones(40, dtype=np.int64), np.zeros((0, 2), np.int64), labels, ["a", "b"])
    splits = G.graph_cv_splits(coll, seed=0)
    assert len(splits) == 100 and all(len(s["test"]) == 4 for s in splits)


# ---- the real mirror ----

@needs_mirror
@pytest.mark.parametrize("name", ["MUTAG", "PROTEINS", "IMDB-BINARY", "IMDB-MULTI", "REDDIT-BINARY"])
def test_mirror_counts_equal_sources(name):
    c = G.build_graph_collection(name, MIRROR)  # raises on any mismatch with the registry
    exp = get_spec(name).expected
    assert (c.n_graphs, int(c.n_nodes.sum()), len(c.edges), c.n_classes) == (
        exp.n_graphs, exp.n_nodes, exp.n_edges, exp.classes)
    assert c.meta["n_self_loops_dropped"] == 0 and c.meta["n_one_way_entries"] == 0
    assert c.labels.min() == 0 and c.labels.max() == c.n_classes - 1


@needs_mirror
@pytest.mark.parametrize("name", ["MUTAG", "PROTEINS"])
def test_mirror_gin_zip_holds_the_same_graphs_as_tu_files(name):
    tu = G.build_graph_collection(name, MIRROR)
    gin = G.build_graph_collection(name, MIRROR, fmt="gin_txt")

    def graphs(c):
        return sorted(zip(c.n_nodes.tolist(), c.edge_counts().tolist(), c.labels.tolist()))

    assert graphs(tu) == graphs(gin)  # same graphs and labels (after remapping to 0..C-1)
    if name == "PROTEINS":  # same order too; MUTAG's GIN file lists the graphs in another order, labels 0/2
        assert np.array_equal(tu.edges, gin.edges) and np.array_equal(tu.labels, gin.labels)
    else:
        assert gin.class_names == ["0", "2"] and tu.class_names == ["-1", "1"]
