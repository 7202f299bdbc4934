"""Tests of the struc2vec implementation (repset.embed): its stages, and end to end the paper-wording variant (the
reference variant's rules: test_struc2vec_reference.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest

nx = pytest.importorskip("networkx")
pytest.importorskip("gensim")

from repset.embed import struc2vec  # noqa: E402
from repset.embed.struc2vec_dist import (  # noqa: E402
    EPS, build_csr, candidate_pairs, dtw_compressed, dtw_expanded, pair_distances, ring_sequences)
from repset.embed.struc2vec_walks import STAY, context_graph, walk_block  # noqa: E402


# ---------------------------------------------------------------- references (plain Python)
def ref_cost(a: float, b: float) -> float:
    return (max(a, b) + EPS) / (min(a, b) + EPS) - 1.0


def ref_dtw(a, b, ca=None, cb=None) -> float:
    """Textbook O(mn) DTW; with counts, the OPT1 cost (d(a, b) * max(count_a, count_b))."""
    ca = [1] * len(a) if ca is None else ca
    cb = [1] * len(b) if cb is None else cb
    D = [[math.inf] * (len(b) + 1) for _ in range(len(a) + 1)]
    D[0][0] = 0.0
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            c = ref_cost(a[i - 1], b[j - 1]) * max(ca[i - 1], cb[j - 1])
            D[i][j] = c + min(D[i - 1][j], D[i][j - 1], D[i - 1][j - 1])
    return D[-1][-1]


def ref_rings(G, layers):
    """Compressed ring degree sequences of every node, from networkx BFS."""
    out = {}
    for u in G:
        dist = nx.single_source_shortest_path_length(G, u, cutoff=layers)
        rings = [sorted(G.degree(v) for v, d in dist.items() if d == k) for k in range(max(dist.values()) + 1)]
        out[u] = [np.unique(r, return_counts=True) for r in rings]
    return out


def ref_f(R, u, v):
    """f_k(u, v) for k < min(#layers): cumulative compressed DTW."""
    f, res = 0.0, []
    for (da, ca), (db, cb) in zip(R[u], R[v]):
        f += ref_dtw(list(da), list(db), list(ca), list(cb))
        res.append(f)
    return res


def node_dist(G, layers=None, opt2=False):
    """Class-level pipeline -> dict (u, v) -> list of f_k (node level)."""
    n = G.number_of_nodes()
    e = np.array(G.edges(), dtype=np.int64).reshape(-1, 2)
    r = ring_sequences(n, e, layers)
    pairs = candidate_pairs(r, np.diff(build_csr(n, e)[0]), n, opt2)
    D = pair_distances(r, pairs)
    by_cls = {(int(a), int(b)): D[p] for p, (a, b) in enumerate(pairs)}
    out = {}
    for u in range(n):
        for v in range(n):
            cu, cv = int(r.cls[u]), int(r.cls[v])
            if u == v:
                continue
            if cu == cv:
                out[u, v] = [0.0] * int(r.n_lay[cu])
            else:
                row = by_cls.get((cu, cv), by_cls.get((cv, cu)))
                if row is not None:
                    out[u, v] = [float(x) for x in row if np.isfinite(x)]
    return r, out


def two_copies(seed=3, n=10, m=16):
    """Disjoint union of a random connected graph and a relabelled copy; returns (G, copy map)."""
    rng = np.random.default_rng(seed)
    while True:
        H = nx.gnm_random_graph(n, m, seed=int(rng.integers(1 << 30)))
        if nx.is_connected(H):
            break
    perm = rng.permutation(n)
    G = nx.Graph()
    G.add_nodes_from(range(2 * n))
    G.add_edges_from(H.edges())
    G.add_edges_from((n + perm[a], n + perm[b]) for a, b in H.edges())
    return G, {u: n + int(perm[u]) for u in range(n)}


# ---------------------------------------------------------------- DTW
def test_dtw_matches_reference_on_random_sequences():
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = np.sort(rng.integers(0, 8, rng.integers(1, 9)))
        b = np.sort(rng.integers(0, 8, rng.integers(1, 9)))
        da, ca = np.unique(a, return_counts=True)
        db, cb = np.unique(b, return_counts=True)
        comp, exp = dtw_compressed(da, ca, db, cb), dtw_expanded(a, b)
        assert comp == pytest.approx(ref_dtw(list(da), list(db), list(ca), list(cb)))
        assert exp == pytest.approx(ref_dtw(list(a), list(b)))
        # the compressed distance never undercuts the expanded one, and both vanish together
        assert exp <= comp + 1e-12
        assert (exp == 0) == (comp == 0) == (set(a) == set(b))
        # without repeated degrees the two representations coincide
        ua, ub = np.unique(a), np.unique(b)
        assert dtw_compressed(ua, np.ones_like(ua), ub, np.ones_like(ub)) == pytest.approx(dtw_expanded(ua, ub))


def test_dtw_compressed_is_not_the_expanded_dtw():
    # OPT1 is an approximation: (1,1,1) vs (1,2,2) costs 2 * d(1,2) expanded, 3 * d(1,2) compressed
    d12 = ref_cost(1, 2)
    assert dtw_expanded([1, 1, 1], [1, 2, 2]) == pytest.approx(2 * d12)
    assert dtw_compressed([1], [3], [1, 2], [1, 2]) == pytest.approx(3 * d12)
    assert dtw_compressed([4], [3], [5], [1]) == pytest.approx(ref_cost(4, 5) * 3)


# ---------------------------------------------------------------- rings and structural distance
def test_ring_sequences_match_networkx_bfs():
    G, _ = two_copies()
    G.add_node(20)  # an isolated node
    R = ref_rings(G, 3)
    r = ring_sequences(G.number_of_nodes(), np.array(G.edges()), 3)
    for u in G:
        c = int(r.cls[u])
        assert r.n_lay[c] == len(R[u])
        for k, (d, cnt) in enumerate(R[u]):
            sd, sc = r.sequence(c, k)
            np.testing.assert_array_equal(sd, d)
            np.testing.assert_array_equal(sc, cnt)
    # classes = identical sequences on all rings
    for u in G:
        for v in G:
            same = len(R[u]) == len(R[v]) and all(
                np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(R[u], R[v]))
            assert (r.cls[u] == r.cls[v]) == same


def test_structural_distance_barbell():
    G = nx.barbell_graph(6, 3)  # cliques 0-5 and 9-14, bridge nodes 5 and 9, path 6-7-8
    R = ref_rings(G, None)
    r, f = node_dist(G)
    for (u, v), fk in f.items():
        assert fk == pytest.approx(ref_f(R, u, v)), (u, v)
    for u, v in [(5, 9), (6, 8), (0, 14), (1, 3)]:  # mirror images / equivalent clique nodes
        assert r.cls[u] == r.cls[v] and max(f[u, v]) == 0.0
    for u, v in [(0, 5), (5, 6), (6, 7), (0, 7)]:
        assert f[u, v][-1] > 0
        assert f[u, v][-1] > f[5, 9][-1]


def test_structural_distance_two_copies():
    G, copy = two_copies()
    R = ref_rings(G, 4)
    r, f = node_dist(G, layers=4)
    for u, cu in copy.items():
        assert r.cls[u] == r.cls[cu] and max(f[u, cu]) == 0.0
        assert f[u, cu] == pytest.approx(ref_f(R, u, cu))
    for u in copy:
        for v in copy:
            if r.cls[u] != r.cls[v]:
                assert f[u, v][-1] > 0 and f[u, v] == pytest.approx(ref_f(R, u, v))


# ---------------------------------------------------------------- context graph
@pytest.mark.parametrize("opt2", [False, True])
def test_context_graph_follows_the_formulas(opt2):
    G, _ = two_copies(seed=5, n=9, m=13)
    n, K = G.number_of_nodes(), 4
    e = np.array(G.edges())
    r = ring_sequences(n, e, K - 1)
    pairs = candidate_pairs(r, np.diff(build_csr(n, e)[0]), n, opt2)
    cg = context_graph(r.size, r.n_lay, pairs, pair_distances(r, pairs))
    _, f = node_dist(G, layers=K - 1, opt2=opt2)
    for k in range(K):
        w = {uv: math.exp(-fk[k]) for uv, fk in f.items() if len(fk) > k}  # both directions
        assert cg.avg[k] == pytest.approx(np.mean(list(w.values())))
        for u in range(n):
            c = int(r.cls[u])
            wu = {v: x for (a, v), x in w.items() if a == u}
            gamma = sum(x > cg.avg[k] for x in wu.values())
            assert cg.gamma[k, c] == gamma
            x = math.log(gamma + math.e)
            assert cg.p_up[k, c] == pytest.approx(x / (x + 1), rel=1e-6)
            assert cg.has[k, c] == (len(wu) > 0)
            if not wu:
                continue
            tot = sum(wu.values())
            a, b = cg.ptr[c], cg.ptr[c + 1]
            prob = np.diff(np.concatenate([[0.0], cg.cum[k, a:b].astype(np.float64)]))
            for j, d in enumerate(cg.tgt[a:b]):
                vs = [v for v in wu if r.cls[v] == d]
                want = sum(wu[v] for v in vs) / tot
                assert prob[j] == pytest.approx(want, abs=1e-6)


def test_walks_do_not_depend_on_thread_count():
    import numba

    G = nx.barbell_graph(5, 2)
    n, e = G.number_of_nodes(), np.array(G.edges())
    r = ring_sequences(n, e, 3)
    pairs = candidate_pairs(r, np.diff(build_csr(n, e)[0]), n, True)
    cg = context_graph(r.size, r.n_lay, pairs, pair_distances(r, pairs))
    members = np.argsort(r.cls, kind="stable").astype(np.int32)
    mem_ptr = np.concatenate([[0], np.cumsum(r.size)])
    outs = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        prev = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            out = np.empty((n, 40), np.int32)
            walk_block(np.arange(n, dtype=np.int32), 0, 7, 40, r.cls, mem_ptr, members,
                       cg.ptr, cg.tgt, cg.cum, cg.p_up, cg.has, out)
        finally:
            numba.set_num_threads(prev)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    assert np.all(outs[0][:, 0] == np.arange(n))
    # every appended node comes from a move to another node (no node here is isolated)
    assert np.all(outs[0][:, 1:] != outs[0][:, :-1]) and 0 < STAY < 1


# ---------------------------------------------------------------- end to end
def _mean_dists(X, groups):
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    same = groups[:, None] == groups[None]
    off = ~np.eye(len(X), dtype=bool)
    return D[same & off].mean(), D[~same].mean()


def test_embedding_barbell_equivalent_nodes_are_closer():
    G = nx.barbell_graph(8, 4)
    n = G.number_of_nodes()
    X = struc2vec(n, np.array(G.edges()), 8, seed=1, walks_per_node=10, variant="paper")
    r = ring_sequences(n, np.array(G.edges()), 6)
    within, between = _mean_dists(X, r.cls)
    assert within < 0.5 * between
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    within_c, between_c = _mean_dists(Xn, r.cls)
    assert within_c < 0.5 * between_c


def test_embedding_two_copies_equivalent_nodes_are_closer():
    G, copy = two_copies()
    n = G.number_of_nodes()
    X = struc2vec(n, np.array(G.edges()), 8, seed=0, variant="paper")
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    r = ring_sequences(n, np.array(G.edges()), 6)
    wins = 0
    for u, cu in copy.items():
        other = [v for v in range(n) if r.cls[v] != r.cls[u]]
        wins += D[u, cu] < np.median(D[u, other])
    assert wins >= 0.9 * len(copy)


def test_output_shape_dtype_and_determinism():
    G = nx.karate_club_graph()
    n = G.number_of_nodes() + 2  # two isolated nodes
    e = np.array(G.edges())
    e = np.concatenate([e, e[:, ::-1], e[:3]])  # both directions and duplicates are fine
    kw = dict(walks_per_node=3, walk_length=20, epochs=2, layers=3, variant="paper")
    X = struc2vec(n, e, 6, seed=4, **kw)
    assert X.shape == (n, 6) and X.dtype == np.float32 and np.isfinite(X).all()
    np.testing.assert_array_equal(X, struc2vec(n, e, 6, seed=4, **kw))
    assert not np.array_equal(X, struc2vec(n, e, 6, seed=5, **kw))
    for opts in (dict(opt1=False), dict(opt2=False), dict(hs=True, negative=0), dict(layers=None)):
        Y = struc2vec(n, e, 6, seed=4, **{**kw, **opts})
        assert Y.shape == (n, 6) and np.isfinite(Y).all()
    assert struc2vec(0, np.empty((0, 2)), 5).shape == (0, 5)
    with pytest.raises(ValueError):
        struc2vec(3, np.array([[0, 3]]))

