"""How much local structure a node embedding keeps: does a node's nearest neighbour play its role?

Cheap, label-free checks for structural embeddings such as struc2vec. Two nodes share a role at
layer 0 when they have the same degree, at layer 1 when they also have the same multiset of
neighbour degrees (struc2vec's first two ring degree sequences are equal). For a sample of nodes we
measure how often the nearest neighbour in the embedding shares the role, beside chance (a
uniformly random other node).
"""
from __future__ import annotations

import numpy as np


def nearest_neighbours(emb: np.ndarray, queries: np.ndarray, chunk: int = 128, max_entries: int = 2**24) -> np.ndarray:
    """Index of each query's nearest other row of ``emb`` (Euclidean), shape ``(len(queries),)``.

    ``emb`` (n, d); ``queries`` row indices. Exact (brute force, at most ``chunk`` queries and
    ``max_entries`` distances, 128 MB of float64, at a time); the query itself is excluded, ties go
    to the lowest index.
    """
    emb = np.ascontiguousarray(emb, dtype=np.float64)
    queries = np.asarray(queries, dtype=np.int64)
    if len(emb) < 2:
        raise ValueError(f"need at least 2 embeddings to find neighbours, got {len(emb)}")
    sq_norms = np.einsum("ij,ij->i", emb, emb)
    out = np.empty(len(queries), dtype=np.int64)
    chunk = max(1, min(chunk, max_entries // len(emb)))
    for start in range(0, len(queries), chunk):
        q = queries[start:start + chunk]
        dist = sq_norms[None, :] - 2.0 * (emb[q] @ emb.T)   # + |q|^2, the same along each row
        dist[np.arange(len(q)), q] = np.inf
        out[start:start + chunk] = dist.argmin(axis=1)
    return out


def role_classes(indptr: np.ndarray, indices: np.ndarray, hops: int) -> np.ndarray:
    """(n,) class ids of a CSR graph: ``hops=0`` the degree, ``hops=1`` the degree and the sorted
    degrees of the neighbours (equal ids = equal role at that layer)."""
    degrees = np.diff(indptr)
    if hops == 0:
        return np.unique(degrees, return_inverse=True)[1]
    if hops != 1:
        raise ValueError(f"hops must be 0 or 1, got {hops}")
    owner = np.repeat(np.arange(len(degrees)), degrees)
    neighbour_degrees = degrees[indices]
    sorted_degrees = neighbour_degrees[np.lexsort((neighbour_degrees, owner))]   # sorted within each node
    keys = [(int(d),) + tuple(sorted_degrees[a:b].tolist()) for d, a, b in zip(degrees, indptr[:-1], indptr[1:])]
    ids: dict[tuple, int] = {}
    return np.array([ids.setdefault(k, len(ids)) for k in keys], dtype=np.int64)


def neighbour_agreement(emb: np.ndarray, classes: np.ndarray, n_queries: int = 2000, seed: int = 0) -> dict:
    """Share of sampled nodes whose nearest neighbour in ``emb`` has the same class, and chance.

    Args:
        emb: (n, d) node embeddings.
        classes: (n,) integer class per node (e.g. :func:`role_classes`).
        n_queries: nodes sampled without replacement (all nodes when ``n <= n_queries``).
        seed: seeds the sample.
    Returns:
        ``{"queries", "agreement", "chance", "lift"}``: the two shares in [0, 1] and their ratio.
        Chance for node i is ``(#nodes of i's class - 1) / (n - 1)``, averaged over the sample.
    """
    classes = np.asarray(classes, dtype=np.int64)
    if len(classes) != len(emb):
        raise ValueError(f"{len(emb)} embeddings but {len(classes)} classes")
    n = len(emb)
    rng = np.random.default_rng(seed)
    queries = np.arange(n) if n <= n_queries else np.sort(rng.choice(n, size=n_queries, replace=False))
    agreement = float(np.mean(classes[nearest_neighbours(emb, queries)] == classes[queries]))
    chance = float(np.mean((np.bincount(classes)[classes[queries]] - 1) / (n - 1)))
    return {"queries": len(queries), "agreement": agreement, "chance": chance,
            "lift": agreement / chance if chance > 0 else float("inf")}
