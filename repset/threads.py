"""One place to set the thread counts of torch and Numba (benchmarks, pipeline jobs)."""
from __future__ import annotations


def set_threads(n: int) -> dict[str, int]:
    """Use ``n`` threads in torch and Numba; return the counts now in effect."""
    import numba
    import torch

    n = max(1, int(n))
    torch.set_num_threads(n)
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    return {"torch": torch.get_num_threads(), "numba": numba.get_num_threads()}
