"""struc2vec, part 2: the multilayer context graph and the biased random walks.

Layer ``k`` of the context graph links nodes ``u, v`` with weight ``w_k(u, v) = exp(-f_k(u, v))``.
A walk at ``(u, k)`` stays in the layer with probability ``STAY`` and then moves to ``v`` with
probability ``w_k(u, v) / sum_v w_k(u, v)``; otherwise it moves up with probability
``w(u_k, u_{k+1}) / (w(u_k, u_{k+1}) + w(u_k, u_{k-1}))`` where ``w(u_k, u_{k+1}) = log(Gamma_k(u) + e)``,
``w(u_k, u_{k-1}) = 1``, and ``Gamma_k(u)`` counts the edges of ``u`` in layer ``k`` heavier than the
layer's average edge weight.  Only moves change the node, as in the reference code; a walk starts
at layer 0, cannot go below it, and only goes up to layers in which its node has an edge.

The graph is stored per structural class (see :mod:`struc2vec_dist`): the row of a class holds one
*self* entry (the other ``size - 1`` members, all at distance 0) and one entry per partner class
``D`` of weight ``size(D) * exp(-f_k)``; a walk that picks a class entry then moves to a uniform
member of it.  This gives exactly the node-level transition probabilities above.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

#: Probability of moving inside the current layer (reference code: 0.3).
STAY = 0.3


@dataclass
class ContextGraph:
    """Per-class CSR rows; per layer normalised cumulative weights and move-up probabilities."""

    ptr: np.ndarray  # (C+1,) int64
    tgt: np.ndarray  # (E,) int32 target class; the first entry of each row is the class itself
    cum: np.ndarray  # (K, E) float32 cumulative transition probabilities of each row
    p_up: np.ndarray  # (K, C) float32 probability of moving up when changing layer
    has: np.ndarray  # (K, C) bool: the class's nodes have an edge in layer k
    avg: np.ndarray  # (K,) float64 average node-level edge weight of layer k
    gamma: np.ndarray  # (K, C) float64 Gamma_k of the class's nodes


@njit(cache=True)
def _layer_avg(k, size, n_lay, pairs, dist):
    """Average exp(-f_k) over all node pairs that share layer ``k`` (pairs within a class: f = 0)."""
    s = 0.0
    m = 0.0
    for c in range(size.shape[0]):
        if n_lay[c] > k:
            q = size[c] * (size[c] - 1) / 2.0
            s += q
            m += q
    for p in range(pairs.shape[0]):
        f = dist[p, k]
        if f < np.inf:
            q = float(size[pairs[p, 0]]) * float(size[pairs[p, 1]])
            s += q * math.exp(-f)
            m += q
    return s / m if m > 0 else 0.0


@njit(parallel=True, cache=True)
def _layer_rows(k, avg, size, n_lay, ptr, tgt, pidx, dist, cum, p_up, has, gamma):
    """Fill layer ``k``: cumulative row probabilities, Gamma and move-up probability per class."""
    C = size.shape[0]
    for c in prange(C):
        a, b = ptr[c], ptr[c + 1]
        fmin = np.inf
        for e in range(a, b):  # smallest distance of the row, to normalise without underflow
            f = 0.0 if pidx[e] < 0 else dist[pidx[e], k]
            cnt = size[c] - 1 if pidx[e] < 0 else size[tgt[e]]
            if pidx[e] < 0 and n_lay[c] <= k:
                cnt = 0
            if cnt > 0 and f < fmin:
                fmin = f
        g = 0.0
        tot = 0.0
        for e in range(a, b):
            f = 0.0 if pidx[e] < 0 else dist[pidx[e], k]
            cnt = size[c] - 1 if pidx[e] < 0 else size[tgt[e]]
            if pidx[e] < 0 and n_lay[c] <= k:
                cnt = 0
            if cnt > 0 and f < np.inf:
                if math.exp(-f) > avg:
                    g += cnt
                tot += cnt * math.exp(-(f - fmin))
            cum[e] = tot
        has[c] = fmin < np.inf
        gamma[c] = g
        x = math.log(g + math.e)
        p_up[c] = x / (x + 1.0)
        if tot > 0:
            for e in range(a, b):
                cum[e] = cum[e] / tot


def context_graph(size: np.ndarray, n_lay: np.ndarray, pairs: np.ndarray, dist: np.ndarray) -> ContextGraph:
    """Build the class-level multilayer context graph from the pair distances ``dist`` (P, K)."""
    C, P = size.size, pairs.shape[0]
    K = dist.shape[1] if P else max(1, int(n_lay.max()) if C else 1)
    if not P:
        dist = np.full((0, K), np.inf, np.float32)
    src = np.concatenate([np.arange(C), pairs[:, 0], pairs[:, 1]])
    tgt = np.concatenate([np.arange(C), pairs[:, 1], pairs[:, 0]])
    pidx = np.concatenate([np.full(C, -1), np.arange(P), np.arange(P)])
    order = np.lexsort((tgt, pidx >= 0, src))  # rows by class, self entry first
    tgt, pidx = tgt[order].astype(np.int32), pidx[order].astype(np.int64)
    ptr = np.zeros(C + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=C), out=ptr[1:])
    cum = np.zeros((K, tgt.size), np.float32)
    p_up = np.zeros((K, C), np.float32)
    has = np.zeros((K, C), np.bool_)
    gamma = np.zeros((K, C), np.float64)
    avg = np.zeros(K, np.float64)
    for k in range(K):
        avg[k] = _layer_avg(k, size, n_lay, pairs, dist)
        _layer_rows(k, avg[k], size, n_lay, ptr, tgt, pidx, dist, cum[k], p_up[k], has[k], gamma[k])
    return ContextGraph(ptr, tgt, cum, p_up, has, avg, gamma)


@njit(inline="always")
def _next(state):
    """splitmix64: returns (new state, uniform double in [0, 1))."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return state, float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(parallel=True, cache=True)
