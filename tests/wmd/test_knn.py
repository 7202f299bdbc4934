"""Word Mover's Distance kNN: vectorised RWMD, pruning = brute force, votes, k selection, workers."""
import numpy as np
import pytest

pytest.importorskip("ot")

from repset.wmd.distance import rwmd, synthetic_docs, wmd
from repset.wmd.knn import knn_predict, wmd_knn


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


def test_knn_input_validation():
    E = np.eye(4)
    with pytest.raises(ValueError, match="validation split"):
        wmd_knn([([0], [1])], [0], [([1], [1])], E, k_values=[1, 3])
    with pytest.raises(ValueError, match=r"test_docs\[1\]: empty document"):
        wmd_knn([([0], [1])], [0], [([1], [1]), ([], [])], E, k_values=[1])


def test_long_searches_report_progress(caplog):
    import logging

    from repset.wmd.knn import _Progress

    progress = _Progress(10, "WMD kNN, test", every=0.0)
    with caplog.at_level(logging.INFO, logger="repset.wmd.knn"):
        for _ in range(10):
            progress.advance(1)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 10 and lines[-1].startswith("WMD kNN, test: 10/10 queries") and "ETA 0 s" in lines[-1]


def test_queries_read_back_count_as_done_but_not_into_the_rate(caplog, monkeypatch):
    import logging

    from repset.wmd import knn

    clock = iter([0.0, 10.0])   # the search starts, then 5 new queries take 10 s after 90 read back
    monkeypatch.setattr(knn.time, "perf_counter", lambda: next(clock))
    progress = knn._Progress(100, "WMD kNN, test", every=0.0)
    with caplog.at_level(logging.INFO, logger="repset.wmd.knn"):
        progress.resume(90)
        progress.advance(5)
    assert [r.getMessage() for r in caplog.records] == ["WMD kNN, test: 95/100 queries, 10 s, ETA 10 s"]


def test_a_stopped_search_resumes_from_its_finished_blocks(tmp_path, monkeypatch):
    """With a blocks folder every block of 64 queries is saved as it finishes; a search of the same key
    reads them back instead of searching (only a missing block is searched again), with the same result;
    blocks of another key are not read."""
    import repset.wmd.knn as knn

    docs, labels, E = synthetic_docs(200, n_words=300, d=6, words_per_doc=6, n_classes=3, topic_words=40, seed=7)
    tr, va, te = slice(0, 60), slice(60, 130), slice(130, 200)     # 70 validation and 70 test queries: 2 blocks each
    args = (docs[tr], labels[tr], docs[te], E)
    kw = dict(k_values=range(1, 6), val_docs=docs[va], val_labels=labels[va], test_labels=labels[te])
    full = wmd_knn(*args, **kw, blocks_dir=tmp_path, blocks_key="store+split")
    files = sorted(p.name for p in tmp_path.iterdir())
    K = full["k"]
    assert files == sorted(["val-K5-0-64.npz", "val-K5-64-70.npz", f"test-K{K}-0-64.npz", f"test-K{K}-64-70.npz"])
    searched = []
    real = knn._neighbours
    monkeypatch.setattr(knn, "_neighbours", lambda *a, **k: searched.append(1) or real(*a, **k))
    (tmp_path / f"test-K{K}-0-64.npz").unlink()                  # as if stopped during the test phase's first block
    resumed = wmd_knn(*args, **kw, blocks_dir=tmp_path, blocks_key="store+split")
    assert len(searched) == 64
    for key in ("predictions", "test_neighbours", "test_distances", "val_errors", "k", "error", "n_exact"):
        assert np.array_equal(resumed[key], full[key]) if isinstance(full[key], np.ndarray) else resumed[key] == full[key]
    searched.clear()
    wmd_knn(*args, **kw, blocks_dir=tmp_path, blocks_key="another store")
    assert len(searched) == 140                                   # every query searched again
