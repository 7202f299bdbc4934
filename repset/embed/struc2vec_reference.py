"""struc2vec, the reference implementation's rules (leoribeiro/struc2vec): node-level partners and Gamma.

The ``reference`` variant follows what the authors' code computes where it departs from the struc2vec paper's
wording (the ``paper`` variant, :mod:`.struc2vec_dist` and :mod:`.struc2vec_walks`):

* **Partners (OPT2).** Every node ``v`` is compared with ``floor(2 log2 n) + 1`` other nodes (all of them when
  fewer exist): first the nodes of its own degree in node-id order, then those of the nearest distinct degrees,
  the closer degree first and the higher one on a tie, each degree's nodes in id order
  (``src/struc2vec.py`` ``create_vectors``, ``src/algorithms_distances.py`` ``get_vertices``). Each selection
  ``(v, w)`` is an edge of the similarity graph of every layer both nodes reach; a pair selected from both ends
  is two parallel edges, as in the reference's neighbour lists (``generate_distances_network_part2``).
  Without OPT2 every unordered pair is one edge.
* **Transition probabilities.** In layer ``k`` a node's edges weigh ``exp(-f_k)`` normalised over its own edges
  (``generate_distances_network_part3``).
* **Gamma.** ``Gamma_k(v)`` counts the *normalised* probabilities of ``v``'s edges above the layer's average
  normalised probability, i.e. the number of layer nodes over the number of edge ends
  (``src/algorithms.py`` ``generate_parameters_random_walk``); the paper's wording compares raw weights with
  the average raw weight instead.

The structural distances ``f_k`` are those of :mod:`.struc2vec_dist` (exact DTW; the reference runs fastdtw with
radius 1), computed once per pair of structural classes and kept in float64, as the reference's Python floats.
Walks reuse :func:`.struc2vec_walks.walk_block` with every node its own class.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from .struc2vec_dist import Rings, pair_distances

__all__ = ["partner_count", "reference_partners", "all_pairs", "NodeContextGraph", "node_context_graph"]


def partner_count(n_nodes: int) -> int:
    """Partners per node under the reference's OPT2: the first count above ``2 log2 n`` (capped at n - 1)."""
    if n_nodes < 2:
        return 0
    return min(n_nodes - 1, math.floor(2 * math.log(n_nodes, 2)) + 1)


@njit(parallel=True, cache=True)
def _select(deg, by_degree, degrees, starts, count, out):
    """Row ``v`` of ``out`` (n, count): v's partners, own degree first, then the nearest degrees."""
    n = deg.shape[0]
    nd = degrees.shape[0]
    for v in prange(n):
        dv = deg[v]
        j = np.searchsorted(degrees, dv)
        c = 0
        for i in range(starts[j], starts[j + 1]):  # own degree, id order, without v
            w = by_degree[i]
            if w != v and c < count:
                out[v, c] = w
                c += 1
        before, after = j - 1, j + 1
        while c < count and (before >= 0 or after < nd):
            if before < 0:
                now = after
            elif after >= nd:
                now = before
            elif abs(degrees[before] - dv) < abs(degrees[after] - dv):
                now = before
            else:  # a tie goes to the higher degree
                now = after
            for i in range(starts[now], starts[now + 1]):
                if c == count:
                    break
                out[v, c] = by_degree[i]
                c += 1
            if now == before:
                before -= 1
            else:
                after += 1


def reference_partners(deg: np.ndarray) -> np.ndarray:
    """The reference's OPT2 selections as directed pairs (n * count, 2): row ``v * count + i`` is ``(v, i-th
    partner of v)``, in the order the reference appends them."""
    deg = np.asarray(deg, np.int64)
    n = deg.size
    count = partner_count(n)
    if count == 0:
        return np.empty((0, 2), np.int64)
    by_degree = np.argsort(deg, kind="stable").astype(np.int64)  # degree ascending, node id within
    degrees, first = np.unique(deg[by_degree], return_index=True)
    starts = np.append(first, n).astype(np.int64)
    out = np.empty((n, count), np.int64)
    _select(deg, by_degree, degrees, starts, count, out)
    return np.stack([np.repeat(np.arange(n, dtype=np.int64), count), out.ravel()], axis=1)


