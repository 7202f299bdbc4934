"""Datasets of the RepSet benchmark: registry, verified downloads, parsers, word vectors, splits, cached stores.

Typical use (a thin Snakemake script can call these)::

    coll = build_text_dataset("reuters", "glove-6b-50d", "/path/to/mirror", out="cache/reuters.glove.npz")
    graphs = build_graph_collection("MUTAG", "/path/to/mirror")
    dataset, splits, meta = load_store("cache/reuters.glove.npz")
"""
from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path

import numpy as np

from .download import fetch, local_paths, resolve_mirror, sha256_file
from .graphs import GraphCollection, build_graph_collection, graph_cv_splits
from .registry import (STOPWORDS, DatasetSpec, dataset_names, get_spec, predefined_split, random_splits)
from .store import SetCollection, load_collection, load_store, save_store
from .text import bag_of_words, load_stopwords, parse, tokenize
from .vectors import VECTOR_NAMES, load_vectors, vectors_provenance
from .wmd_mat import load_wmd_mat

__all__ = ["build_text_dataset", "build_graph_collection", "graph_cv_splits", "GraphCollection", "SetCollection",
           "DatasetSpec", "get_spec", "dataset_names", "fetch", "load_store", "load_collection", "save_store",
           "load_vectors", "load_wmd_mat", "VECTOR_NAMES", "resolve_mirror"]


def _remap(split: dict[str, np.ndarray], old_to_new: np.ndarray) -> dict[str, np.ndarray]:
    """Re-index a split after documents were dropped (``old_to_new`` is -1 for dropped ones)."""
    out = {}
    for part, idx in split.items():
        if idx.ndim == 0:
            out[part] = idx
            continue
        new = old_to_new[idx]
        out[part] = np.sort(new[new >= 0])
    return out


