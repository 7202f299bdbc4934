"""One place to set the thread counts of torch and Numba (benchmarks, pipeline jobs)."""
from __future__ import annotations

import os
import sys


def set_threads(n: int) -> dict[str, int]:
    """Use ``n`` threads in torch and Numba; return the counts now in effect.

    Numba is set directly where it is loaded, else through ``NUMBA_NUM_THREADS`` for when it loads
    (its pool then has ``n`` threads): a job whose layers need no Numba kernel does not pay the 0.4 s
    of importing it."""
    import torch

    n = max(1, int(n))
    torch.set_num_threads(n)
    if "numba" in sys.modules:
        numba = sys.modules["numba"]
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
        return {"torch": torch.get_num_threads(), "numba": numba.get_num_threads()}
    os.environ["NUMBA_NUM_THREADS"] = str(n)
    return {"torch": torch.get_num_threads(), "numba": n}
