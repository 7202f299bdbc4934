"""Loader for the WMD authors' ``<name>-emd_tr_te_split.mat`` files (Kusner et al. 2015), as the RepSet code used.

Two layouts exist:

* ``X`` (cell, per document a d x n_words matrix), ``Y``, ``BOW_X`` (counts), ``words`` (or ``the_words``),
  ``TR``/``TE`` (one row per split, 1-based indices): bbcsport, twitter, recipe, classic, amazon;
* ``xtr``/``xte``, ``ytr``/``yte``, ``BOW_xtr``/``BOW_xte``, ``words_tr``/``words_te``: one predefined split
  (ohsumed, r8, 20ng); documents are numbered train first, then test.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .registry import carve_validation
from .store import SetCollection

__all__ = ["load_wmd_mat", "WmdMatError"]


class WmdMatError(ValueError):
    """The .mat file does not have a known WMD layout."""


def _cells(a) -> list:
    return list(np.asarray(a, dtype=object).ravel()) if a is not None else []


def _word(x) -> str:
    """A MATLAB char cell entry as a str ('' for an empty entry)."""
    if isinstance(x, str):
        return x
    arr = np.asarray(x)
    if arr.size == 0:
        return ""
    if arr.dtype.kind == "U":
        return "".join(arr.ravel().tolist())
    if arr.dtype == object:
        return _word(arr.ravel()[0])
    return str(arr.ravel()[0])


def _doc_words(cell) -> list[str]:
    arr = np.asarray(cell, dtype=object) if not isinstance(cell, str) else np.array([cell], dtype=object)
    if arr.dtype.kind == "U":  # a single word stored as a char array
        return [_word(arr)]
    return [_word(x) for x in arr.ravel()]


def _matrix(cell, d: int | None) -> np.ndarray:
    m = np.asarray(cell, dtype=np.float64)
    if m.size == 0:
        return np.zeros((d or 0, 0))
    if m.ndim == 1:
        m = m[:, None]
    return m


def load_wmd_mat(path: str | os.PathLike, drop_empty: bool = True, val_fraction: float = 0.1,
                 seed: int = 0) -> SetCollection:
    """Read a WMD ``.mat`` into a :class:`SetCollection` (elements = the file's word vectors, with words/counts).

    Splits come from ``TR``/``TE`` (converted to 0-based) or, in the xtr/xte layout, train-then-test; a
    stratified validation part is carved from each train part. ``drop_empty`` drops documents without words.
    """
    from scipy.io import loadmat

    path = Path(path)
    try:
        mat = loadmat(path, squeeze_me=False, chars_as_strings=True)
    except NotImplementedError as e:  # MATLAB v7.3 is HDF5
        raise WmdMatError(f"{path}: MATLAB v7.3 (HDF5) files are not supported; re-save with -v7") from e
    keys = {k for k in mat if not k.startswith("__")}
    if "X" in keys:
        layout = "X"
        X, Y, BOW = _cells(mat["X"]), np.asarray(mat["Y"]).ravel(), _cells(mat.get("BOW_X"))
        W = _cells(mat.get("words", mat.get("the_words")))
        n_tr = None
    elif {"xtr", "xte"} <= keys:
        layout = "xtr/xte"
        X = _cells(mat["xtr"]) + _cells(mat["xte"])
        n_tr = len(_cells(mat["xtr"]))
        Y = np.concatenate([np.asarray(mat["ytr"]).ravel(), np.asarray(mat["yte"]).ravel()])
        BOW = _cells(mat.get("BOW_xtr")) + _cells(mat.get("BOW_xte"))
        W = _cells(mat.get("words_tr")) + _cells(mat.get("words_te"))
    else:
        raise WmdMatError(f"{path}: expected keys X/Y/TR/TE or xtr/xte/ytr/yte, found {sorted(keys)}")
    n = len(X)
    if len(Y) != n or (BOW and len(BOW) != n) or (W and len(W) != n):
        raise WmdMatError(f"{path}: {n} documents but {len(Y)} labels, {len(BOW)} BOW entries, {len(W)} word lists")

    d = next((np.asarray(x).shape[0] for x in X if np.asarray(x).size), None)
    mats, words, counts = [], [], []
    for i in range(n):
        m = _matrix(X[i], d)
        if m.shape[0] != d and m.shape[1] > 0:
            raise WmdMatError(f"{path}: document {i + 1} has vectors of dimension {m.shape[0]}, expected {d}")
        k = m.shape[1]
        c = np.asarray(BOW[i], dtype=np.float64).ravel() if BOW else np.ones(k)
        w = _doc_words(W[i]) if W else [""] * k
        if len(c) != k or len(w) != k:
            raise WmdMatError(f"{path}: document {i + 1} has {k} vectors, {len(c)} counts, {len(w)} words")
        mats.append(m.T.astype(np.float32))
        counts.append(c)
        words.append(w)

    if np.all(np.isfinite(Y)) and np.all(Y == np.round(Y)):
        Y = Y.astype(np.int64)
    keep = np.array([len(m) > 0 for m in mats]) if drop_empty else np.ones(n, dtype=bool)
    new_index = np.cumsum(keep) - 1
    classes, labels = np.unique(Y, return_inverse=True)

    if "TR" in keys and "TE" in keys:
        TR, TE = np.atleast_2d(mat["TR"]).astype(np.int64) - 1, np.atleast_2d(mat["TE"]).astype(np.int64) - 1
        raw_splits = list(zip(TR, TE))
    elif n_tr is not None:
        raw_splits = [(np.arange(n_tr), np.arange(n_tr, n))]
    else:
        raise WmdMatError(f"{path}: no TR/TE split indices")
    splits = []
    for k, (tr, te) in enumerate(raw_splits):
        if tr.min(initial=0) < 0 or max(tr.max(initial=0), te.max(initial=0)) >= n:
            raise WmdMatError(f"{path}: split {k + 1} has indices outside 1..{n}")
        tr, te = new_index[tr[keep[tr]]], new_index[te[keep[te]]]
        train, val = carve_validation(tr, labels[keep], val_fraction, seed + k)
        splits.append({"train": train, "val": val, "test": np.sort(te)})

    kept = np.flatnonzero(keep)
    lengths = np.array([len(mats[i]) for i in kept], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    all_words = [w for i in kept for w in words[i]]
    values = np.concatenate([mats[i] for i in kept]) if len(kept) else np.zeros((0, d or 0), np.float32)
    meta = {"source": path.name, "layout": layout, "n_docs_file": n, "n_dropped_empty": int(n - keep.sum()),
            "class_values": [str(c) for c in classes.tolist()], "dim": int(d or 0)}
    coll_kw: dict = {"counts": np.concatenate([counts[i] for i in kept]).astype(np.int32) if len(kept) else None}
    if W and all(all_words):
        vocab, first, ids = np.unique(np.asarray(all_words, dtype=str), return_index=True, return_inverse=True)
        coll_kw.update(vectors=values[first], element_ids=ids.astype(np.int32), vocab=vocab.tolist())
        if not np.allclose(values, values[first][ids], atol=1e-6):
            meta["inconsistent_word_vectors"] = True  # same word, different vectors: keep raw values
            coll_kw = {"counts": coll_kw["counts"], "values": values}
    else:
        coll_kw["values"] = values
    return SetCollection(offsets=offsets, labels=labels[keep], class_names=[str(c) for c in classes.tolist()],
                         splits=splits, meta=meta, **coll_kw)
