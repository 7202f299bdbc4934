"""The dataset table: our counts beside the paper's (supplement tables) and the mirror's (SOURCES.md).

Text: n train / test (split 0; train includes the validation part), classes, vocabulary (distinct words kept),
average unique words per document. Graphs: graphs, classes, average nodes and edges (undirected).
Written as Markdown + CSV, atomically. ``python -m repset.datasets.stats --help`` builds everything.
"""
from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from repset.io import write_atomic

from .graphs import GraphCollection
from .registry import PaperGraph, PaperText, get_spec
from .store import SetCollection

__all__ = ["text_stats", "graph_stats", "text_row", "graph_row", "markdown_table", "write_dataset_table"]


def text_stats(coll: SetCollection) -> dict:
    """Counts of a built text dataset (split 0 for train/test sizes)."""
    split = coll.splits[0] if coll.splits else {}
    lengths = np.diff(coll.offsets)
    ids = coll.element_ids
    return {
        "n_docs": len(coll),
        "n_train": int(len(split.get("train", [])) + len(split.get("val", []))),
        "n_test": int(len(split.get("test", []))),
        "classes": len(coll.class_names),
        "vocabulary": int(len(np.unique(ids))) if ids is not None else None,
        "avg_unique_words": round(float(lengths.mean()), 2) if len(lengths) else 0.0,
    }


def graph_stats(coll: GraphCollection) -> dict:
    """Counts of a graph collection."""
    return {"graphs": coll.n_graphs, "classes": coll.n_classes, "nodes": int(coll.n_nodes.sum()),
            "edges": len(coll.edges), "avg_nodes": round(float(coll.n_nodes.mean()), 2),
            "avg_edges": round(len(coll.edges) / max(coll.n_graphs, 1), 2)}


def text_row(name: str, coll: SetCollection | None) -> dict:
    """One table row: ours (blank when not built), the paper's, and the mirror's raw count."""
    spec = get_spec(name)
    paper = spec.paper
    assert isinstance(paper, PaperText)
    ours = text_stats(coll) if coll is not None else {}
    return {"dataset": spec.display, "n_train": ours.get("n_train"), "n_test": ours.get("n_test"),
            "classes": ours.get("classes"), "vocabulary": ours.get("vocabulary"),
            "avg_unique_words": ours.get("avg_unique_words"),
            "dropped_empty": coll.meta.get("n_dropped_empty") if coll is not None else None,
            "raw_docs": spec.expected.n_docs if spec.expected else None,
            "paper_n_train": paper.n_train, "paper_n_test": paper.n_test, "paper_classes": paper.classes,
            "paper_vocabulary": paper.vocabulary, "paper_avg_unique_words": paper.avg_unique_words,
            "vectors": coll.meta.get("vectors") if coll is not None else "not available"}


def graph_row(name: str, coll: GraphCollection | None) -> dict:
    spec = get_spec(name)
    paper = spec.paper
    assert isinstance(paper, PaperGraph)
    ours = graph_stats(coll) if coll is not None else {}
    exp = spec.expected
    return {"dataset": spec.display, **{k: ours.get(k) for k in ("graphs", "classes", "avg_nodes", "avg_edges",
                                                                   "nodes", "edges")},
            "paper_graphs": paper.n_graphs, "paper_classes": paper.classes, "paper_avg_nodes": paper.avg_nodes,
            "paper_avg_edges": paper.avg_edges, "sources_nodes": getattr(exp, "n_nodes", None),
            "sources_edges": getattr(exp, "n_edges", None)}


def _fmt(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.2f}".rstrip("0").rstrip(".") if v != int(v) else f"{int(v):,}"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    return str(v)


def markdown_table(rows: Sequence[dict]) -> str:
    """A GitHub Markdown table of ``rows`` (keys of the first row as columns)."""
    if not rows:
        return "(no rows)\n"
    cols = list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(_fmt(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _csv(rows: Sequence[dict]) -> str:
    import csv
    import io

    buf = io.StringIO()
    if rows:
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows([{k: ("" if v is None else v) for k, v in r.items()} for r in rows])
    return buf.getvalue()


def write_dataset_table(text_rows: Sequence[dict], graph_rows: Sequence[dict], out_dir: str | os.PathLike,
                        notes: str = "") -> list[Path]:
    """Write ``datasets.md``, ``datasets_text.csv`` and ``datasets_graphs.csv`` in ``out_dir`` atomically."""
    out = Path(out_dir)
    md = ("# Datasets\n\nOurs beside the paper's tables (supplement) and the mirror's raw counts (SOURCES.md). "
          "n_train includes the validation part; text train/test sizes are split 0's.\n\n"
          "## Text categorisation\n\n" + markdown_table(text_rows) +
          "\n## Graph classification\n\n" + markdown_table(graph_rows) + (f"\n{notes}\n" if notes else ""))
    paths = [out / "datasets.md", out / "datasets_text.csv", out / "datasets_graphs.csv"]
    for path, text in zip(paths, (md, _csv(text_rows), _csv(graph_rows))):
        write_atomic(path, lambda p, t=text: p.write_text(t, encoding="utf-8"))
    return paths


def main(argv: Sequence[str] | None = None) -> None:
    """Build every available dataset from a mirror, cache the text stores, and write the table."""
    from . import build_graph_collection, build_text_dataset
    from .registry import GRAPH_DATASETS, TEXT_DATASETS
    from .store import load_store

    ap = argparse.ArgumentParser(prog="python -m repset.datasets.stats", description=main.__doc__)
    ap.add_argument("--mirror", default=None, help="raw data directory (default $REPSET_DATA_MIRROR)")
    ap.add_argument("--vectors", default="glove-6b-50d")
    ap.add_argument("--store-dir", required=True, help="where the .npz stores go")
    ap.add_argument("--out", required=True, help="where the table goes")
    ap.add_argument("--datasets", nargs="*", default=None)
    args = ap.parse_args(argv)
    names = args.datasets or [*TEXT_DATASETS, *GRAPH_DATASETS]
    text_rows, graph_rows, timing = [], [], []
    for name in names:
        spec = get_spec(name)
        t0 = time.perf_counter()
        if spec.kind == "graph":
            graph_rows.append(graph_row(name, build_graph_collection(name, args.mirror)))
            timing.append(f"{spec.name}: built in {time.perf_counter() - t0:.1f} s")
            continue
        if not spec.available:
            text_rows.append(text_row(name, None))
            continue
        store = Path(args.store_dir) / f"{spec.name}.{args.vectors}.npz"
        coll = build_text_dataset(name, args.vectors, args.mirror, out=store)
        built = time.perf_counter() - t0
        t1 = time.perf_counter()
        load_store(store)
        timing.append(f"{spec.name}: built in {built:.1f} s, store {store.stat().st_size / 2**20:.1f} MiB, "
                      f"load_store {time.perf_counter() - t1:.3f} s")
        text_rows.append(text_row(name, coll))
    notes = "## Timings (this machine)\n\n" + "\n".join(f"- {t}" for t in timing)
    for p in write_dataset_table(text_rows, graph_rows, args.out, notes):
        print(p)
    print("\n".join(timing))


if __name__ == "__main__":  # pragma: no cover
    main()
