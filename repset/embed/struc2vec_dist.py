"""struc2vec, part 1: ring degree sequences, structural classes, DTW and pair distances.

Ribeiro, Saverese & Figueiredo, "struc2vec: Learning Node Representations from Structural
Identity", KDD 2017.  For every node ``u`` and ring ``k`` (nodes at hop distance exactly ``k``,
ring 0 = ``u`` itself) the ordered degree sequence ``s(R_k(u))`` is kept in the compressed
form of OPT1: sorted ``(degree, count)`` pairs.  The structural distance is
``f_k(u, v) = f_{k-1}(u, v) + DTW(s(R_k(u)), s(R_k(v)))``, defined while both nodes still have a
non-empty ring ``k``.

Nodes whose compressed sequences coincide on every ring (up to the OPT3 limit) are at distance 0
on every layer and are exchangeable in the whole method; they are grouped into *structural
classes* (identified by a 64-bit hash of the sequences), and every distance is computed once per
pair of classes.  This is exact; it only removes repeated work.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import get_num_threads, njit, prange

#: Added to both degrees in the DTW cost, as in the reference code (keeps degree-0 nodes finite).
EPS = 0.5
_NO_LIMIT = np.iinfo(np.int32).max


@dataclass
class Rings:
    """Compressed ring degree sequences of one representative per structural class."""

    cls: np.ndarray  # (n,) int32: class of each node
    rep: np.ndarray  # (C,) int64: representative node (smallest id) of each class
    size: np.ndarray  # (C,) int64: number of nodes in each class
    n_lay: np.ndarray  # (C,) int32: number of non-empty rings (layers) of the class
    lay_start: np.ndarray  # (C+1,) int64: first layer of class c in lay_off
    lay_off: np.ndarray  # (sum n_lay + 1,) int64: start of each layer in seq_deg/seq_cnt
    seq_deg: np.ndarray  # int32 degrees, ascending within each layer
    seq_cnt: np.ndarray  # int32 multiplicities

    def sequence(self, c: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(degrees, counts) of ring ``k`` of class ``c``."""
        j = self.lay_start[c] + k
        a, b = self.lay_off[j], self.lay_off[j + 1]
        return self.seq_deg[a:b], self.seq_cnt[a:b]


def build_csr(n_nodes: int, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR adjacency without self-loops or duplicate edges."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if e.size and (e.min() < 0 or e.max() >= n_nodes):
        raise ValueError("edge endpoints must lie in [0, n_nodes)")
    e = e[e[:, 0] != e[:, 1]]
    key = np.unique(np.concatenate([e[:, 0] * n_nodes + e[:, 1], e[:, 1] * n_nodes + e[:, 0]]))
    src, dst = key // n_nodes, key % n_nodes
    indptr = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n_nodes), out=indptr[1:])
    return indptr, dst.astype(np.int32)


@njit(inline="always")
def _mix(h, x):
    h = (h ^ np.uint64(x)) * np.uint64(0x9E3779B97F4A7C15)
    return h ^ (h >> np.uint64(31))


@njit(cache=True)
def _rings(u, indptr, indices, deg, max_layer, stamp, queue, hist, touched, out_deg, out_cnt, lay_len):
    """BFS from ``u`` up to ring ``max_layer``; compress every ring.

    Writes the pairs into ``out_deg``/``out_cnt`` and ring lengths into ``lay_len`` when those
    are non-empty.  Returns (number of rings, number of pairs, hash of all rings).
    """
    store = out_deg.shape[0] > 0
    stamp[u] = u
    queue[0] = u
    head, tail, layer, npairs = 0, 1, 0, 0
    h = np.uint64(0x243F6A8885A308D3)
    while head < tail and layer <= max_layer:
        end = tail
        nt = 0
        for i in range(head, end):
            d = deg[queue[i]]
            if hist[d] == 0:
                touched[nt] = d
                nt += 1
            hist[d] += 1
        touched[:nt].sort()
        h = _mix(h, 0xFFFFFFFF + layer)
        for j in range(nt):
            d = touched[j]
            h = _mix(_mix(h, d), hist[d])
            if store:
                out_deg[npairs + j] = d
                out_cnt[npairs + j] = hist[d]
            hist[d] = 0
        if store:
            lay_len[layer] = nt
        npairs += nt
        layer += 1
        if layer > max_layer:
            break
        for i in range(head, end):
            v = queue[i]
            for p in range(indptr[v], indptr[v + 1]):
                w = indices[p]
                if stamp[w] != u:
                    stamp[w] = u
                    queue[tail] = w
                    tail += 1
        head = end
    h = _mix(h, layer)
    return layer, npairs, h