def all_pairs(n_nodes: int) -> np.ndarray:
    """Every unordered pair ``(v, w)``, ``v < w``, in the reference's order (without OPT2)."""
    a, b = np.triu_indices(n_nodes, k=1)
    return np.stack([a, b], axis=1).astype(np.int64)


@dataclass
class NodeContextGraph:
    """Node-level multilayer similarity graph: CSR rows with per-layer cumulative transition probabilities."""

    ptr: np.ndarray  # (n+1,) int64
    tgt: np.ndarray  # (E,) int32 neighbour of each edge end, rows in the reference's append order
    cum: np.ndarray  # (K, E) float32 cumulative normalised transition probabilities of each row
    p_up: np.ndarray  # (K, n) float32 probability of moving up when changing layer
    has: np.ndarray  # (K, n) bool: the node has an edge in layer k
    avg: np.ndarray  # (K,) float64 average normalised probability of layer k
    gamma: np.ndarray  # (K, n) int64 Gamma_k of each node


#: exp(-f) is formed as the reference forms it unless a row's smallest f is past this, where float64 underflows
#: (f > 745: hub nodes of large graphs): such a row is normalised after subtracting its smallest f instead
_SHIFT_FROM = 700.0


@njit(inline="always")
def _edge_f(q, k, pair_cls, n_lay, dist):
    """f_k of node pair ``q`` (inf where the layer is missing for either node)."""
    i = pair_cls[q]
    if i >= 0:
        return dist[i, k]
    return 0.0 if n_lay[-i - 1] > k else np.inf


@njit(cache=True)
def _first_seen(k, pairs, pair_cls, n_lay, dist, n):
    """Nodes of layer ``k`` in the order they first appear in its pairs (the order of the reference's dicts)."""
    seen = np.zeros(n, np.bool_)
    order = np.empty(n, np.int64)
    m = 0
    for p in range(pairs.shape[0]):
        if _edge_f(p, k, pair_cls, n_lay, dist) < np.inf:
            for s in range(2):
                v = pairs[p, s]
                if not seen[v]:
                    seen[v] = True
                    order[m] = v
                    m += 1
    return order[:m]


@njit(parallel=True, cache=True)
def _row_sums(k, ptr, edge_pair, pair_cls, n_lay, dist, row_sum, row_shift, has):
    """Per row: the sum of exp(-(f_k - shift)) over its edges present in layer ``k`` and the shift."""
    n = ptr.shape[0] - 1
    for v in prange(n):
        fmin = np.inf
        for e in range(ptr[v], ptr[v + 1]):
            fmin = min(fmin, _edge_f(edge_pair[e], k, pair_cls, n_lay, dist))
        shift = fmin if fmin > _SHIFT_FROM and fmin < np.inf else 0.0
        s = 0.0
        for e in range(ptr[v], ptr[v + 1]):
            f = _edge_f(edge_pair[e], k, pair_cls, n_lay, dist)
            if f < np.inf:
                s += math.exp(-(f - shift))
        row_sum[v] = s
        row_shift[v] = shift
        has[v] = fmin < np.inf


@njit(cache=True)
def _layer_average(k, order, ptr, edge_pair, pair_cls, n_lay, dist, row_sum, row_shift):
    """Mean normalised probability over every edge end of layer ``k``, summed in ``order`` (one thread)."""
    total = 0.0
    m = 0
    for v in order:
        for e in range(ptr[v], ptr[v + 1]):
            f = _edge_f(edge_pair[e], k, pair_cls, n_lay, dist)
            if f < np.inf:
                total += math.exp(-(f - row_shift[v])) / row_sum[v]
                m += 1
    return total / m if m > 0 else 0.0


