"""Finished blocks of queries of a WMD kNN search, kept on disk so that a stopped search resumes where it
stopped (a dataset with one long split, such as 20NG's 8,644 queries, loses at most a block).

A block is ``BLOCK`` consecutive queries of one phase (validation or test) searched for their ``K`` nearest
pool documents: their neighbour indices ``(n, K)``, distances ``(n, K)`` and the count of exact WMDs
computed. Each block is one ``.npz`` file, written atomically, holding the ``key`` of the search's inputs
(the store, the split, the method); a file of another key is never read back.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from repset.io import atomic_path

__all__ = ["BLOCK", "BlockStore"]

#: queries per block (20NG: ~3 s each on one core, so a block is a few minutes of work)
BLOCK = 64


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
        with np.load(path, allow_pickle=False) as z:
            if str(z["key"]) != self.key:
                return None
            return z["neighbours"], z["distances"], int(z["n_exact"])

    def save(self, phase: str, K: int, start: int, stop: int, neighbours: np.ndarray, distances: np.ndarray,
             n_exact: int) -> None:
        """Write queries ``start:stop``'s block (atomically: a stopped write leaves no file)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with atomic_path(self._path(phase, K, start, stop)) as tmp:
            with open(tmp, "wb") as f:
                np.savez(f, key=np.array(self.key), neighbours=neighbours, distances=distances,
                         n_exact=np.array(n_exact))
