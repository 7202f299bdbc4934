"""Word Mover's Distance kNN: exactness (LP), lower bounds, pruning = brute force, votes, k selection."""
import numpy as np
import pytest

pytest.importorskip("ot")

from repset.wmd import docs_from_ragged, knn_predict, normalize_doc, rwmd, synthetic_docs, wcd, wmd, wmd_knn


def _random_doc(rng, n_words, max_len=6):
    n = int(rng.integers(1, max_len + 1))
    return rng.integers(0, n_words, n), rng.integers(1, 5, n).astype(float)


def _lp_wmd(doc_a, doc_b, E):
    """The transportation LP solved by cvxpy (HiGHS): min <T, C> s.t. T 1 = a, T^T 1 = b, T >= 0."""
    cp = pytest.importorskip("cvxpy")
    (ia, wa), (ib, wb) = normalize_doc(doc_a), normalize_doc(doc_b)
    C = np.linalg.norm(E[ia][:, None, :] - E[ib][None, :, :], axis=2)
    T = cp.Variable(C.shape, nonneg=True)
    problem = cp.Problem(cp.Minimize(cp.sum(cp.multiply(C, T))), [cp.sum(T, axis=1) == wa, cp.sum(T, axis=0) == wb])
    problem.solve(solver=cp.HIGHS if "HIGHS" in cp.installed_solvers() else None)
    return problem.value


def test_wmd_equals_the_transportation_lp():
    rng = np.random.default_rng(0)
    E = rng.standard_normal((12, 3))
    for _ in range(12):
        a, b = _random_doc(rng, 12), _random_doc(rng, 12)
        assert wmd(a, b, E) == pytest.approx(_lp_wmd(a, b, E), abs=1e-7)


def test_wmd_basic_properties():
    rng = np.random.default_rng(1)
    E = rng.standard_normal((20, 4))
    a, b = (np.array([1, 2, 3]), np.array([1.0, 2.0, 1.0])), (np.array([4, 5]), np.array([3.0, 1.0]))
    assert wmd(a, a, E) == pytest.approx(0.0, abs=1e-12)
    assert wmd(a, b, E) == pytest.approx(wmd(b, a, E), abs=1e-12)
    # repeated ids merge, counts only matter through their ratios
    assert wmd((np.array([1, 2, 1, 3]), np.array([0.5, 2.0, 0.5, 1.0])), b, E) == pytest.approx(wmd(a, b, E), abs=1e-12)
    assert wmd((a[0], 7 * a[1]), b, E) == pytest.approx(wmd(a, b, E), abs=1e-12)
    # one word against one word: the word distance
    assert wmd(([0], [2]), ([7], [1]), E) == pytest.approx(np.linalg.norm(E[0] - E[7]))


def test_lower_bounds_rwmd_and_wcd_never_exceed_wmd():
    rng = np.random.default_rng(2)
    for trial in range(150):
        n_words, d = int(rng.integers(3, 30)), int(rng.integers(1, 6))
        E = rng.standard_normal((n_words, d)) * rng.uniform(0.1, 10)
        a, b = _random_doc(rng, n_words, 10), _random_doc(rng, n_words, 10)
        exact = wmd(a, b, E)
        assert rwmd(a, b, E) <= exact + 1e-9 * (1 + exact)
        assert wcd(a, b, E) <= exact + 1e-9 * (1 + exact)


def test_vectorised_rwmd_equals_pairwise_rwmd():
    docs, labels, E = synthetic_docs(30, n_words=300, d=8, words_per_doc=12, n_classes=3, topic_words=40, seed=3)
    res = wmd_knn(docs[:25], labels[:25], docs[25:], E, k_values=[25], method="rwmd")
    for q, (row, dist) in enumerate(zip(res["test_neighbours"], res["test_distances"])):
        pairwise = np.array([rwmd(docs[25 + q], docs[j], E) for j in range(25)])
        assert np.allclose(dist, pairwise[row], atol=1e-10)
        assert np.all(np.diff(dist) >= 0)


def _problem(seed=4, n_train=40, n_val=10, n_test=12):
    docs, labels, E = synthetic_docs(n_train + n_val + n_test, n_words=400, d=10, words_per_doc=15, n_classes=3,
                                     topic_words=60, seed=seed)
    docs[5] = docs[2]                      # exact duplicates: equal distances, broken by the lower index
    docs[17] = (docs[2][0], 3 * docs[2][1])
    a, b = n_train, n_train + n_val
    return (docs[:a], labels[:a]), (docs[a:b], labels[a:b]), (docs[b:], labels[b:]), E