@njit(parallel=True, cache=True)
def _layer_rows(k, avg, ptr, edge_pair, pair_cls, n_lay, dist, row_sum, row_shift, cum, gamma, p_up):
    """Cumulative normalised probabilities of each row, Gamma_k and the move-up probability."""
    n = ptr.shape[0] - 1
    for v in prange(n):
        g = 0
        tot = 0.0
        for e in range(ptr[v], ptr[v + 1]):
            f = _edge_f(edge_pair[e], k, pair_cls, n_lay, dist)
            if f < np.inf:
                p = math.exp(-(f - row_shift[v])) / row_sum[v]
                if p > avg:
                    g += 1
                tot += p
            cum[e] = tot
        gamma[v] = g
        x = math.log(g + math.e)
        p_up[v] = x / (x + 1.0)


def node_context_graph(rings: Rings, pairs: np.ndarray, n_nodes: int) -> NodeContextGraph:
    """The reference's similarity graph of every layer from node pairs ``pairs`` (P, 2) (each one edge).

    Distances are computed once per unordered pair of distinct structural classes (float64); a pair inside one
    class is at distance 0 on every layer the class reaches.
    """
    P = pairs.shape[0]
    K = max(1, int(rings.n_lay.max()) if rings.rep.size else 1)
    ca, cb = rings.cls[pairs[:, 0]].astype(np.int64), rings.cls[pairs[:, 1]].astype(np.int64)
    lo, hi = np.minimum(ca, cb), np.maximum(ca, cb)
    cross = lo != hi
    C = max(1, rings.rep.size)
    keys, inverse = np.unique(lo[cross] * C + hi[cross], return_inverse=True)
    class_pairs = np.stack([keys // C, keys % C], axis=1)
    dist = (pair_distances(rings, class_pairs, dtype=np.float64) if keys.size
            else np.full((0, K), np.inf, np.float64))
    pair_cls = np.empty(P, np.int64)
    pair_cls[cross] = inverse.ravel()
    pair_cls[~cross] = -lo[~cross] - 1  # -(class + 1): within one class
    # edge ends: pair p puts w in v's row and v in w's row, rows keeping the pairs' order (stable sort)
    src = np.stack([pairs[:, 0], pairs[:, 1]], axis=1).ravel()
    tgt = np.stack([pairs[:, 1], pairs[:, 0]], axis=1).ravel()
    edge_pair = np.repeat(np.arange(P, dtype=np.int64), 2)
    order = np.argsort(src, kind="stable")
    tgt, edge_pair = tgt[order].astype(np.int32), edge_pair[order]
    ptr = np.zeros(n_nodes + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n_nodes), out=ptr[1:])
    del src, order
    n_lay = rings.n_lay.astype(np.int64)
    cum = np.zeros((K, tgt.size), np.float32)
    p_up = np.zeros((K, n_nodes), np.float32)
    has = np.zeros((K, n_nodes), np.bool_)
    gamma = np.zeros((K, n_nodes), np.int64)
    avg = np.zeros(K, np.float64)
    row_sum, row_shift = np.empty(n_nodes, np.float64), np.empty(n_nodes, np.float64)
    for k in range(K):
        _row_sums(k, ptr, edge_pair, pair_cls, n_lay, dist, row_sum, row_shift, has[k])
        visit = _first_seen(k, pairs, pair_cls, n_lay, dist, n_nodes)
        avg[k] = _layer_average(k, visit, ptr, edge_pair, pair_cls, n_lay, dist, row_sum, row_shift)
        _layer_rows(k, avg[k], ptr, edge_pair, pair_cls, n_lay, dist, row_sum, row_shift, cum[k], gamma[k],
                    p_up[k])
    return NodeContextGraph(ptr, tgt, cum, p_up, has, avg, gamma)
