"""Loading WMD .mat files in both layouts, written here with scipy.io.savemat."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.io import savemat

from repset.datasets.store import load_store, save_store
from repset.datasets.wmd_mat import WmdMatError, load_wmd_mat

D = 3
VOCAB = {"goal": 1.0, "match": 2.0, "vote": 3.0, "party": 4.0, "team": 5.0}


def _vec(w: str) -> np.ndarray:
    return np.full(D, VOCAB[w]) + np.arange(D) / 10


def _cell(items) -> np.ndarray:
    out = np.empty((1, len(items)), dtype=object)
    for i, x in enumerate(items):
        out[0, i] = x
    return out


def _docs(docs: list[list[tuple[str, int]]]):
    X = _cell([np.stack([_vec(w) for w, _ in d], axis=1) if d else np.zeros((D, 0)) for d in docs])
    BOW = _cell([np.array([[c for _, c in d]], dtype=float) for d in docs])
    W = _cell([_cell([w for w, _ in d]) for d in docs])
    return X, BOW, W


DOCS = [[("goal", 2), ("match", 1)], [("vote", 1)], [], [("party", 3), ("vote", 1)], [("team", 1), ("goal", 1)],
        [("match", 2)]]
Y = np.array([[1, 2, 1, 2, 1, 1]], dtype=float)


def test_x_layout_with_five_style_splits(tmp_path):
    X, BOW, W = _docs(DOCS)
    TR = np.array([[1, 2, 3, 4], [3, 4, 5, 6]])
    TE = np.array([[5, 6], [1, 2]])
    savemat(tmp_path / "toy-emd_tr_te_split.mat", {"X": X, "Y": Y, "BOW_X": BOW, "words": W, "TR": TR, "TE": TE})
    coll = load_wmd_mat(tmp_path / "toy-emd_tr_te_split.mat", val_fraction=0.0)
    assert len(coll) == 5 and coll.meta["n_dropped_empty"] == 1 and coll.meta["layout"] == "X"
    assert coll.class_names == ["1", "2"] and coll.labels.tolist() == [0, 1, 1, 0, 0]
    # doc 3 (empty) is gone: 1-based TR [1,2,3,4] -> 0-based kept [0,1,2]
    assert coll.splits[0]["train"].tolist() == [0, 1, 2] and coll.splits[0]["test"].tolist() == [3, 4]
    assert coll.splits[1]["train"].tolist() == [2, 3, 4] and coll.splits[1]["test"].tolist() == [0, 1]
    assert coll.element_words(2) == ["party", "vote"] and coll.counts.tolist() == [2, 1, 1, 3, 1, 1, 1, 2]
    assert sorted(coll.vocab) == coll.vocab and len(coll.vocab) == 5  # factored: one vector per word
    np.testing.assert_allclose(coll.element_values()[0], _vec("goal"))
    np.testing.assert_allclose(coll.element_values()[-1], _vec("match"))


def test_xtr_xte_layout_single_split(tmp_path):
    Xtr, BOWtr, Wtr = _docs(DOCS[:4])
    Xte, BOWte, Wte = _docs(DOCS[4:])
    savemat(tmp_path / "r8-emd_tr_te3.mat", {
        "xtr": Xtr, "xte": Xte, "ytr": Y[:, :4], "yte": Y[:, 4:], "BOW_xtr": BOWtr, "BOW_xte": BOWte,
        "words_tr": Wtr, "words_te": Wte})
    coll = load_wmd_mat(tmp_path / "r8-emd_tr_te3.mat", val_fraction=0.0)
    assert coll.meta["layout"] == "xtr/xte" and len(coll.splits) == 1
    assert coll.splits[0]["train"].tolist() == [0, 1, 2] and coll.splits[0]["test"].tolist() == [3, 4]
    assert coll.element_words(3) == ["team", "goal"]


def test_the_words_key_and_keep_empty(tmp_path):
    X, BOW, W = _docs(DOCS)
    savemat(tmp_path / "recipe2-emd_tr_te_split.mat",
            {"X": X, "Y": Y, "BOW_X": BOW, "the_words": W, "TR": np.array([[1, 2, 3, 4]]), "TE": np.array([[5, 6]])})
    coll = load_wmd_mat(tmp_path / "recipe2-emd_tr_te_split.mat", drop_empty=False, val_fraction=0.5, seed=1)
    assert len(coll) == 6 and np.diff(coll.offsets)[2] == 0
    s = coll.splits[0]
    assert sorted(s["train"].tolist() + s["val"].tolist()) == [0, 1, 2, 3] and len(s["val"]) == 2


def test_without_words_keeps_raw_values(tmp_path):
    X, BOW, _ = _docs(DOCS[:2])
    savemat(tmp_path / "n.mat", {"X": X, "Y": Y[:, :2], "BOW_X": BOW, "TR": np.array([[1]]), "TE": np.array([[2]])})
    coll = load_wmd_mat(tmp_path / "n.mat")
    assert coll.values is not None and coll.values.shape == (3, D) and coll.vocab is None


def test_errors_name_file_and_document(tmp_path):
    savemat(tmp_path / "bad.mat", {"foo": np.zeros(3)})
    with pytest.raises(WmdMatError, match=r"bad\.mat: expected keys X/Y/TR/TE or xtr/xte/ytr/yte, found \['foo'\]"):
        load_wmd_mat(tmp_path / "bad.mat")
    X, BOW, W = _docs(DOCS[:2])
    BOW[0, 1] = np.array([[1.0, 1.0]])  # two counts for one word
    savemat(tmp_path / "bad2.mat", {"X": X, "Y": Y[:, :2], "BOW_X": BOW, "words": W, "TR": [[1]], "TE": [[2]]})
    with pytest.raises(WmdMatError, match=r"bad2\.mat: document 2 has 1 vectors, 2 counts, 1 words"):
        load_wmd_mat(tmp_path / "bad2.mat")
    X, BOW, W = _docs(DOCS[:2])
    savemat(tmp_path / "bad3.mat", {"X": X, "Y": Y[:, :2], "BOW_X": BOW, "words": W, "TR": [[1]], "TE": [[7]]})
    with pytest.raises(WmdMatError, match="outside 1..2"):
        load_wmd_mat(tmp_path / "bad3.mat")


def test_round_trip_through_store(tmp_path):
    X, BOW, W = _docs(DOCS)
    savemat(tmp_path / "t.mat", {"X": X, "Y": Y, "BOW_X": BOW, "words": W, "TR": [[1, 2, 3, 4]], "TE": [[5, 6]]})
    coll = load_wmd_mat(tmp_path / "t.mat")
    save_store(tmp_path / "t.npz", coll)
    ds, splits, meta = load_store(tmp_path / "t.npz")
    np.testing.assert_allclose(ds.values.numpy(), coll.element_values())
    assert meta["vocab"] == coll.vocab and meta["meta"]["layout"] == "X"
