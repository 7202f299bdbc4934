"""Word Mover's Distance: exactness (LP), basic properties, lower bounds, document input."""
import numpy as np
import pytest

pytest.importorskip("ot")

from repset.wmd.distance import docs_from_ragged, normalize_doc, rwmd, wcd, wmd


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


def test_input_validation_and_ragged_helper():
    E = np.eye(4)
    with pytest.raises(ValueError, match="empty document"):
        wmd(([1], [0.0]), ([2], [1.0]), E)
    with pytest.raises(ValueError, match=r"word ids must lie in \[0, 4\)"):
        wmd(([9], [1.0]), ([2], [1.0]), E)
    docs = docs_from_ragged(np.array([0, 1, 2, 3, 1]), np.array([0, 2, 5]), np.array([1, 2, 1, 1, 3]))
    assert [d[0].tolist() for d in docs] == [[0, 1], [2, 3, 1]] and docs[1][1].tolist() == [1, 1, 3]
    assert docs_from_ragged(np.array([0, 1, 2]), np.array([0, 1, 3]), index=[1])[0][1].tolist() == [1.0, 1.0]
