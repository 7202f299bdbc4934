"""Graph collections (TU benchmark): parsers for the TU files and the one-file GIN/DGCNN text format, labels
remapped to 0..C-1, counts checked against the registry, and repeated stratified 10-fold CV indices.

A collection is the number of nodes per graph, one global (E, 2) array of undirected unique edges (u < v,
node ids 0-based and contiguous per graph, self-loops dropped and counted) and the graph labels.
"""
from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

from repset.io import atomic_path

from .download import local_paths
from .registry import ExpectedGraph, cv_splits, get_spec, tu_official_source
from .text import ParseError

__all__ = ["GraphCollection", "read_tu", "read_gin_txt", "remap_labels", "undirected_edges", "check_counts",
           "build_graph_collection", "graph_cv_splits"]


@dataclass
class GraphCollection:
    """``n_nodes`` (G,), global ``edges`` (E, 2) with u < v, ``labels`` (G,) in 0..C-1, ``class_names`` (raw labels)."""

    name: str
    n_nodes: np.ndarray
    edges: np.ndarray
    labels: np.ndarray
    class_names: list[str]
    meta: dict = field(default_factory=dict)

    @property
    def n_graphs(self) -> int:
        return len(self.n_nodes)

    @property
    def n_classes(self) -> int:
        return len(self.class_names)

    @property
    def node_offsets(self) -> np.ndarray:
        """(G + 1,) first global node id of each graph."""
        return np.concatenate([[0], np.cumsum(self.n_nodes)]).astype(np.int64)

    def graph_of_node(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_graphs), self.n_nodes)

    def edge_counts(self) -> np.ndarray:
        """Undirected edges per graph."""
        return np.bincount(self.graph_of_node()[self.edges[:, 0]], minlength=self.n_graphs)

    def graph_edges(self, i: int) -> np.ndarray:
        """Edges of graph ``i`` with local node ids."""
        lo, hi = self.node_offsets[i], self.node_offsets[i + 1]
        mask = (self.edges[:, 0] >= lo) & (self.edges[:, 0] < hi)
        return self.edges[mask] - lo

    def save_npz(self, path: str | os.PathLike) -> Path:
        """Write atomically as an uncompressed .npz (meta as a JSON string)."""
        import json

        with atomic_path(path) as tmp, open(tmp, "wb") as f:
            np.savez(f, n_nodes=self.n_nodes, edges=self.edges, labels=self.labels,
                     class_names=np.asarray(self.class_names, dtype=str), name=np.asarray(self.name),
                     meta=np.asarray(json.dumps(self.meta, sort_keys=True, default=str)))
        return Path(path)

    @classmethod
    def load_npz(cls, path: str | os.PathLike) -> "GraphCollection":
        import json

        with np.load(path, allow_pickle=False) as z:
            return cls(str(z["name"]), z["n_nodes"], z["edges"], z["labels"], z["class_names"].tolist(),
                       json.loads(str(z["meta"])))


