"""Compact cached set datasets: one uncompressed ``.npz`` plus a JSON sidecar with provenance.

Arrays in the ``.npz``: ``offsets`` int64 (N+1), ``labels`` int64 (N), ``class_names`` str (C), the splits as
``split_<k>_<part>`` int64 index arrays, and the elements either as ``values`` float32 (total, d) or, for
word sets, factored as ``vectors`` float32 (V, d) + ``element_ids`` int32 (total) (``values = vectors[element_ids]``,
far smaller since words repeat), with optional ``vocab`` str (V) and ``counts`` int32 (total) for WMD and
interpretability. The sidecar ``<stem>.json`` holds the provenance (source sha256s, vectors, preprocessing).
"""
from __future__ import annotations

import json
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from repset.sets import SetDataset
from repset.io import atomic_path, write_json

from .download import sha256_file

__all__ = ["SetCollection", "save_store", "load_store", "load_collection", "read_sidecar", "sidecar_path",
           "STORE_FORMAT"]

STORE_FORMAT = "repset-sets/1"
_SPLIT_KEY = re.compile(r"^split_(\d+)_(\w+)$")


@dataclass
class SetCollection:
    """Ragged sets with labels, class names, splits and (optionally) per-element words and counts."""

    offsets: np.ndarray
    labels: np.ndarray
    class_names: list[str]
    splits: list[dict[str, np.ndarray]]
    values: np.ndarray | None = None
    vectors: np.ndarray | None = None
    element_ids: np.ndarray | None = None
    vocab: list[str] | None = None
    counts: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.offsets = np.asarray(self.offsets, dtype=np.int64)
        self.labels = np.asarray(self.labels, dtype=np.int64)
        if (self.values is None) == (self.vectors is None or self.element_ids is None):
            raise ValueError("give either values, or vectors and element_ids")
        if len(self.offsets) != len(self.labels) + 1 or self.offsets[0] != 0 or self.offsets[-1] != self.n_elements:
            raise ValueError("offsets must start at 0, end at the number of elements and have N + 1 entries")
        if self.counts is not None and len(self.counts) != self.n_elements:
            raise ValueError("counts must have one entry per element")
        if len(self.labels) and (self.labels.min() < 0 or self.labels.max() >= len(self.class_names)):
            raise ValueError("labels must be in [0, number of class names)")

    @property
    def n_elements(self) -> int:
        return len(self.values) if self.values is not None else len(self.element_ids)

    @property
    def dim(self) -> int:
        return (self.values if self.values is not None else self.vectors).shape[1]

    def __len__(self) -> int:
        return len(self.labels)

    def element_values(self) -> np.ndarray:
        """The (total, d) float32 element matrix (gathered from ``vectors`` when factored)."""
        if self.values is not None:
            return self.values
        return np.take(self.vectors, self.element_ids, axis=0)

    def element_words(self, i: int) -> list[str]:
        """Words of set ``i`` (needs ``vocab`` and ``element_ids``)."""
        if self.vocab is None or self.element_ids is None:
            raise ValueError("this collection has no vocabulary")
        return [self.vocab[j] for j in self.element_ids[self.offsets[i]:self.offsets[i + 1]]]

    def to_set_dataset(self) -> SetDataset:
        """The sets for training; factored stores keep their element ids (each distinct word of a batch
        is then computed once)."""
        ids = None if self.element_ids is None else torch.from_numpy(self.element_ids.astype(np.int64))
        return SetDataset(torch.from_numpy(np.ascontiguousarray(self.element_values(), dtype=np.float32)),
                          torch.from_numpy(self.offsets), torch.from_numpy(self.labels), ids)


def sidecar_path(path: str | os.PathLike) -> Path:
    """``x.npz`` -> ``x.json``."""
    return Path(path).with_suffix(".json")


def _arrays(coll: SetCollection) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {"offsets": coll.offsets, "labels": coll.labels,
                                     "class_names": np.asarray(coll.class_names, dtype=str)}
    if coll.values is not None:
        arrays["values"] = np.asarray(coll.values, dtype=np.float32)
    else:
        arrays["vectors"] = np.asarray(coll.vectors, dtype=np.float32)
        arrays["element_ids"] = np.asarray(coll.element_ids, dtype=np.int32)
    if coll.vocab is not None:
        arrays["vocab"] = np.asarray(coll.vocab, dtype=str)
    if coll.counts is not None:
        arrays["counts"] = np.asarray(coll.counts, dtype=np.int32)
    for k, split in enumerate(coll.splits):
        for part, idx in split.items():
            arrays[f"split_{k:03d}_{part}"] = np.asarray(idx, dtype=np.int64)
    return arrays


