"""Dataset table: our counts beside the paper's, written as Markdown + CSV."""
from __future__ import annotations

import csv

import numpy as np

from repset.datasets.graphs import GraphCollection
from repset.datasets.stats import (graph_row, graph_stats, markdown_table, text_row, text_stats,
                                   write_dataset_table)
from repset.datasets.store import SetCollection


def _text() -> SetCollection:
    return SetCollection(
        offsets=np.array([0, 2, 3, 6, 7]), labels=np.array([0, 1, 0, 1]), class_names=["acq", "earn"],
        splits=[{"train": np.array([0, 1]), "val": np.array([2]), "test": np.array([3])}],
        vectors=np.zeros((5, 2), np.float32), element_ids=np.array([0, 1, 1, 2, 3, 0, 1]),
        vocab=list("abcde"), meta={"vectors": "glove-6b-50d", "n_dropped_empty": 2})


def _graphs() -> GraphCollection:
    return GraphCollection("MUTAG", np.array([3, 2]), np.array([[0, 1], [1, 2], [3, 4]]), np.array([0, 1]),
                           ["-1", "1"])


def test_text_stats():
    assert text_stats(_text()) == {"n_docs": 4, "n_train": 3, "n_test": 1, "classes": 2, "vocabulary": 4,
                                   "avg_unique_words": 1.75}


def test_graph_stats():
    assert graph_stats(_graphs()) == {"graphs": 2, "classes": 2, "nodes": 5, "edges": 3, "avg_nodes": 2.5,
                                      "avg_edges": 1.5}


def test_rows_carry_paper_figures():
    r = text_row("reuters", _text())
    assert (r["dataset"], r["n_train"], r["paper_n_train"], r["paper_vocabulary"], r["dropped_empty"]) == (
        "REUTERS", 3, 5485, 22425, 2)
    missing = text_row("recipe", None)
    assert missing["n_train"] is None and missing["paper_n_train"] == 3059 and missing["vectors"] == "not available"
    g = graph_row("MUTAG", _graphs())
    assert (g["graphs"], g["paper_graphs"], g["paper_avg_edges"], g["sources_edges"]) == (2, 188, 19.79, 3721)


def test_markdown_table_format():
    md = markdown_table([{"a": 1234, "b": 2.5, "c": None}, {"a": 1, "b": 3.0, "c": "x"}])
    assert md.splitlines() == ["| a | b | c |", "|---|---|---|", "| 1,234 | 2.5 | – |", "| 1 | 3 | x |"]


def test_write_dataset_table(tmp_path):
    paths = write_dataset_table([text_row("reuters", _text()), text_row("recipe", None)],
                                [graph_row("MUTAG", _graphs())], tmp_path / "out", notes="timings here")
    assert [p.name for p in paths] == ["datasets.md", "datasets_text.csv", "datasets_graphs.csv"]
    md = paths[0].read_text()
    assert "## Text categorisation" in md and "| REUTERS | 3 | 1 |" in md and "timings here" in md
    rows = list(csv.DictReader(paths[1].open()))
    assert [r["dataset"] for r in rows] == ["REUTERS", "RECIPE"] and rows[1]["n_train"] == ""
    assert rows[0]["paper_avg_unique_words"] == "37.1"
    g = list(csv.DictReader(paths[2].open()))
    assert g[0]["avg_edges"] == "1.5" and g[0]["paper_avg_nodes"] == "17.93"
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]
