"""Matching solver plugins behind one batched protocol (see :mod:`solvers.base`).

``get_solver(name)`` resolves a registry name to a solver instance; an unknown name raises
ValueError listing the valid ones. Built-in solvers are imported lazily so that, e.g., Numba is
only loaded when a Numba solver is asked for. Third-party packages can add solvers through the
``repset.solvers`` entry-point group (``name = "package.module:Class"``).
"""
from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from .base import MatchingResult, MatchingSolver, prepare_problem

__all__ = ["MatchingResult", "MatchingSolver", "prepare_problem", "available_solvers", "get_solver", "register"]

#: name -> "module:Class" (lazy) or a MatchingSolver subclass
_REGISTRY: dict[str, str | type[MatchingSolver]] = {
    "scipy": "solvers.scipy_solver:ScipySolver",
    "numba": "solvers.numba_jv:NumbaJVSolver",
    "auction": "solvers.auction:AuctionSolver",
    "lp": "solvers.lp:LPSolver",
    "brute": "solvers.brute_force:BruteForceSolver",
    "cuda": "solvers.cuda:CudaSolver",
}


def register(name: str, target: str | type[MatchingSolver]) -> None:
    """Register a solver class (or a lazy ``"module:Class"`` path) under ``name``."""
    if not name or not isinstance(name, str):
        raise ValueError(f"solver name must be a non-empty string, got {name!r}")
    _REGISTRY[name] = target


def _plugins() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group="repset.solvers")}


def available_solvers() -> list[str]:
    """Sorted names accepted by :func:`get_solver`."""
    return sorted({**_plugins(), **_REGISTRY})


def get_solver(name: str | MatchingSolver, **options) -> MatchingSolver:
    """Return a solver instance for ``name`` (an instance is passed through unchanged)."""
    if isinstance(name, MatchingSolver):
        return name
    target = _REGISTRY.get(name) if isinstance(name, str) else None
    if target is None and isinstance(name, str):
        target = _plugins().get(name)
    if target is None:
        raise ValueError(f"unknown solver {name!r}; valid solvers: {', '.join(available_solvers())}")
    if isinstance(target, str):
        module, _, cls = target.partition(":")
        target = getattr(importlib.import_module(module), cls)
    return target(**options)
