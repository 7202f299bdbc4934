"""Tests of the numba skip-gram kernels (repset.embed.skipgram.kernel): gensim's floats, bit for bit."""
from __future__ import annotations

import copy

import numpy as np
import pytest

pytest.importorskip("gensim")
pytest.importorskip("numba")

from repset.embed.skipgram import EngineUnsupported, check_numba, new_model, train  # noqa: E402


def corpus(path, rng, odd: bool) -> tuple[np.ndarray, int]:
    """A walk corpus over 300 node ids with Zipf-like frequencies: lines of 80, or odd lines (empty, long, with
    tokens that are no keys, no final newline). Returns (token counts per node, tokens in the file)."""
    pool = rng.zipf(1.4, 20000) % 300
    lines = []
    for i in range(60 if odd else 400):
        length = int(rng.choice([0, 1, 7, 80, 12000])) if odd else 80
        words = [str(w) for w in rng.choice(pool, length)] + (["007", "x"] if odd and i % 9 == 0 else [])
        lines.append(("  " if odd and i % 7 == 0 else "") + " ".join(words))
    path.write_text("\n".join(lines) + ("" if odd else "\n"))
    counts = np.zeros(300, np.int64)
    for w in path.read_text().split():
        if w.isdigit() and w[0] != "0":
            counts[int(w)] += 1
    return counts, len(path.read_text().split())


def both(model, path, words, epochs, start, end):
    theirs, ours = model, copy.deepcopy(model)
    train(theirs, path, words, epochs, start, end, engine="gensim")
    train(ours, path, words, epochs, start, end, engine="numba")
    return theirs, ours


def require_numba_engine(model):
    try:
        check_numba(model)
    except EngineUnsupported as e:                     # another BLAS or gensim: nothing to compare bit for bit
        pytest.skip(str(e))


@pytest.mark.parametrize("odd", [False, True])
@pytest.mark.parametrize("hs,negative", [(True, 5), (False, 5), (True, 0)])
def test_epochs_equal_gensims_bit_for_bit(tmp_path, odd, hs, negative):
    path = tmp_path / "walks.txt"
    counts, words = corpus(path, np.random.default_rng(int(odd) * 10 + negative + hs), odd)
    model = new_model(counts, dim=20, window=10, epochs=1, hs=hs, negative=negative, seed=3, workers=1)
    require_numba_engine(model)
    for start, end in ((0.025, 0.02), (0.02, 0.0001)):        # two chunks in a row, as the resumable build
        before = model.wv.vectors.copy()
        theirs, ours = both(model, path, words, 1, start, end)
        np.testing.assert_array_equal(ours.wv.vectors, theirs.wv.vectors)
        if hs:
            np.testing.assert_array_equal(ours.syn1, theirs.syn1)
        if negative:
            np.testing.assert_array_equal(ours.syn1neg, theirs.syn1neg)
        assert ours.random.randint(0, 2 ** 31) == theirs.random.randint(0, 2 ** 31)   # the same draws were taken
        assert not np.array_equal(ours.wv.vectors, before)
        model = theirs


def test_several_epochs_in_one_call_equal_gensims(tmp_path):
    path = tmp_path / "walks.txt"
    counts, words = corpus(path, np.random.default_rng(1), False)
    model = new_model(counts, dim=8, window=5, epochs=3, hs=True, negative=2, seed=0, workers=1)
    require_numba_engine(model)
    theirs, ours = both(model, path, words, 3, None, None)
    np.testing.assert_array_equal(ours.wv.vectors, theirs.wv.vectors)
    assert ours.train_count == theirs.train_count == 1


def test_saturated_dots_and_repeated_negatives_equal_gensims(tmp_path):
    """Ten words, 12 negative draws per pair and a rate of 1: most pairs draw a word twice (its row moved between the
    draws) and many dot products leave (-6, 6), where both the update and the skip must match gensim's."""
    rng = np.random.default_rng(7)
    path = tmp_path / "walks.txt"
    path.write_text("\n".join(" ".join(str(w) for w in rng.integers(0, 10, 40)) for _ in range(50)) + "\n")
    counts = np.bincount([int(w) for w in path.read_text().split()], minlength=10)
    model = new_model(counts, dim=20, window=4, epochs=1, hs=True, negative=12, seed=5, workers=1)
    require_numba_engine(model)
    theirs, ours = both(model, path, int(counts.sum()), 2, 1.0, 0.5)
    for name in ("syn1", "syn1neg"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name))
    np.testing.assert_array_equal(ours.wv.vectors, theirs.wv.vectors)
    assert np.abs(ours.wv.vectors @ ours.syn1neg.T).max() >= 6                  # the saturated range was reached