def remap_labels(raw: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Raw graph labels (e.g. -1/1, 0/2) to 0..C-1 in sorted order; class names are the raw values."""
    values, labels = np.unique(np.asarray(raw), return_inverse=True)
    return labels.astype(np.int64), [str(v) for v in values.tolist()]


def _sorted_unique(a: np.ndarray) -> np.ndarray:
    """Sort-based unique (numpy's hash-based ``np.unique`` is far slower on millions of int64 keys)."""
    a = np.sort(a)
    return a[np.concatenate([[True], a[1:] != a[:-1]])] if len(a) else a


def undirected_edges(pairs: np.ndarray, n_total: int) -> tuple[np.ndarray, dict]:
    """Directed 0-based pairs -> unique undirected (u < v) sorted edges; counts self-loops and one-way entries."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    loops = pairs[:, 0] == pairs[:, 1]
    keys = _sorted_unique(pairs[:, 0] * n_total + pairs[:, 1])
    rev = pairs[:, 1] * n_total + pairs[:, 0]
    pos = np.minimum(np.searchsorted(keys, rev), max(len(keys) - 1, 0))
    has_rev = keys[pos] == rev if len(keys) else np.zeros(len(rev), dtype=bool)
    p = pairs[~loops]
    u, v = np.minimum(p[:, 0], p[:, 1]), np.maximum(p[:, 0], p[:, 1])
    uniq = _sorted_unique(u * n_total + v)
    edges = np.stack([uniq // max(n_total, 1), uniq % max(n_total, 1)], axis=1)
    return edges.astype(np.int64).reshape(-1, 2), {
        "n_directed_entries": len(pairs), "n_self_loops_dropped": int(loops.sum()),
        "n_one_way_entries": int((~has_rev & ~loops).sum())}


# ---- file access (folder or zip, skipping macOS junk) --------------------------------------------------------

def _is_junk(name: str) -> bool:
    p = PurePosixPath(name)
    return "__MACOSX" in p.parts or p.name.startswith("._") or p.name == ".DS_Store"


def _read_member(container: Path, filename: str) -> tuple[str, str]:
    """Text of ``filename`` inside a folder or a zip (found by base name); returns (label for errors, text)."""
    if container.is_dir():
        p = container / filename
        if not p.is_file():
            raise FileNotFoundError(f"{p} not found")
        return str(p), p.read_text(encoding="utf-8", errors="replace")
    with zipfile.ZipFile(container) as z:
        names = [n for n in z.namelist() if not _is_junk(n) and PurePosixPath(n).name == filename]
        if not names:
            raise FileNotFoundError(f"{filename} not found in {container}")
        return f"{container}!{names[0]}", z.read(names[0]).decode("utf-8", errors="replace")


def _int_table(label: str, text: str, ncols: int) -> np.ndarray:
    """Integers, ``ncols`` per non-blank line ("a, b" or "a b"); a bad line raises ParseError with its number."""
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    try:
        arr = np.array(text.replace(",", " ").split(), dtype=np.int64)
        if arr.size == ncols * len(lines):
            return arr.reshape(len(lines), ncols)
    except ValueError:
        pass
    for lineno, line in enumerate(lines, 1):
        parts = line.replace(",", " ").split()
        if len(parts) != ncols:
            raise ParseError(label, lineno, f"expected {ncols} integer(s), got {line!r}")
        try:
            [int(x) for x in parts]
        except ValueError:
            raise ParseError(label, lineno, f"not an integer: {line!r}") from None
    raise ParseError(label, None, "unreadable integer table")  # pragma: no cover


# ---- parsers ----------------------------------------------------------------------------------------------------

def read_tu(container: str | os.PathLike, name: str) -> GraphCollection:
    """TU format (``<name>_A.txt``, ``_graph_indicator.txt``, ``_graph_labels.txt``) from a folder or a zip
    such as the official TU download."""
    container = Path(container)
    lab_a, text_a = _read_member(container, f"{name}_A.txt")
    lab_i, text_i = _read_member(container, f"{name}_graph_indicator.txt")
    lab_l, text_l = _read_member(container, f"{name}_graph_labels.txt")
    raw_labels = _int_table(lab_l, text_l, 1)[:, 0]
    ind = _int_table(lab_i, text_i, 1)[:, 0]
    G, N = len(raw_labels), len(ind)
    bad = np.flatnonzero((ind < 1) | (ind > G))
    if len(bad):
        raise ParseError(lab_i, int(bad[0]) + 1, f"graph id {ind[bad[0]]} outside 1..{G}")
    dec = np.flatnonzero(np.diff(ind) < 0)
    if len(dec):
        raise ParseError(lab_i, int(dec[0]) + 2, "graph ids must be nondecreasing (nodes of a graph contiguous)")
    A = _int_table(lab_a, text_a, 2) - 1
    bad = np.flatnonzero((A < 0).any(1) | (A >= N).any(1))
    if len(bad):
        raise ParseError(lab_a, int(bad[0]) + 1, f"node id outside 1..{N}")
    cross = np.flatnonzero(ind[A[:, 0]] != ind[A[:, 1]])
    if len(cross):
        raise ParseError(lab_a, int(cross[0]) + 1, "edge joins two different graphs")
    n_nodes = np.bincount(ind - 1, minlength=G).astype(np.int64)
    edges, stats = undirected_edges(A, N)
    labels, classes = remap_labels(raw_labels)
    return GraphCollection(name, n_nodes, edges, labels, classes, {"format": "tu", "source": str(container), **stats})


def _gin_member(container: Path) -> tuple[str, str]:
    if container.suffix != ".zip":
        return str(container), container.read_text(encoding="utf-8", errors="replace")
    with zipfile.ZipFile(container) as z:
        cands = [n for n in z.namelist() if n.endswith(".txt") and not _is_junk(n) and "10fold_idx" not in n]
        top = [n for n in cands if PurePosixPath(n).stem == PurePosixPath(n).parent.name] or cands
        if len(top) != 1:
            raise ParseError(container, None, f"expected one <NAME>/<NAME>.txt in the zip, found {top}")
        return f"{container}!{top[0]}", z.read(top[0]).decode("utf-8", errors="replace")


def read_gin_txt(container: str | os.PathLike, name: str | None = None) -> GraphCollection:
    """One-file GIN/DGCNN format (a ``.txt`` or the zip holding ``<NAME>/<NAME>.txt``): first line the number of
    graphs; per graph ``n label``, then per node ``tag degree neighbour...`` (local 0-based ids; extra trailing
    node features are ignored)."""
    container = Path(container)
    label, text = _gin_member(container)
    lines = text.splitlines()
    try:
        G = int(lines[0].split()[0])
    except (IndexError, ValueError):
        raise ParseError(label, 1, "first line must be the number of graphs") from None
    n_nodes = np.zeros(G, dtype=np.int64)
    raw_labels = np.zeros(G, dtype=np.int64)
    tokens: list[str] = []
    degs: list[int] = []
    node_line: list[int] = []
    pos = 1
    for g in range(G):
        if pos >= len(lines):
            raise ParseError(label, pos + 1, f"file ends before graph {g + 1} of {G}")
        head = lines[pos].split()
        try:
            n, raw_labels[g] = int(head[0]), int(head[1])
        except (IndexError, ValueError):
            raise ParseError(label, pos + 1, f"graph header must be 'n label', got {lines[pos]!r}") from None
        n_nodes[g] = n
        if pos + n >= len(lines):
            raise ParseError(label, len(lines), f"graph {g + 1} needs {n} node lines; the file ends first")
        for lineno in range(pos + 2, pos + 2 + n):
            parts = lines[lineno - 1].split()
            try:
                deg = int(parts[1])
            except (IndexError, ValueError):
                raise ParseError(label, lineno, "node line must be 'tag degree neighbour...'") from None
            if len(parts) < 2 + deg:
                raise ParseError(label, lineno, f"degree {deg} but {len(parts) - 2} neighbour(s)")
            tokens.extend(parts[2:2 + deg])
            degs.append(deg)
            node_line.append(lineno)
        pos += 1 + n
    if any(line.strip() for line in lines[pos:]):
        raise ParseError(label, pos + 1, f"unexpected content after the {G} graphs")
    deg_arr = np.asarray(degs, dtype=np.int64)
    try:
        nbr = np.array(tokens, dtype=np.int64)
    except ValueError:
        bad = next(i for i, t in enumerate(tokens) if not t.lstrip("-").isdigit())
        raise ParseError(label, node_line[int(np.searchsorted(np.cumsum(deg_arr), bad, side="right"))],
                         f"neighbour {tokens[bad]!r} is not an integer") from None
    node_graph = np.repeat(np.arange(G), n_nodes)
    base = np.concatenate([[0], np.cumsum(n_nodes)])[:-1]
    entry_node = np.repeat(np.arange(len(deg_arr)), deg_arr)
    n_of_entry = n_nodes[node_graph[entry_node]]
    bad = np.flatnonzero((nbr < 0) | (nbr >= n_of_entry))
    if len(bad):
        e = int(bad[0])
        raise ParseError(label, node_line[entry_node[e]], f"neighbour {nbr[e]} outside 0..{n_of_entry[e] - 1}")
    pairs = np.stack([entry_node, nbr + base[node_graph[entry_node]]], axis=1)
    edges, stats = undirected_edges(pairs, int(n_nodes.sum()))
    labels, classes = remap_labels(raw_labels)
    gname = name or PurePosixPath(label.split("!")[-1]).stem
    return GraphCollection(gname, n_nodes, edges, labels, classes,
                           {"format": "gin_txt", "source": str(container), **stats})


# ---- checks, splits, build ----------------------------------------------------------------------------------------

def check_counts(coll: GraphCollection, expected: ExpectedGraph) -> list[str]:
    """Mismatches between the collection and the registry's graph / node / edge / class counts (empty if none)."""
    got = {"graphs": coll.n_graphs, "nodes": int(coll.n_nodes.sum()), "edges": len(coll.edges),
           "classes": coll.n_classes}
    want = {"graphs": expected.n_graphs, "nodes": expected.n_nodes, "edges": expected.n_edges,
            "classes": expected.classes}
    return [f"{k}: expected {want[k]}, got {got[k]}" for k in got if got[k] != want[k]]


def graph_cv_splits(coll: GraphCollection, n_folds: int = 10, n_repeats: int = 10, val_fraction: float = 0.1,
                    seed: int = 0) -> list[dict[str, np.ndarray]]:
    """The paper's protocol: stratified 10-fold CV repeated 10 times, 10% of each training fold for validation."""
    return cv_splits(coll.labels, n_folds, n_repeats, val_fraction, seed)


def build_graph_collection(name: str, raw_dir_or_mirror: str | os.PathLike | None = None,
                           cache_dir: str | os.PathLike | None = None, *, fmt: str | None = None,
                           check: bool = True, verify: bool = True, **fetch_kw) -> GraphCollection:
    """Parse graph dataset ``name`` from its raw files and check its counts against the registry.

    ``fmt``: 'tu' or 'gin_txt' (default: the registry's parser; MUTAG/PROTEINS also ship a GIN zip), or
    'tu-official' for the official TU zip (its sha256 is not pinned: needs ``allow_unverified=True``).
    """
    spec = get_spec(name)
    if spec.kind != "graph":
        raise ValueError(f"{spec.name} is not a graph dataset")
    fmt = fmt or spec.parser
    if fmt == spec.parser:
        sources = spec.sources
    elif fmt == "tu-official":
        sources = (tu_official_source(spec.name),)
    else:
        sources = tuple(s for s in spec.alt_sources if s.path.endswith(".zip") and s.sha256 is not None)
    if fmt not in ("tu", "gin_txt", "tu-official") or not sources:
        raise ValueError(f"format {fmt!r} is not available for {spec.name}")
    paths = local_paths(sources, raw_dir_or_mirror, cache_dir, verify=verify, **fetch_kw)
    if fmt == "tu-official":
        coll = read_tu(paths[0], spec.name)
    else:
        coll = read_tu(paths[0].parent, spec.name) if fmt == "tu" else read_gin_txt(paths[0], spec.name)
    coll.meta["source_sha256"] = {s.path: s.sha256 for s in sources}
    if check and isinstance(spec.expected, ExpectedGraph):
        bad = check_counts(coll, spec.expected)
        if bad:
            raise ValueError(f"{spec.name}: counts differ from the registry: {'; '.join(bad)}")
    return coll