def test_pruned_knn_finds_the_brute_force_neighbours():
    (tr, ytr), (va, yva), (te, yte), E = _problem()
    te = te + [tr[2]]                       # a query with three tied nearest neighbours (2, 5, 17) at distance 0
    yte = np.append(yte, ytr[2])
    kw = dict(val_docs=va, val_labels=yva, test_labels=yte, k_values=[5], final_pool="train")
    pruned, brute = wmd_knn(tr, ytr, te, E, **kw), wmd_knn(tr, ytr, te, E, prune=False, **kw)
    assert np.array_equal(pruned["test_neighbours"], brute["test_neighbours"])
    assert np.allclose(pruned["test_distances"], brute["test_distances"], atol=1e-12)
    assert np.array_equal(pruned["predictions"], brute["predictions"])
    assert list(pruned["test_neighbours"][-1, :3]) == [2, 5, 17]
    assert brute["fraction_exact"] == 1.0 and pruned["fraction_exact"] < 1.0
    assert pruned["n_exact"] < brute["n_exact"] == brute["n_pairs"]
    # and against a fully independent computation
    for q, doc in enumerate(te[:4]):
        exact = np.array([wmd(doc, t, E) for t in tr])
        order = np.lexsort((np.arange(len(tr)), np.round(exact, 9)))[:5]
        assert np.array_equal(pruned["test_neighbours"][q], order)


def test_k_selection_on_validation_and_final_pool():
    (tr, ytr), (va, yva), (te, yte), E = _problem(seed=5)
    res = wmd_knn(tr, ytr, te, E, k_values=range(1, 20), val_docs=va, val_labels=yva, test_labels=yte)
    assert sorted(res["val_errors"]) == list(range(1, 20))
    best = min(res["val_errors"].values())
    assert res["k"] == min(k for k, e in res["val_errors"].items() if e == best)
    assert res["test_neighbours"].shape == (len(te), res["k"])
    assert res["test_neighbours"].max() < len(tr) + len(va)
    assert res["error"] == pytest.approx(np.mean(res["predictions"] != yte))
    assert res["runtime_seconds"] > 0 and set(res["pruning"]) == {"val", "test"}
    assert 0 < res["fraction_exact"] <= 1 and res["fraction_pruned"] == pytest.approx(1 - res["fraction_exact"])
    # string labels are returned as given
    names = np.array(["a", "b", "c"])
    res_s = wmd_knn(tr, names[ytr], te, E, val_docs=va, val_labels=names[yva])
    assert np.array_equal(res_s["predictions"], names[res["predictions"]]) and res_s["k"] == res["k"]


def test_votes_and_tie_breaking():
    labels = np.array([[0, 1, 2, 1, 2]])
    # Kusner's fall-back: k=5 plurality count 2 < 2.5 -> k=3: count 1 < 1.5 -> k=1: label 0
    assert knn_predict(labels, 5, "kusner").tolist() == [0]
    # plain plurality: 1 and 2 tie, 1 ranks first
    assert knn_predict(labels, 5, "plurality").tolist() == [1]
    assert knn_predict(np.array([[2, 1, 1, 2]]), 4, "kusner").tolist() == [1]      # tie at >= k/2: smallest label
    assert knn_predict(np.array([[2, 1, 1, 2]]), 4, "plurality").tolist() == [2]   # tie: nearest first
    assert knn_predict(np.array([[3, 0, 0]]), 3, "kusner").tolist() == [0]
    assert knn_predict(np.array([[3, 0, 0]]), 1, "kusner").tolist() == [3]
    with pytest.raises(ValueError, match="k="):
        knn_predict(labels, 6)


def test_methods_and_parallel_workers_agree():
    (tr, ytr), (va, yva), (te, yte), E = _problem(seed=6, n_test=8)
    kw = dict(val_docs=va, val_labels=yva, k_values=[1, 3, 5])
    serial, parallel = wmd_knn(tr, ytr, te, E, **kw), wmd_knn(tr, ytr, te, E, n_jobs=2, **kw)
    assert np.array_equal(serial["test_neighbours"], parallel["test_neighbours"])
    assert serial["n_exact"] == parallel["n_exact"]
    for method in ("rwmd", "wcd"):
        res = wmd_knn(tr, ytr, te, E, method=method, **kw)
        assert res["n_exact"] == 0 and res["predictions"].shape == (len(te),)


def test_input_validation_and_ragged_helper():
    E = np.eye(4)
    with pytest.raises(ValueError, match="empty document"):
        wmd(([1], [0.0]), ([2], [1.0]), E)
    with pytest.raises(ValueError, match=r"word ids must lie in \[0, 4\)"):
        wmd(([9], [1.0]), ([2], [1.0]), E)
    with pytest.raises(ValueError, match="validation split"):
        wmd_knn([([0], [1])], [0], [([1], [1])], E, k_values=[1, 3])
    with pytest.raises(ValueError, match=r"test_docs\[1\]: empty document"):
        wmd_knn([([0], [1])], [0], [([1], [1]), ([], [])], E, k_values=[1])
    docs = docs_from_ragged(np.array([0, 1, 2, 3, 1]), np.array([0, 2, 5]), np.array([1, 2, 1, 1, 3]))
    assert [d[0].tolist() for d in docs] == [[0, 1], [2, 3, 1]] and docs[1][1].tolist() == [1, 1, 3]
    assert docs_from_ragged(np.array([0, 1, 2]), np.array([0, 1, 3]), index=[1])[0][1].tolist() == [1.0, 1.0]
