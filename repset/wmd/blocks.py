"""Finished blocks of queries of a WMD kNN search, kept on disk so that a stopped search resumes where it
stopped (a dataset with one long split, such as 20NG's 8,644 queries, loses at most a block).

A block is ``BLOCK`` consecutive queries of one phase (validation or test) searched for their ``K`` nearest
pool documents: their neighbour indices ``(n, K)``, distances ``(n, K)`` and the count of exact WMDs
computed. Each block is one ``.npz`` file, written atomically, holding the ``key`` of the search's inputs
(the store, the split, the method); a file of another key is never read back.

A search key is the split's key, then the search's settings, joined by ``|`` (:func:`search_key`), so that a
block tells which split it belongs to (:func:`split_key_of`). A split's blocks live in ``split<k>.blocks/``
beside its finished record ``split<k>.json`` (:func:`blocks_folder`, :func:`split_record`).
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from repset.io import atomic_path

__all__ = ["BLOCK", "BlockStore", "search_key", "split_key_of", "read_key", "split_record_path", "blocks_folder",
           "split_record"]

#: queries per block (20NG: ~3 s each on one core, so a block is a few minutes of work)
BLOCK = 64


def search_key(split_key: str, *settings: object) -> str:
    """The key of one split's search: the split's key, then the search's ``settings`` (``|``-joined)."""
    return "|".join([str(split_key), *map(str, settings)])


def split_key_of(key: str) -> str:
    """The split key a :func:`search_key` starts with."""
    return key.partition("|")[0]


def _read(source: str | os.PathLike | bytes) -> tuple[str, np.ndarray, np.ndarray, int]:
    """``(key, neighbours, distances, n_exact)`` of a block file (its path or bytes); an unreadable one raises."""
    with np.load(io.BytesIO(source) if isinstance(source, bytes) else source, allow_pickle=False) as z:
        return str(z["key"]), z["neighbours"], z["distances"], int(z["n_exact"])


def read_key(source: str | os.PathLike | bytes) -> str:
    """The key a block (its path or bytes) was saved under; all its arrays are read (an unreadable block raises)."""
    return _read(source)[0]


def split_record_path(folder: str | os.PathLike, k: int) -> Path:
    """``folder/split<k>.json``: where split ``k``'s finished search is kept."""
    return Path(folder) / f"split{k}.json"


def blocks_folder(split_record: str | os.PathLike) -> Path:
    """``split<k>.blocks`` beside ``split<k>.json``: where that split's unfinished search keeps its blocks."""
    return Path(split_record).with_suffix(".blocks")


def split_record(blocks_folder: str | os.PathLike) -> Path:
    """``split<k>.json`` for ``split<k>.blocks``: the finished split those blocks were for."""
    return Path(blocks_folder).with_suffix(".json")


class BlockStore:
    """Per-block results of one search in ``folder``; ``key``: what they depend on."""

    def __init__(self, folder: str | os.PathLike, key: str) -> None:
        self.folder, self.key = Path(folder), str(key)

    def _path(self, phase: str, K: int, start: int, stop: int) -> Path:
        return self.folder / f"{phase}-K{K}-{start}-{stop}.npz"

    def load(self, phase: str, K: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, int] | None:
        """``(neighbours, distances, n_exact)`` of queries ``start:stop`` when saved with this key, else None."""
        path = self._path(phase, K, start, stop)
        if not path.is_file():
            return None
        key, neighbours, distances, n_exact = _read(path)
        return (neighbours, distances, n_exact) if key == self.key else None

    def save(self, phase: str, K: int, start: int, stop: int, neighbours: np.ndarray, distances: np.ndarray,
             n_exact: int) -> None:
        """Write queries ``start:stop``'s block (atomically: a stopped write leaves no file)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with atomic_path(self._path(phase, K, start, stop)) as tmp:
            with open(tmp, "wb") as f:
                np.savez(f, key=np.array(self.key), neighbours=neighbours, distances=distances,
                         n_exact=np.array(n_exact))