def save_store(path: str | os.PathLike, coll: SetCollection) -> Path:
    """Write ``coll`` as ``path`` (.npz, uncompressed) and its JSON sidecar, each atomically."""
    path = Path(path)
    if path.suffix != ".npz":
        raise ValueError(f"store path must end in .npz, got {path}")
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:  # a file object: np.savez would append '.npz' to a name
            np.savez(f, **_arrays(coll))
    record = {
        "format": STORE_FORMAT, "file": path.name, "sha256": sha256_file(path), "n_sets": len(coll),
        "n_elements": coll.n_elements, "dim": coll.dim, "n_classes": len(coll.class_names),
        "class_names": list(coll.class_names), "n_splits": len(coll.splits),
        "layout": "values" if coll.values is not None else "vectors+element_ids",
        "vocabulary_size": len(coll.vocab) if coll.vocab is not None else None, "meta": coll.meta,
    }
    write_json(sidecar_path(path), record)
    return path


def read_sidecar(path: str | os.PathLike) -> dict:
    """The sidecar record of the store ``path`` (its sha256, sizes, provenance) without loading the store."""
    path = Path(path)
    side = sidecar_path(path)
    if not path.is_file() or not side.is_file():
        raise FileNotFoundError(f"store {path} or its sidecar {side.name} is missing (an interrupted build?): "
                                f"{_rebuild(path)}")
    try:
        record = json.loads(side.read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{side}: not valid JSON ({err}): {_rebuild(path)}") from None
    if record.get("format") != STORE_FORMAT:
        raise ValueError(f"{side}: unknown store format {record.get('format')!r} (expected {STORE_FORMAT})")
    return record


def _rebuild(path: Path) -> str:
    return f"delete {path} and {sidecar_path(path).name} and rerun the job that builds them"


def load_collection(path: str | os.PathLike, verify: bool = True) -> tuple[SetCollection, dict]:
    """Read a store written by :func:`save_store`: the collection and the sidecar record. ``verify`` (the
    default) first checks the file's sha256 against the sidecar's, so a store replaced or changed after its
    sidecar was written is refused rather than trained on (15 ms for a 10 MB store like AMAZON's, the largest:
    3 % of its load)."""
    path = Path(path)
    record = read_sidecar(path)
    rebuild = _rebuild(path)
    if verify and (actual := sha256_file(path)) != record.get("sha256"):
        raise ValueError(f"{path}: sha256 {actual} differs from the sidecar {sidecar_path(path).name}'s "
                         f"{record.get('sha256')}: the store was replaced or changed after it was built; {rebuild}")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as err:
        raise ValueError(f"{path}: unreadable store ({type(err).__name__}: {err}): {rebuild}") from None
    layout = ("values",) if "values" in arrays or record.get("layout") == "values" else ("vectors", "element_ids")
    for key in ("offsets", "labels", "class_names", *layout):
        if key not in arrays:
            raise ValueError(f"{path}: no array {key!r} (it has {', '.join(sorted(arrays))}): {rebuild}")
    splits: dict[int, dict[str, np.ndarray]] = {}
    for key in [k for k in arrays if _SPLIT_KEY.match(k)]:
        k, part = _SPLIT_KEY.match(key).groups()
        splits.setdefault(int(k), {})[part] = arrays.pop(key)
    vocab = arrays.pop("vocab", None)
    try:
        coll = SetCollection(
            offsets=arrays["offsets"], labels=arrays["labels"], class_names=arrays["class_names"].tolist(),
            splits=[splits[k] for k in sorted(splits)], values=arrays.get("values"), vectors=arrays.get("vectors"),
            element_ids=arrays.get("element_ids"), vocab=vocab.tolist() if vocab is not None else None,
            counts=arrays.get("counts"), meta=record.get("meta", {}))
    except ValueError as err:
        raise ValueError(f"{path}: inconsistent store ({err}): {rebuild}") from None
    return coll, record


def load_store(path: str | os.PathLike, verify: bool = True) -> tuple[SetDataset, list[dict[str, np.ndarray]], dict]:
    """``(SetDataset, splits, meta)``; ``meta`` is the sidecar record plus ``vocab``, ``element_ids``, ``counts``
    (None where absent). ``verify`` (the default) checks the file's sha256 against the sidecar first."""
    coll, record = load_collection(path, verify)
    meta = dict(record, vocab=coll.vocab, element_ids=coll.element_ids, counts=coll.counts)
    return coll.to_set_dataset(), coll.splits, meta