@njit(parallel=True, cache=True)
def _scan(indptr, indices, deg, max_layer, n_chunks):
    """Pass 1: number of rings, number of compressed pairs and signature hash of every node."""
    n = deg.shape[0]
    n_lay = np.zeros(n, np.int32)
    n_pairs = np.zeros(n, np.int64)
    sig = np.zeros(n, np.uint64)
    md = deg.max() + 1 if n > 0 else 1
    for ch in prange(n_chunks):
        stamp = np.full(n, -1, np.int32)
        queue = np.empty(n, np.int32)
        hist = np.zeros(md, np.int64)
        touched = np.empty(md, np.int64)
        empty_i = np.empty(0, np.int32)
        for u in range(ch, n, n_chunks):
            a, b, h = _rings(u, indptr, indices, deg, max_layer, stamp, queue, hist, touched, empty_i, empty_i, empty_i)
            n_lay[u] = a
            n_pairs[u] = b
            sig[u] = h
    return n_lay, n_pairs, sig


@njit(parallel=True, cache=True)
def _fill(indptr, indices, deg, max_layer, rep, pair_start, lay_start, lay_off, seq_deg, seq_cnt, n_chunks):
    """Pass 2: write the compressed sequences of the class representatives."""
    n = deg.shape[0]
    C = rep.shape[0]
    md = deg.max() + 1
    for ch in prange(n_chunks):
        stamp = np.full(n, -1, np.int32)
        queue = np.empty(n, np.int32)
        hist = np.zeros(md, np.int64)
        touched = np.empty(md, np.int64)
        lay_len = np.empty(max(1, min(max_layer + 1, n + 1)), np.int64)
        for c in range(ch, C, n_chunks):
            p0, p1 = pair_start[c], pair_start[c + 1]
            nl, _, _ = _rings(rep[c], indptr, indices, deg, max_layer, stamp, queue, hist, touched,
                              seq_deg[p0:p1], seq_cnt[p0:p1], lay_len)
            off = p0
            for k in range(nl):
                lay_off[lay_start[c] + k] = off
                off += lay_len[k]


def ring_sequences(n_nodes: int, edges: np.ndarray, layers: int | None = None,
                   csr: tuple[np.ndarray, np.ndarray] | None = None) -> Rings:
    """Compressed ring degree sequences (OPT1), rings ``0..layers``, grouped into classes."""
    indptr, indices = csr if csr is not None else build_csr(n_nodes, edges)
    deg = np.diff(indptr).astype(np.int64)
    max_layer = _NO_LIMIT if layers is None else int(layers)
    if max_layer < 0:
        raise ValueError("layers must be >= 0")
    n_chunks = 4 * get_num_threads()
    n_lay, n_pairs, sig = _scan(indptr, indices, deg, max_layer, n_chunks)
    _, rep, cls = np.unique(sig, return_index=True, return_inverse=True)
    order = np.argsort(rep, kind="stable")  # number the classes by their smallest node
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    rep, cls = rep[order].astype(np.int64), rank[cls.ravel()].astype(np.int32)
    size = np.bincount(cls, minlength=rep.size).astype(np.int64)
    c_lay = n_lay[rep]
    pair_start = np.zeros(rep.size + 1, np.int64)
    np.cumsum(n_pairs[rep], out=pair_start[1:])
    lay_start = np.zeros(rep.size + 1, np.int64)
    np.cumsum(c_lay, out=lay_start[1:])
    lay_off = np.empty(lay_start[-1] + 1, np.int64)
    lay_off[-1] = pair_start[-1]
    seq_deg = np.empty(pair_start[-1], np.int32)
    seq_cnt = np.empty(pair_start[-1], np.int32)
    _fill(indptr, indices, deg, max_layer, rep, pair_start, lay_start, lay_off, seq_deg, seq_cnt, n_chunks)
    return Rings(cls, rep, size, c_lay, lay_start, lay_off, seq_deg, seq_cnt)


@njit(cache=True)
def _dtw(da, ca, db, cb, prev, cur):
    """Exact DTW with cost ((max+EPS)/(min+EPS) - 1) * max(count_a, count_b)."""
    m, n = da.shape[0], db.shape[0]
    prev[0] = 0.0
    for j in range(1, n + 1):
        prev[j] = np.inf
    for i in range(1, m + 1):
        cur[0] = np.inf
        x, cx = da[i - 1], ca[i - 1]
        for j in range(1, n + 1):
            y = db[j - 1]
            hi = max(x, y) + EPS
            lo = min(x, y) + EPS
            c = (hi / lo - 1.0) * max(cx, cb[j - 1])
            best = min(prev[j], prev[j - 1], cur[j - 1])
            cur[j] = c + best
        prev, cur = cur, prev
    return prev[n]


