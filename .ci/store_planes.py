"""Carry a set store that is over the GPU machine's 64 MiB working-tree limit (REDDIT-BINARY's struc2vec
store: 70.5 MB of float32) as four xz-compressed byte planes (55.7 MB), rebuilt byte-exact on the other side.

    python3 .ci/store_planes.py pack data/sets/REDDIT-BINARY.struc2vec.npz device_jobs/planes
    python3 .ci/store_planes.py unpack device_jobs/planes data/sets/REDDIT-BINARY.struc2vec.npz

Plane r holds bytes r, r+4, r+8, ... of the file: the float32 values' exponent bytes fall in one plane and
compress well, where xz on the whole file gains little. ``unpack`` checks the rebuilt file's sha256 against
the one ``pack`` wrote (planes/sha256) and writes it atomically; a mismatch is an error, nothing is left.
"""
from __future__ import annotations

import hashlib
import lzma
import os
import sys
from pathlib import Path

WIDTH = 4


def pack(store: Path, folder: Path) -> None:
    raw = store.read_bytes()
    folder.mkdir(parents=True, exist_ok=True)
    for r in range(WIDTH):
        (folder / f"plane{r}.xz").write_bytes(lzma.compress(raw[r::WIDTH], preset=6))
    (folder / "sha256").write_text(f"{hashlib.sha256(raw).hexdigest()} {len(raw)} {store.name}\n")


def unpack(folder: Path, store: Path) -> None:
    digest, size, name = (folder / "sha256").read_text().split()
    raw = bytearray(int(size))
    for r in range(WIDTH):
        raw[r::WIDTH] = lzma.decompress((folder / f"plane{r}.xz").read_bytes())
    got = hashlib.sha256(raw).hexdigest()
    if got != digest:
        raise SystemExit(f"{folder}: rebuilt {name} has sha256 {got}, expected {digest}")
    part = store.with_name(store.name + ".part")
    part.write_bytes(raw)
    os.replace(part, store)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("pack", "unpack"):
        raise SystemExit(__doc__)
    {"pack": pack, "unpack": unpack}[sys.argv[1]](Path(sys.argv[2]), Path(sys.argv[3]))
