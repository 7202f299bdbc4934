"""Set layers (one class per module) and a resolver from names to classes."""
from __future__ import annotations

from torch import nn

from .approx import ApproxRepSet
from .attention_pool import AttentionPool
from .base import HiddenSetLayer
from .deepsets import DeepSets, NNMax, NNMean
from .repset import RepSet
from .set_transformer import SetTransformer

LAYERS: dict[str, type[nn.Module]] = {
    "repset": RepSet, "approx_repset": ApproxRepSet,
    "deepsets": DeepSets, "nn_mean": NNMean, "nn_max": NNMax, "nn_attention": AttentionPool,
    "set_transformer": SetTransformer,
}


def layer_class(name: str) -> type[nn.Module]:
    """Resolve a layer name; unknown names raise ValueError listing the valid ones."""
    try:
        return LAYERS[name]
    except KeyError:
        raise ValueError(f"unknown layer {name!r}; valid layers: {', '.join(sorted(LAYERS))}") from None


__all__ = ["ApproxRepSet", "AttentionPool", "DeepSets", "HiddenSetLayer", "NNMax", "NNMean", "RepSet",
           "SetTransformer", "LAYERS", "layer_class"]
