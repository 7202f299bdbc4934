"""A struc2vec build that survives being stopped: walks and skip-gram checkpointed in a folder.

The walks are written one file per walk round (``walks-<r>.txt`` with its token counts), each renamed into place
when complete; the skip-gram then trains chunk by chunk, one chunk per (epoch, round), each chunk a
``train`` call (:mod:`.skipgram.engine`: gensim's or its numba twin) over that round's file whose learning rate
runs from the linear schedule's value at the chunk's first token to its value at the chunk's last (0.025 down to
0.0001 over all ``epochs x tokens``, gensim's
defaults), so the schedule is that of one uninterrupted run. After every chunk the whole model (vectors, output
weights, its random state, the number of chunks done) is saved as one folder swapped into place; a rerun with the same inputs loads
it and continues with the next chunk, and gives the same embedding, bit for bit with one worker, wherever it was
stopped (tests/embed/test_resumable.py). A folder made from other inputs (graph, options, seed) is refused, and so
is a folder that another build holds (:func:`held`: a lock beside the folder that the operating system drops when its
process dies, so a killed build never leaves the folder locked).

Chunking changes the floating result (gensim draws a fresh random stream per call and rounds the rate schedule
per call) but not what is optimised; a build without a checkpoint folder trains in one call, as before.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from repset.io import atomic_path, write_json

from .skipgram import new_model, node_vectors, train

__all__ = ["fingerprint", "CheckpointMismatch", "CheckpointBusy", "held", "open_folder", "missing_rounds",
           "write_walk_rounds", "chunked_skipgram"]

log = logging.getLogger(__name__)
START_ALPHA, END_ALPHA = 0.025, 0.0001   # gensim Word2Vec's alpha and min_alpha


class CheckpointMismatch(ValueError):
    """The checkpoint folder was made from other inputs."""


class CheckpointBusy(RuntimeError):
    """Another build holds the checkpoint folder."""


@contextmanager
def held(folder: str | os.PathLike) -> Iterator[Path]:
    """Hold the checkpoint ``folder`` for one build: two builds on one folder would overwrite each other's chunks.
    The lock is the file ``<folder>.lock`` beside it, so it outlives the folder's removal; holding it again in the
    holding process nests (a caller may hold the folder across the build and its clean-up). The folder itself is
    not created; the empty lock file stays (removing it on release would let two builds lock two files). Raises
    CheckpointBusy, naming the folder, when another process holds it."""
    import filelock

    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    lock_path = folder.with_name(folder.name + ".lock")
    lock = filelock.FileLock(lock_path, timeout=0, is_singleton=True)   # one instance per path: nested holds count
    try:
        lock.acquire()
    except filelock.Timeout:
        raise CheckpointBusy(f"{folder}: another build is running in this checkpoint folder (it holds "
                             f"{lock_path}); wait for it or stop it") from None
    try:
        yield folder
    finally:
        lock.release()


def fingerprint(n_nodes: int, edges: np.ndarray, options: dict) -> str:
    """sha256 over the graph (node count, edge list) and the build's options (JSON, sorted keys)."""
    h = hashlib.sha256()
    h.update(str(int(n_nodes)).encode())
    h.update(np.ascontiguousarray(np.asarray(edges, np.int64)).tobytes())
    h.update(json.dumps(options, sort_keys=True, default=str).encode())
    return h.hexdigest()


