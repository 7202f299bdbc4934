"""Progress of gensim's skip-gram in ``corpus_file`` mode, which reports nothing until an epoch ends
(one job per worker covers the whole file): a watcher thread reads how far the workers have read the
corpus (the offsets of the descriptors open on it, from Linux's ``/proc/self/fdinfo``) and logs the
share done and an ETA every ``every`` seconds. Elsewhere (no ``/proc``) it logs only epoch ends."""
from __future__ import annotations

import logging
import os
import threading
import time

__all__ = ["read_fraction", "SkipgramProgress"]

log = logging.getLogger(__name__)


def read_fraction(path: str, workers: int = 1) -> float | None:
    """Share of ``path`` read by this process's open descriptors on it (``workers`` readers, each over
    its own 1/workers of the file, as gensim splits it); None when no descriptor is open on it or the
    offsets cannot be read."""
    target, size = os.path.realpath(path), os.path.getsize(path)
    if size == 0 or not os.path.isdir("/proc/self/fd"):
        return None
    positions = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != target:
                continue
            with open(f"/proc/self/fdinfo/{fd}") as info:
                positions.append(int(next(line for line in info if line.startswith("pos:")).split()[1]))
        except (OSError, StopIteration, ValueError):
            continue
    if not positions:
        return None
    segment = size / max(1, workers)
    done = sum((p % segment) if workers > 1 else p for p in positions)
    return min(1.0, done / size)


class SkipgramProgress:
    """Context manager around ``Word2Vec.train(corpus_file=path, callbacks=[progress.callback()])``:
    logs, every ``every`` seconds, the epoch, the share of its corpus read, the share of all epochs
    and an ETA."""

    def __init__(self, path: str, epochs: int, workers: int = 1, every: float = 30.0) -> None:
        self.path, self.epochs, self.workers, self.every = path, max(1, epochs), workers, every
        self.epochs_done, self._stop, self._thread, self.start = 0, threading.Event(), None, 0.0

    def callback(self):
        """A gensim callback counting finished epochs (and logging each)."""
        from gensim.models.callbacks import CallbackAny2Vec

        progress = self

        class _EpochEnd(CallbackAny2Vec):
            def on_epoch_end(self, model):
                progress.epochs_done += 1
                log.info("skip-gram: epoch %d/%d done, %.0f s", progress.epochs_done, progress.epochs,
                         time.perf_counter() - progress.start)

        return _EpochEnd()

    def report(self) -> str | None:
        """One progress line (None before any byte is read or where offsets cannot be read)."""
        fraction = read_fraction(self.path, self.workers)
        if fraction is None:
            return None
        done = min(1.0, (self.epochs_done + fraction) / self.epochs)
        elapsed = time.perf_counter() - self.start
        eta = elapsed * (1 - done) / done if done > 0 else float("nan")
        return (f"skip-gram: epoch {min(self.epochs_done + 1, self.epochs)}/{self.epochs}, {100 * fraction:.1f}% of "
                f"its corpus read, {100 * done:.1f}% overall, {elapsed:.0f} s elapsed, ETA {eta:.0f} s")

    def _watch(self) -> None:
        while not self._stop.wait(self.every):
            line = self.report()
            if line:
                log.info(line)

    def __enter__(self) -> "SkipgramProgress":
        self.start = time.perf_counter()
        self._thread = threading.Thread(target=self._watch, name="skipgram-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