def dtw_compressed(a_deg, a_cnt, b_deg, b_cnt) -> float:
    """DTW between two compressed degree sequences (the OPT1 distance)."""
    a_deg, b_deg = np.asarray(a_deg, np.float64), np.asarray(b_deg, np.float64)
    a_cnt, b_cnt = np.asarray(a_cnt, np.float64), np.asarray(b_cnt, np.float64)
    buf = np.empty((2, b_deg.size + 1))
    return float(_dtw(a_deg, a_cnt, b_deg, b_cnt, buf[0], buf[1]))


def dtw_expanded(a, b) -> float:
    """DTW between two plain (uncompressed) degree sequences, cost (max+EPS)/(min+EPS) - 1."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return dtw_compressed(a, np.ones_like(a), b, np.ones_like(b))


def candidate_pairs(rings: Rings, deg: np.ndarray, n_nodes: int, opt2: bool) -> np.ndarray:
    """Class pairs (P, 2) whose distances are computed.

    Without OPT2: all pairs.  With OPT2: classes are sorted by degree (ties broken by the sizes and
    degree sums of the next rings, so that similar classes sit together) and each class is paired
    with the next ``ceil(log2 n)`` classes of that list, i.e. about ``2 log2 n`` partners per
    class, as many as the reference code compares a node with.
    """
    C = rings.rep.size
    if not opt2:
        a, b = np.triu_indices(C, k=1)
        return np.stack([a, b], axis=1).astype(np.int64)
    K = int(rings.n_lay.max()) if C else 1
    feats = np.full((C, 2 * K - 1), -1, dtype=np.int64)
    feats[:, 0] = deg[rings.rep]
    cnt = rings.seq_cnt.astype(np.int64)
    cs = np.concatenate([[0], np.cumsum(cnt)])
    ds = np.concatenate([[0], np.cumsum(cnt * rings.seq_deg)])
    for k in range(1, K):  # columns: degree, then (ring size, ring degree sum) for rings 1..K-1
        ok = np.nonzero(rings.n_lay > k)[0]
        j = rings.lay_start[ok] + k
        lo, hi = rings.lay_off[j], rings.lay_off[j + 1]
        feats[ok, 2 * k - 1] = cs[hi] - cs[lo]
        feats[ok, 2 * k] = ds[hi] - ds[lo]
    order = np.lexsort(feats[:, ::-1].T)
    h = max(1, math.ceil(math.log2(max(n_nodes, 2))))
    pa, pb = [], []
    for j in range(1, min(h, C - 1) + 1):
        pa.append(order[:-j])
        pb.append(order[j:])
    if not pa:
        return np.empty((0, 2), np.int64)
    return np.stack([np.concatenate(pa), np.concatenate(pb)], axis=1).astype(np.int64)


@njit(parallel=True, cache=True)
def _pair_dist(pairs, n_lay, lay_start, lay_off, seq_deg, seq_cnt, max_len, n_chunks, dist):
    P = pairs.shape[0]
    for ch in prange(n_chunks):
        prev = np.empty(max_len + 1)
        cur = np.empty(max_len + 1)
        for p in range(ch, P, n_chunks):
            a, b = pairs[p, 0], pairs[p, 1]
            f = 0.0
            for k in range(min(n_lay[a], n_lay[b])):
                ja, jb = lay_start[a] + k, lay_start[b] + k
                sa, ea = lay_off[ja], lay_off[ja + 1]
                sb, eb = lay_off[jb], lay_off[jb + 1]
                f += _dtw(seq_deg[sa:ea], seq_cnt[sa:ea], seq_deg[sb:eb], seq_cnt[sb:eb], prev, cur)
                dist[p, k] = f


def pair_distances(rings: Rings, pairs: np.ndarray, dtype: type = np.float32) -> np.ndarray:
    """f_k for every candidate pair: (P, K) of ``dtype`` (summed in float64), ``inf`` where a layer is missing."""
    K = int(rings.n_lay.max()) if rings.rep.size else 1
    max_len = int(np.diff(rings.lay_off).max()) if rings.lay_off.size > 1 else 1
    dist = np.full((pairs.shape[0], K), np.inf, dtype)
    _pair_dist(pairs, rings.n_lay, rings.lay_start, rings.lay_off, rings.seq_deg, rings.seq_cnt, max_len,
               4 * get_num_threads(), dist)
    return dist


def expand_rings(rings: Rings) -> Rings:
    """Uncompressed sequences (every degree repeated ``count`` times), for ``opt1=False``."""
    cnt = rings.seq_cnt.astype(np.int64)
    cs = np.concatenate([[0], np.cumsum(cnt)])
    seq_deg = np.repeat(rings.seq_deg, cnt).astype(np.int32)
    return Rings(rings.cls, rings.rep, rings.size, rings.n_lay, rings.lay_start, cs[rings.lay_off],
                 seq_deg, np.ones(seq_deg.size, np.int32))