def build_text_dataset(name: str, vectors="glove-6b-50d", raw_dir_or_mirror: str | os.PathLike | None = None,
                       cache_dir: str | os.PathLike | None = None, *, seed: int = 0, val_fraction: float = 0.1,
                       n_splits: int | None = None, tokenizer: str = "letters", lowercase: bool = True,
                       remove_stopwords: bool | None = None, parser_options: dict | None = None,
                       w2v_split: int = 0, w2v_options: dict | None = None,
                       wmd_mat: str | os.PathLike | None = None, alt_source: bool = False, verify: bool = True,
                       out: str | os.PathLike | None = None, **fetch_kw) -> SetCollection:
    """Parse, preprocess (WMD-style), embed and split text dataset ``name``; optionally save it to ``out`` (.npz).

    ``vectors``: a name from :data:`VECTOR_NAMES` or a gensim ``KeyedVectors``. With ``corpus-word2vec`` the
    vectors are trained on the training part of split ``w2v_split`` only, and only that split is kept (other
    splits would see their test documents in the embedding's training data). ``wmd_mat``: read the WMD
    authors' .mat instead of the raw files (the only source of RECIPE). Raw files come from
    ``raw_dir_or_mirror`` (checked in place) or, with ``cache_dir``, are fetched into the cache first.
    ``remove_stopwords`` and ``parser_options`` default to the registry's (twitter keeps stop words; 20NG strips
    mail headers). ``alt_source=True`` reads the registry's alternative archive instead (the multi-label
    ``ohsumed-first-20000-docs.tar.gz``, the official 20NG archive); unpinned ones need ``allow_unverified=True``.
    """
    spec = get_spec(name)
    if spec.kind != "text":
        raise ValueError(f"{spec.name} is not a text dataset")
    if wmd_mat is not None:
        coll = load_wmd_mat(wmd_mat, val_fraction=val_fraction, seed=seed)
        coll.meta.update(dataset=spec.name, vectors="wmd-mat (word2vec-google-news-300)",
                         wmd_mat_sha256=sha256_file(wmd_mat))
        if out is not None:
            save_store(out, coll)
        return coll
    if not spec.available:
        raise ValueError(f"{spec.display} has no public raw files ({spec.notes}); pass wmd_mat= the WMD authors' "
                         f"{spec.wmd_mat}")
    sources = tuple(s for s in spec.alt_sources if not s.path.endswith(".mat")) if alt_source else spec.sources
    if not sources:
        raise ValueError(f"{spec.display} has no alternative raw source")
    paths = local_paths(sources, raw_dir_or_mirror, cache_dir, verify=verify, **fetch_kw)
    (stop_path,) = local_paths((STOPWORDS,), raw_dir_or_mirror, cache_dir, verify=verify, **fetch_kw)
    remove_stopwords = spec.remove_stopwords if remove_stopwords is None else remove_stopwords
    stopwords = load_stopwords(stop_path) if remove_stopwords else frozenset()
    parser_options = {**dict(spec.parser_options), **(parser_options or {})}
    corpus = parse(spec.parser, paths, **parser_options)
    class_names = sorted(set(corpus.labels))
    all_labels = np.searchsorted(np.array(class_names), np.array(corpus.labels)).astype(np.int64)
    parts = np.array(corpus.parts)
    n_splits = spec.n_splits if n_splits is None else n_splits

    def make_splits(kept: np.ndarray) -> list[dict[str, np.ndarray]]:
        if spec.split == "predefined":
            return predefined_split(parts[kept], all_labels[kept], val_fraction, seed)
        return random_splits(all_labels[kept], n_splits, 0.3, val_fraction, seed)

    if isinstance(vectors, str) and vectors == "corpus-word2vec":
        pre = bag_of_words(corpus.texts, stopwords, None, lowercase, tokenizer)
        split = make_splits(pre.kept)[w2v_split]
        train_docs = pre.kept[split["train"]]
        kv = load_vectors("corpus-word2vec", corpus=(tokenize(corpus.texts[i], lowercase, tokenizer)
                                                     for i in train_docs), seed=seed, **(w2v_options or {}))
        vec_name = "corpus-word2vec"
        bow = bag_of_words(corpus.texts, stopwords, kv.key_to_index, lowercase, tokenizer)
        old_to_new = np.full(len(corpus), -1)
        old_to_new[bow.kept] = np.arange(len(bow.kept))
        splits = [_remap({p: pre.kept[i] if i.ndim else i for p, i in split.items()}, old_to_new)]
        split_note = f"only split {w2v_split}: corpus-word2vec trained on its training part"
    else:
        kv = load_vectors(vectors) if isinstance(vectors, str) else vectors
        vec_name = vectors if isinstance(vectors, str) else getattr(vectors, "name", type(vectors).__name__)
        bow = bag_of_words(corpus.texts, stopwords, kv.key_to_index, lowercase, tokenizer)
        splits = make_splits(bow.kept)
        split_note = ""
    rows = np.fromiter((kv.key_to_index[w] for w in bow.vocab), dtype=np.int64, count=len(bow.vocab))
    w2v_prov = {"seed": seed, "w2v_split": w2v_split, **(w2v_options or {})} if vec_name == "corpus-word2vec" else {}
    dropped = np.setdiff1d(np.arange(len(corpus)), bow.kept)
    meta = {
        "dataset": spec.name, "display": spec.display, "kind": "text", "vectors": vec_name, "dim": int(kv.vector_size),
        "vectors_provenance": vectors_provenance(vec_name, **w2v_prov),
        "sources": {s.path: {"url": s.url, "sha256": s.sha256 or sha256_file(p)} for s, p in zip(sources, paths)},
        "stopwords": {"path": STOPWORDS.path, "sha256": STOPWORDS.sha256, "n": len(stopwords)},
        "parser": spec.parser, "parser_options": parser_options, "parser_meta": corpus.meta,
        "preprocessing": {"tokenizer": tokenizer, "lowercase": lowercase,
                          "stopwords": "SMART" if remove_stopwords else "kept",
                          "vocabulary_filter": vec_name, "drop_empty": True},
        "split": {"protocol": spec.split, "n_splits": len(splits), "seed": seed, "val_fraction": val_fraction,
                  "test_fraction": 0.3 if spec.split != "predefined" else None, "note": split_note},
        "n_raw_docs": len(corpus), "n_dropped_empty": int(len(dropped)),
        "dropped_doc_ids": [corpus.ids[i] for i in dropped[:200]],
        "expected": asdict(spec.expected) if spec.expected else None, "paper": asdict(spec.paper),
    }
    coll = SetCollection(offsets=bow.offsets, labels=all_labels[bow.kept], class_names=class_names, splits=splits,
                         vectors=np.asarray(kv.vectors[rows], dtype=np.float32), element_ids=bow.word_ids,
                         vocab=bow.vocab, counts=bow.counts, meta=meta)
    if out is not None:
        save_store(out, coll)
    return coll


def default_store_path(cache_dir: str | os.PathLike, name: str, vectors: str) -> Path:
    """Conventional store location ``<cache_dir>/sets/<name>.<vectors>.npz``."""
    return Path(cache_dir) / "sets" / f"{get_spec(name).name}.{vectors}.npz"
