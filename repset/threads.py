"""One place to set the thread counts of torch and Numba (benchmarks, pipeline jobs), and to start
Numba's thread pool so that it never spins against torch's.

Torch and Numba's parallel kernels each bring an OpenMP runtime (torch its own libgomp, Numba the
system's), and a training step alternates between them. An idle OpenMP thread spins for a while
before it sleeps (the default, active wait policy): on a quiet machine torch's spinning pool is what
makes its small ops fast, but a second spinning pool starves it (measured: 87 ms instead of 3.5 ms for a
small step on 2 cores). :func:`passive_numba_pool` starts Numba's pool with a passive wait policy and
leaves torch's as the user's environment made it, whatever was imported first: the layers build their
solver and load their Numba kernels inside it."""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def passive_numba_pool() -> Iterator[None]:
    """Inside: a Numba thread pool that starts here (a parallel kernel loaded or run, a Numba solver
    built) gets ``OMP_WAIT_POLICY=PASSIVE``, read by its OpenMP runtime as it loads; the environment is
    restored on exit (torch's runtime, loaded with torch, read it long before). A policy the user
    exported is kept; a pool already started is left as it is. On leaving, a loaded Numba's pool is
    started (once), so that nothing later starts it outside."""
    own = "OMP_WAIT_POLICY" not in os.environ
    if own:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        yield
        if "numba" in sys.modules:
            sys.modules["numba"].get_num_threads()      # launches the pool if it is not running
    finally:
        if own:
            os.environ.pop("OMP_WAIT_POLICY", None)


def set_threads(n: int) -> dict[str, int]:
    """Use ``n`` threads in torch and Numba; return the counts now in effect.

    Numba is set directly where it is loaded, else through ``NUMBA_NUM_THREADS`` for when it loads
    (its pool then has ``n`` threads): a job whose layers need no Numba kernel does not pay the 0.4 s
    of importing it."""
    import torch

    n = max(1, int(n))
    torch.set_num_threads(n)
    if "numba" in sys.modules:
        with passive_numba_pool():
            numba = sys.modules["numba"]
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
        return {"torch": torch.get_num_threads(), "numba": numba.get_num_threads()}
    os.environ["NUMBA_NUM_THREADS"] = str(n)
    return {"torch": torch.get_num_threads(), "numba": n}
