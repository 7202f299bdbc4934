"""Set layers (one class per module) and a resolver from names to classes."""
from __future__ import annotations

from .approx import ApproxRepSet
from .base import HiddenSetLayer
from .repset import RepSet

LAYERS: dict[str, type[HiddenSetLayer]] = {"repset": RepSet, "approx_repset": ApproxRepSet}


def layer_class(name: str) -> type[HiddenSetLayer]:
    """Resolve a layer name; unknown names raise ValueError listing the valid ones."""
    try:
        return LAYERS[name]
    except KeyError:
        raise ValueError(f"unknown layer {name!r}; valid layers: {', '.join(sorted(LAYERS))}") from None


__all__ = ["ApproxRepSet", "HiddenSetLayer", "RepSet", "LAYERS", "layer_class"]
