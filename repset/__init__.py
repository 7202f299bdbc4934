"""repset: RepSet and ApproxRepSet set layers for PyTorch, their PyG-style aggregations, and the pieces
of the paper's reproduction.

    from repset import RepSet, ApproxRepSet, RepSetAggregation, ApproxRepSetAggregation

The names are loaded on first use: ``import repset`` alone imports nothing heavy (no torch, no Numba).
The layers' Numba kernels follow torch's thread count and load on the first forward (:mod:`repset.threads`).
"""
from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

#: public name -> the module that defines it (type checkers read __init__.pyi)
_LAZY = {
    "RepSet": "repset.layers.repset",
    "ApproxRepSet": "repset.layers.approx",
    "HiddenSetLayer": "repset.layers.base",
    "RepSetAggregation": "repset.layers.aggregation",
    "ApproxRepSetAggregation": "repset.layers.aggregation",
    "HiddenSetAggregation": "repset.layers.aggregation",
    "set_threads": "repset.threads",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'repset' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