def open_folder(folder: str | os.PathLike, key: str) -> Path:
    """The checkpoint folder, created with ``key`` or checked against it (CheckpointMismatch naming the folder)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = folder / "inputs.sha256"
    if stamp.exists():
        found = stamp.read_text().strip()
        if found != key:
            raise CheckpointMismatch(f"{folder}: checkpoint of other inputs (sha256 {found[:12]}..., these "
                                     f"{key[:12]}...): delete the folder to start over")
    else:
        with atomic_path(stamp) as tmp:
            tmp.write_text(key + "\n")
    return folder


def round_paths(folder: Path, rounds: int) -> list[Path]:
    return [folder / f"walks-{r}.txt" for r in range(rounds)]


def missing_rounds(folder: Path, rounds: int) -> list[int]:
    """Walk rounds whose corpus or counts are not complete in ``folder``."""
    return [r for r, p in enumerate(round_paths(folder, rounds))
            if not (p.exists() and p.with_suffix(".counts.npy").exists())]


def write_walk_rounds(folder: Path, rounds: list[int], write_round) -> None:
    """``write_round(r, path) -> counts`` for each missing round, the corpus and its counts each moved into place
    when complete (counts last: a round counts as done once its counts exist)."""
    for r in rounds:
        path = round_paths(folder, r + 1)[r]
        with atomic_path(path) as tmp:
            counts = write_round(r, tmp)
        with atomic_path(path.with_suffix(".counts.npy")) as tmp:
            with open(tmp, "wb") as f:
                np.save(f, counts)
        log.info("walks: round %d of %s written (%d tokens)", r, folder, int(counts.sum()))


def round_counts(folder: Path, rounds: int) -> list[np.ndarray]:
    return [np.load(p.with_suffix(".counts.npy")) for p in round_paths(folder, rounds)]


def _alpha(words_before: int, total: int) -> float:
    return START_ALPHA - (START_ALPHA - END_ALPHA) * words_before / total


def chunked_skipgram(folder: Path, rounds: int, dim: int, window: int, epochs: int, hs: bool, negative: int,
                     seed: int, workers: int, engine: str = "gensim") -> np.ndarray:
    """Skip-gram over the walk rounds of ``folder``, one checkpointed chunk per (epoch, round): (n, dim) float32.
    ``engine`` trains each chunk (:func:`.skipgram.train`); the engines' chunks are interchangeable (the numba
    engine's floats are gensim's), so a build may resume on another engine."""
    from gensim.models import Word2Vec

    paths = round_paths(folder, rounds)
    per_round = round_counts(folder, rounds)
    counts = np.sum(per_round, axis=0)
    words = [int(c.sum()) for c in per_round]
    chunks = [(e, r) for e in range(epochs) for r in range(rounds)]
    starts = np.concatenate([[0], np.cumsum([words[r] for _, r in chunks])])
    saved = _saved_model(folder / "skipgram")
    done = json.loads((saved / "chunks.json").read_text())["chunks_done"] if saved else 0
    if saved:
        model = Word2Vec.load(str(saved / "model"))
        log.info("skip-gram: resuming %s after %d of %d chunks", folder, done, len(chunks))
    else:
        model = new_model(counts, dim, window, 1, hs, negative, seed, workers)
    run_start = time.perf_counter()
    for i in range(done, len(chunks)):
        e, r = chunks[i]
        t0 = time.perf_counter()
        train(model, paths[r], words[r], 1, _alpha(int(starts[i]), int(starts[-1])),
              _alpha(int(starts[i + 1]), int(starts[-1])), engine=engine)
        now = time.perf_counter()
        _save(model, folder / "skipgram", {"chunks_done": i + 1, "chunks": len(chunks), "epoch": e, "round": r})
        log.info("skip-gram: chunk %d/%d (epoch %d, round %d) %.0f s, %.0f tokens/s; %s", i + 1, len(chunks), e, r,
                 now - t0, words[r] / max(now - t0, 1e-9),
                 _eta(int(starts[i + 1] - starts[done]), now - run_start, int(starts[-1] - starts[i + 1])))
    return node_vectors(model, counts.size)


def _eta(trained: int, seconds: float, left: int) -> str:
    """What is left of the skip-gram, timed at this run's rate (``trained`` tokens in ``seconds``): chunks before
    a resume, run on another load, do not count."""
    if left == 0:
        return "done"
    rate = trained / max(seconds, 1e-9)
    return f"{left:,} tokens left, ETA {left / max(rate, 1e-9) / 3600:.1f} h at this run's {rate:,.0f} tokens/s"


def _saved_model(model_dir: Path) -> Path | None:
    """The last complete checkpoint: ``model_dir``, or its previous copy where a stop fell between the swaps."""
    previous = model_dir.with_name(model_dir.name + ".old")
    for candidate in (model_dir, previous):
        if (candidate / "chunks.json").exists():
            return candidate
    return None


def _save(model, model_dir: Path, progress: dict) -> None:
    """Save ``model`` (gensim's files) and ``progress`` as ``model_dir``: written beside it, then swapped in, so
    that a complete checkpoint exists at every moment."""
    fresh, old = model_dir.with_name(model_dir.name + ".new"), model_dir.with_name(model_dir.name + ".old")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir()
    model.save(str(fresh / "model"))
    write_json(fresh / "chunks.json", progress)
    if model_dir.exists():
        shutil.rmtree(old, ignore_errors=True)
        model_dir.rename(old)
    fresh.rename(model_dir)
    shutil.rmtree(old, ignore_errors=True)
