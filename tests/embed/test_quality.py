"""Nearest neighbours, role classes and the neighbour agreement of node embeddings (repset.embed.quality)."""
import networkx as nx
import numpy as np
import pytest
from scipy.spatial.distance import cdist

from repset.embed.quality import nearest_neighbours, neighbour_agreement, role_classes
from repset.embed.struc2vec_dist import build_csr


def test_nearest_neighbours_equal_scipy_and_exclude_the_query():
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(300, 7))
    queries = np.array([0, 5, 299, 17, 5])
    dist = cdist(emb[queries], emb)
    dist[np.arange(len(queries)), queries] = np.inf
    for chunk, max_entries in ((1, 2**24), (2, 2**24), (128, 2**24), (128, 900)):   # chunking changes nothing
        got = nearest_neighbours(emb, queries, chunk=chunk, max_entries=max_entries)
        assert got.tolist() == dist.argmin(axis=1).tolist()


def test_nearest_neighbour_of_a_duplicate_is_its_copy():
    emb = np.array([[0.0, 0.0], [5.0, 5.0], [5.0, 5.0], [0.1, 0.0]])
    assert nearest_neighbours(emb, np.arange(4)).tolist() == [3, 2, 1, 0]


def test_role_classes_of_a_path_and_a_star():
    # path 0-1-2-3-4 and, disjoint, star 5-(6, 7, 8)
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [5, 6], [5, 7], [5, 8]])
    csr = build_csr(9, edges)
    deg = role_classes(*csr, 0)
    ring1 = role_classes(*csr, 1)
    same = lambda c, a, b: c[a] == c[b]
    assert same(deg, 0, 4) and same(deg, 1, 2) and same(deg, 0, 6) and not same(deg, 0, 1)
    # degree 2 with neighbours (1, 2) vs (2, 2); leaves of the path (neighbour degree 2) vs of the star (3)
    assert same(ring1, 1, 3) and not same(ring1, 1, 2) and not same(ring1, 0, 6) and same(ring1, 6, 8)
    with pytest.raises(ValueError, match="hops"):
        role_classes(*csr, 2)


def test_role_classes_agree_with_networkx_on_a_random_graph():
    g = nx.gnm_random_graph(200, 500, seed=0)
    ring1 = role_classes(*build_csr(200, np.array(g.edges)), 1)
    key = {u: (g.degree(u), tuple(sorted(g.degree(v) for v in g[u]))) for u in g}
    for u in range(0, 200, 7):
        for v in range(200):
            assert (ring1[u] == ring1[v]) == (key[u] == key[v])


def test_agreement_is_one_for_a_class_embedding_and_chance_is_exact():
    classes = np.array([1, 1, 2, 2, 2])
    emb = np.stack([classes, np.arange(5) * 1e-3], axis=1).astype(float)   # equal class = nearby
    result = neighbour_agreement(emb, classes)
    assert result["queries"] == 5 and result["agreement"] == 1.0
    assert result["chance"] == pytest.approx((2 * 1 / 4 + 3 * 2 / 4) / 5)
    assert result["lift"] == pytest.approx(1.0 / result["chance"])


def test_agreement_of_a_random_embedding_is_near_chance_and_sampling_is_seeded():
    rng = np.random.default_rng(1)
    classes = rng.integers(1, 4, size=5000)
    emb = rng.normal(size=(5000, 4))
    a = neighbour_agreement(emb, classes, n_queries=1000, seed=3)
    assert a == neighbour_agreement(emb, classes, n_queries=1000, seed=3) and a["queries"] == 1000
    assert abs(a["agreement"] - a["chance"]) < 0.06   # 4 sigma of a 1000-draw share


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="classes"):
        neighbour_agreement(np.zeros((3, 2)), np.array([1, 2]))
    with pytest.raises(ValueError, match="at least 2"):
        nearest_neighbours(np.zeros((1, 2)), np.array([0]))