def walk_block(starts, first_id, seed, walk_length, cls, mem_ptr, members, ptr, tgt, cum, p_up, has, out):
    """One walk per start node into ``out`` (len(starts), walk_length).

    Walk ``i`` draws from its own splitmix64 stream keyed by ``(seed, first_id + i)``, so the
    result does not depend on the number of threads.
    """
    K = cum.shape[0]
    for i in prange(starts.shape[0]):
        state = np.uint64(seed) * np.uint64(0xD1B54A32D192ED03) + np.uint64(first_id + i)
        state, _ = _next(state)
        u = starts[i]
        layer = 0
        out[i, 0] = u
        t = 1
        while t < walk_length:
            state, r = _next(state)
            c = cls[u]
            if r < STAY:
                if has[layer, c]:
                    state, r = _next(state)
                    lo, hi = ptr[c], ptr[c + 1] - 1
                    r *= cum[layer, hi]  # the row total (1 up to rounding)
                    while lo < hi:  # first entry whose cumulative probability exceeds r
                        mid = (lo + hi) // 2
                        if cum[layer, mid] > r:
                            hi = mid
                        else:
                            lo = mid + 1
                    d = tgt[lo]
                    m0, m1 = mem_ptr[d], mem_ptr[d + 1]
                    state, r = _next(state)
                    if d == c:  # another member of the own class
                        v = members[m0 + int(r * (m1 - m0 - 1))]
                        u = members[m1 - 1] if v == u else v
                    else:
                        u = members[m0 + int(r * (m1 - m0))]
                out[i, t] = u
                t += 1
            else:
                state, r = _next(state)
                if r > p_up[layer, c]:
                    if layer > 0:
                        layer -= 1
                elif layer + 1 < K and has[layer + 1, c]:
                    layer += 1


@njit(parallel=True, cache=True)
def format_walks(walks):
    """Walks as text lines of space-separated decimal node ids (gensim ``corpus_file`` format)."""
    n, L = walks.shape
    width = np.zeros(n, np.int64)
    for i in prange(n):
        w = 0
        for j in range(L):
            x = walks[i, j]
            w += 2  # first digit and separator
            while x >= 10:
                w += 1
                x //= 10
        width[i] = w
    off = np.zeros(n + 1, np.int64)
    for i in range(n):
        off[i + 1] = off[i] + width[i]
    buf = np.empty(off[n], np.uint8)
    for i in prange(n):
        p = off[i + 1] - 1
        buf[p] = 10  # newline
        for j in range(L - 1, -1, -1):
            x = walks[i, j]
            if j < L - 1:
                p -= 1
                buf[p] = 32
            while True:
                p -= 1
                buf[p] = 48 + x % 10
                x //= 10
                if x == 0:
                    break
    return buf
