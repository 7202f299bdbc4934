"""Numba as the solvers and the layers' kernels run it: imported on first use, a fork-safe threading
layer, an on-disk cache outside the source tree, and a thread count given per call.

- **Threading layer.** Unless Numba's ``NUMBA_THREADING_LAYER`` (or its config) names one, or other code
  started Numba's pool first, Numba loads with ``"forksafe"``: TBB where installed, else its own ``workqueue``. Both leave torch's OpenMP pool
  alone (Numba's GNU OpenMP layer shares torch's runtime on Linux, resets its thread count and kills a
  ``fork`` child), sleep when idle, and survive ``fork``. ``workqueue`` runs one parallel call at a
  time, so :func:`run` holds a lock around each kernel call under it (several Python threads may call
  the solvers at once).
- **Cache.** Kernels decorated with :func:`njit` (``cache=True``) keep their compiled code in
  :func:`cache_dir` (``NUMBA_CACHE_DIR`` where set, else the user's cache directory), never in the
  source tree (an installed package may not be writable).
- **Threads.** :func:`run` calls a kernel with the count of the innermost :func:`threads` block of the
  calling thread (a layer sets torch's count there), else Numba's, at most Numba's pool size.
"""
from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import cache
from pathlib import Path
from types import ModuleType

__all__ = ["cache_dir", "check_threads", "current_threads", "load", "n_chunks", "njit", "run", "solve_batch",
           "threads"]

_state = threading.local()    # .threads: the innermost threads() block's count of this thread
_lock = threading.Lock()      # one kernel call at a time under the workqueue layer


def _new_lock() -> None:
    global _lock
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_new_lock)   # a child never inherits a lock held by another thread


def cache_dir() -> Path:
    """Where compiled kernels are cached: ``NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/repset/numba``
    (default ``~/.cache/repset/numba``)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "repset" / "numba"


@cache
def load() -> ModuleType:
    """Numba, imported once with the fork-safe threading layer unless its config names one (see the
    module's docstring), its pool started (the layer is fixed from then on)."""
    import numba
    from numba.np.ufunc import parallel

    if not parallel._is_initialized and str(numba.config.THREADING_LAYER).lower() == "default":
        numba.config.THREADING_LAYER = "forksafe"
    # a GNU OpenMP layer (NUMBA_THREADING_LAYER=omp) shares torch's runtime on Linux and sets its thread
    # count as it starts: torch's count, where torch is loaded, is put back
    torch = sys.modules.get("torch")
    count = torch.get_num_threads() if torch is not None else None
    numba.get_num_threads()   # starts the pool
    if count is not None and torch.get_num_threads() != count:
        torch.set_num_threads(count)
    return numba


@contextmanager
def _cache_in(path: Path) -> Iterator[None]:
    numba = load()
    previous = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(path)
    try:
        yield
    finally:
        numba.config.CACHE_DIR = previous


def njit(*args, **options) -> Callable:
    """``numba.njit`` with Numba from :func:`load`; with ``cache=True`` the cache lives in :func:`cache_dir`
    (eager signatures compile, or load from that cache, here)."""
    numba = load()

    def decorate(function: Callable) -> Callable:
        with _cache_in(cache_dir()) if options.get("cache") else nullcontext():
            return numba.njit(*args, **options)(function)

    if len(args) == 1 and callable(args[0]) and not options:   # bare @njit
        function, args = args[0], ()
        return decorate(function)
    return decorate


@contextmanager
def threads(n: int | None) -> Iterator[None]:
    """Inside (this thread only): kernels started by :func:`run` without their own count use ``n``
    threads (None: Numba's count). Does not import Numba."""
    previous = getattr(_state, "threads", None)
    _state.threads = n
    try:
        yield
    finally:
        _state.threads = previous


def current_threads(n: int | None = None) -> int:
    """The count a kernel call gets: ``n``, else the innermost :func:`threads` block's, else Numba's;
    at least 1 and at most Numba's pool size (``NUMBA_NUM_THREADS``)."""
    numba = load()
    n = getattr(_state, "threads", None) if n is None else n
    n = numba.get_num_threads() if n is None else int(n)
    return max(1, min(n, numba.config.NUMBA_NUM_THREADS))


def run(kernel: Callable, *args, threads: int | None = None, chunksize: int | None = None):
    """``kernel(*args)`` (a parallel Numba kernel) on :func:`current_threads` threads (``threads``
    overrides), with Numba's parallel chunk size ``chunksize`` if given; the caller's counts are restored
    after. Serialised under the workqueue layer."""
    numba = load()
    use = current_threads(threads)
    lock = _lock if numba.threading_layer() == "workqueue" else nullcontext()
    with lock:
        previous = numba.get_num_threads()
        numba.set_num_threads(use)
        old_chunks = numba.set_parallel_chunksize(chunksize) if chunksize is not None else None
        try:
            return kernel(*args)
        finally:
            if old_chunks is not None:
                numba.set_parallel_chunksize(old_chunks)
            numba.set_num_threads(previous)


def check_threads(threads: int | None) -> int | None:
    """``threads`` for a solver's calls, checked: None (read at each call) or an int in
    ``[1, NUMBA_NUM_THREADS]`` (which loads Numba)."""
    if threads is None:
        return None
    limit = load().config.NUMBA_NUM_THREADS
    if not 1 <= int(threads) <= limit:
        raise ValueError(f"threads must lie in [1, {limit}], got {threads}")
    return int(threads)


def n_chunks(total: int, threads: int, per_thread: int = 16) -> int:
    """Number of prange chunks: several per thread for load balance with ragged sizes."""
    return int(max(1, min(total, threads * per_thread)))


def solve_batch(kernel: Callable, weights, rows, cols, value, assignment, along: str, threads: int | None,
                *extra, leading: tuple = (), chunks_of: int | None = None) -> None:
    """Run a compiled batch solver ``kernel`` (arguments ``weights, *leading, rows, cols, value, assignment,
    along_rows, *extra, n_chunks``) on ``threads`` threads (None: :func:`current_threads`), its chunks
    handed to whichever thread is free; ``chunks_of``: how many units the kernel splits into chunks
    (default: every problem)."""
    use = current_threads(threads)
    run(kernel, weights, *leading, rows, cols, value, assignment, along == "rows", *extra,
        n_chunks(rows.size if chunks_of is None else chunks_of, use), threads=use, chunksize=1)

