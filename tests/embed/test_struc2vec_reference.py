"""Tests of the reference struc2vec rules (repset.embed.struc2vec_reference).

The expected values come from a plain-Python transcription of the reference implementation's algorithm
(leoribeiro/struc2vec): partner selection of ``src/struc2vec.py`` ``create_vectors`` and
``src/algorithms_distances.py`` ``get_vertices``; neighbour lists of ``generate_distances_network_part2``
(one entry per selection, from both ends); normalised weights of ``generate_distances_network_part3``; the layer
average and Gamma of ``src/algorithms.py`` ``generate_parameters_random_walk``. Dicts keep insertion order, as
the reference's do for node ids in ascending order.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

nx = pytest.importorskip("networkx")

from repset.embed import struc2vec  # noqa: E402
from repset.embed.struc2vec_dist import EPS, build_csr, ring_sequences  # noqa: E402
from repset.embed.struc2vec_reference import (  # noqa: E402
    all_pairs, node_context_graph, partner_count, reference_partners)

GRAPH_FILES = Path(__file__).parent / "graphs"


# ---------------------------------------------------------------- the reference's algorithm, transcribed
def oracle_partners(adj: dict[int, list[int]]) -> dict[int, list[int]]:
    """Each node's OPT2 selection: own degree first (id order), then the closest degree (the higher on a tie)."""
    by_degree: dict[int, list[int]] = {}
    for v in adj:
        by_degree.setdefault(len(adj[v]), []).append(v)
    ordered = sorted(by_degree)
    limit = 2 * math.log(len(adj), 2)
    out = {}
    for v in adj:
        chosen: list[int] = []
        j = ordered.index(len(adj[v]))
        before, after = j - 1, j + 1
        groups = [by_degree[ordered[j]]]
        while True:
            for w in groups[-1]:
                if w != v:
                    chosen.append(w)
                    if len(chosen) > limit:
                        break
            if len(chosen) > limit or (before < 0 and after >= len(ordered)):
                break
            if before < 0:
                now = after
            elif after >= len(ordered):
                now = before
            else:
                now = before if abs(ordered[before] - len(adj[v])) < abs(ordered[after] - len(adj[v])) else after
            groups.append(by_degree[ordered[now]])
            if now == before:
                before -= 1
            else:
                after += 1
        out[v] = chosen
    return out


def oracle_rings(adj: dict[int, list[int]], until: int) -> dict[int, list[list[tuple[int, int]]]]:
    """Compact degree lists per ring (BFS), rings 0..until."""
    out = {}
    for root in adj:
        seen, ring, rings = {root}, [root], []
        while ring and len(rings) <= until:
            counts: dict[int, int] = {}
            for u in ring:
                counts[len(adj[u])] = counts.get(len(adj[u]), 0) + 1
            rings.append(sorted(counts.items()))
            nxt = []
            for u in ring:
                for w in adj[u]:
                    if w not in seen:
                        seen.add(w)
                        nxt.append(w)
            ring = nxt
        out[root] = rings
    return out


