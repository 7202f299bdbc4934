"""Threads of the layers' Numba kernels: they follow torch's count, read at each call.

Torch's count (``torch.set_num_threads``) is the one setting: a layer runs its Numba kernels (the
matching, ApproxRepSet's pair selection, the sparse backward) on ``torch.get_num_threads()`` threads, at
most Numba's pool size (``NUMBA_NUM_THREADS``, default the machine's cores); a solver built with its own
``threads`` keeps that count. The layers never change torch's count. Numba itself is configured by
:mod:`solvers.runtime` (a fork-safe threading layer whose idle threads sleep, so the two pools never spin
against each other; its cache outside the source tree) and loaded on the first kernel call.

:func:`set_threads` pins both in one call (benchmarks, pipeline jobs, a busy machine).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["kernel_threads", "set_threads", "passive_numba_pool"]


@contextmanager
def kernel_threads() -> Iterator[None]:
    """Inside (this thread only): Numba kernels started without their own count run on torch's count,
    read now. Loads neither Numba nor anything else."""
    import torch

    from solvers import runtime

    with runtime.threads(torch.get_num_threads()):
        yield


@contextmanager
def passive_numba_pool() -> Iterator[None]:
    """Inside: an OpenMP runtime that starts here gets ``OMP_WAIT_POLICY=PASSIVE`` (restored on exit; a
    policy the user exported is kept), and Numba is loaded (:func:`solvers.runtime.load`) on leaving if
    it was imported inside. Only matters where ``NUMBA_THREADING_LAYER=omp`` is chosen: Numba's default layer
    here has no OpenMP pool to spin."""
    from solvers import runtime

    own = "OMP_WAIT_POLICY" not in os.environ
    if own:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        yield
        if "numba" in sys.modules:
            runtime.load()
    finally:
        if own:
            os.environ.pop("OMP_WAIT_POLICY", None)


def set_threads(n: int) -> dict[str, int]:
    """Use ``n`` threads in torch, and so in the layers' Numba kernels; return the counts now in effect.

    Where Numba is loaded its own count is set too (for Numba code outside the layers), else
    ``NUMBA_NUM_THREADS`` sizes its pool for when it loads: a job whose layers need no Numba kernel does
    not pay the 0.4 s of importing it."""
    import torch

    n = max(1, int(n))
    torch.set_num_threads(n)
    if "numba" in sys.modules:
        from solvers import runtime

        numba = runtime.load()
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
        return {"torch": torch.get_num_threads(), "numba": numba.get_num_threads()}
    os.environ["NUMBA_NUM_THREADS"] = str(n)
    return {"torch": torch.get_num_threads(), "numba": n}