def oracle_dtw(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> float:
    def cost(x, y):
        return ((max(x[0], y[0]) + EPS) / (min(x[0], y[0]) + EPS) - 1) * max(x[1], y[1])
    D = [[math.inf] * (len(b) + 1) for _ in range(len(a) + 1)]
    D[0][0] = 0.0
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            D[i][j] = cost(a[i - 1], b[j - 1]) + min(D[i - 1][j], D[i][j - 1], D[i - 1][j - 1])
    return D[-1][-1]


def oracle_layers(adj, pairs, until):
    """Per layer: neighbour lists, normalised weights, the average weight and Gamma of every node."""
    rings = oracle_rings(adj, until)
    dist = {}
    for v, w in pairs:
        f, fk = 0.0, []
        for k in range(min(len(rings[v]), len(rings[w]))):
            f += oracle_dtw(rings[v][k], rings[w][k])
            fk.append(f)
        dist[v, w] = fk
    layers = []
    for k in range(max(len(r) for r in rings.values())):
        graph: dict[int, list[int]] = {}
        for (v, w), fk in dist.items():
            if len(fk) > k:
                graph.setdefault(v, []).append(w)
                graph.setdefault(w, []).append(v)
        weights = {}
        for v, nbs in graph.items():
            raw = [math.exp(-(dist[v, u] if (v, u) in dist else dist[u, v])[k]) for u in nbs]
            weights[v] = [x / sum(raw) for x in raw]
        total, count = 0.0, 0
        for ws in weights.values():
            for x in ws:
                total += x
                count += 1
        avg = total / count if count else 0.0
        gamma = {v: sum(x > avg for x in ws) for v, ws in weights.items()}
        layers.append({"graph": graph, "weights": weights, "avg": avg, "gamma": gamma})
    return layers


def adjacency(n: int, edges) -> dict[int, list[int]]:
    adj: dict[int, list[int]] = {v: [] for v in range(n)}
    for a, b in edges:
        if a != b and b not in adj[a]:
            adj[a].append(b)
            adj[b].append(a)
    return {v: sorted(ws) for v, ws in adj.items()}


def karate_mirrored() -> tuple[int, np.ndarray]:
    e = np.loadtxt(GRAPH_FILES / "karate-mirrored.edgelist", dtype=np.int64)
    ids = np.unique(e)
    return ids.size, np.searchsorted(ids, e)


GRAPHS = {"barbell": lambda: (30, np.array(nx.barbell_graph(10, 10).edges())), "karate-mirrored": karate_mirrored}


# ---------------------------------------------------------------- partners
@pytest.mark.parametrize("name", GRAPHS)
def test_partners_equal_the_references(name):
    n, e = GRAPHS[name]()
    adj = adjacency(n, e)
    want = oracle_partners(adj)
    got = reference_partners(np.diff(build_csr(n, e)[0]))
    count = partner_count(n)
    assert got.shape == (n * count, 2)
    for v in range(n):
        assert got[v * count:(v + 1) * count, 1].tolist() == want[v], v
        assert np.all(got[v * count:(v + 1) * count, 0] == v)


def test_partner_count_is_the_first_count_above_2_log2_n():
    assert [partner_count(n) for n in (0, 1, 2, 3, 4, 30, 68, 1024)] == [0, 0, 1, 2, 3, 10, 13, 21]
    rng = np.random.default_rng(0)
    for _ in range(20):
        deg = rng.integers(0, 6, rng.integers(2, 60))
        adj = {v: [0] * int(d) for v, d in enumerate(deg)}   # only the degrees matter
        want = oracle_partners(adj)
        got = reference_partners(deg)
        c = partner_count(deg.size)
        assert all(got[v * c:(v + 1) * c, 1].tolist() == want[v] for v in range(deg.size))


# ---------------------------------------------------------------- weights, Gamma, transition probabilities
def check_against_oracle(n, e, pairs, until=6):
    adj = adjacency(n, e)
    layers = oracle_layers(adj, [tuple(map(int, p)) for p in pairs], until)
    rings = ring_sequences(n, e, until)
    reach = rings.n_lay[rings.cls]                      # layers each node reaches
    cg = node_context_graph(rings, pairs, n)
    assert cg.cum.shape[0] == len(layers)
    for k, want in enumerate(layers):
        assert cg.avg[k] == pytest.approx(want["avg"], rel=1e-12)
        for v in range(n):
            a, b = cg.ptr[v], cg.ptr[v + 1]
            assert cg.has[k, v] == (v in want["graph"])
            if v not in want["graph"]:
                continue
            present = np.diff(np.concatenate([[0.0], cg.cum[k, a:b].astype(np.float64)]))
            rows = [(int(t), p) for t, p in zip(cg.tgt[a:b], present)]
            # the layer's edges of v, in the reference's order, with its normalised weights
            in_layer = [(t, p) for t, p in rows if min(reach[v], reach[t]) > k]
            assert [t for t, _ in in_layer] == want["graph"][v], (k, v)
            assert [p for _, p in in_layer] == pytest.approx(want["weights"][v], abs=1e-6)
            assert cg.gamma[k, v] == want["gamma"][v], (k, v)
            x = math.log(want["gamma"][v] + math.e)
            assert cg.p_up[k, v] == pytest.approx(x / (x + 1), rel=1e-6)


@pytest.mark.parametrize("name", GRAPHS)
def test_layers_equal_the_references(name):
    n, e = GRAPHS[name]()
    check_against_oracle(n, e, reference_partners(np.diff(build_csr(n, e)[0])))


def test_layers_without_opt2_equal_the_references():
    n, e = GRAPHS["karate-mirrored"]()
    check_against_oracle(n, e, all_pairs(n), until=3)


def test_path_of_four_worked_by_hand():
    # 0-1-2-3: 2 log2 4 = 4, so every node takes all 3 others; each pair is chosen from both ends (2 edges)
    e = np.array([[0, 1], [1, 2], [2, 3]])
    pairs = reference_partners(np.diff(build_csr(4, e)[0]))
    assert pairs[:, 1].reshape(4, 3).tolist() == [[3, 1, 2], [2, 0, 3], [1, 0, 3], [0, 1, 2]]
    cg = node_context_graph(ring_sequences(4, e, 6), pairs, 4)
    assert cg.tgt[cg.ptr[0]:cg.ptr[1]].tolist() == [3, 1, 2, 1, 2, 3]
    d = 2.5 / 1.5 - 1                          # cost(1, 2): an end node against a middle one
    for k, f in enumerate([d, 2 * d, 3 * d]):  # f_k(0, 1) = f_k(0, 2); f_k(0, 3) = f_k(1, 2) = 0
        p_same = 1 / (2 + 4 * math.exp(-f))
        probs = np.diff(np.concatenate([[0.0], cg.cum[k, :6].astype(np.float64)]))
        p_other = p_same * math.exp(-f)
        assert probs == pytest.approx([p_same, p_other, p_other, p_other, p_other, p_same], rel=1e-6)
        assert cg.avg[k] == pytest.approx(4 / 24)          # 4 nodes, 24 edge ends
        assert cg.gamma[k].tolist() == [2, 2, 2, 2]        # both copies of the distance-0 partner
    # layer 3: only the end nodes reach ring 3; two parallel edges of probability 1/2 = the average
    assert cg.has[3].tolist() == [True, False, False, True]
    assert cg.avg[3] == 0.5 and cg.gamma[3].tolist() == [0, 0, 0, 0]
    assert cg.p_up[3, 0] == pytest.approx(0.5)


# ---------------------------------------------------------------- embeddings
def small_graph_set(seed=0, graphs=40):
    """Disjoint union of random trees and cycles with chords (molecule-like sizes): (n, edges)."""
    rng = np.random.default_rng(seed)
    edges, n = [], 0
    for g in range(graphs):
        size = int(rng.integers(8, 20))
        G = nx.random_labeled_tree(size, seed=int(rng.integers(1 << 30)))
        if g % 2:
            G.add_edges_from(zip(rng.integers(0, size, 2), rng.integers(0, size, 2)))
        G.remove_edges_from(nx.selfloop_edges(G))
        edges += [(a + n, b + n) for a, b in G.edges()]
        n += size
    return n, np.array(edges)


def test_reference_embedding_carries_degree_linearly():
    n, e = small_graph_set()
    X = struc2vec(n, e, 16, variant="reference", seed=0, walks_per_node=5, epochs=3)
    deg = np.diff(build_csr(n, e)[0]).astype(np.float64)

    def r2(target):
        A = np.c_[X, np.ones(n)]
        fit = A @ np.linalg.lstsq(A, target, rcond=None)[0]
        return 1 - ((target - fit) ** 2).sum() / ((target - target.mean()) ** 2).sum()

    chance = np.mean([r2(np.random.default_rng(s).permutation(deg)) for s in range(5)])
    assert r2(deg) > 0.9 and chance < 0.1


def test_reference_variant_shape_determinism_and_validation():
    n, e = karate_mirrored()
    kw = dict(walks_per_node=2, walk_length=20, epochs=1, layers=3)
    X = struc2vec(n + 1, e, 6, variant="reference", seed=2, **kw)   # plus one isolated node
    assert X.shape == (n + 1, 6) and X.dtype == np.float32 and np.isfinite(X).all()
    np.testing.assert_array_equal(X, struc2vec(n + 1, e, 6, variant="reference", seed=2, **kw))
    assert not np.array_equal(X, struc2vec(n + 1, e, 6, variant="paper", seed=2, **kw))
    with pytest.raises(ValueError, match="variant"):
        struc2vec(n, e, 6, variant="original")
