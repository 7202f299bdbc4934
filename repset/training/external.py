"""Set layers from outside the package: a model's ``layer`` is a name of :data:`repset.layers.LAYERS`, an import
path, or an entry point, resolved by :func:`resolve_layer` and held to one contract (:func:`check_layer`).

The three forms of a ``layer``:

- a registry name (``repset``, ``deepsets``, ...): the package's own layers;
- an import path ``package.module:Name`` (the module importable by the process that trains: installed, or on
  ``PYTHONPATH``) or ``path/to/file.py:Name`` (a file, relative to the working directory: the repository root
  where Snakemake runs);
- an entry-point name of the group :data:`ENTRY_POINT_GROUP` (``repset.layers``), declared by an installed
  distribution (``[project.entry-points."repset.layers"] my_layer = "mypkg.pooling:MySetLayer"``).

The contract of ``Name`` (a class or any callable returning a module), checked by :func:`check_layer`:

- ``Name(in_dim, **options)`` builds a ``torch.nn.Module``: ``in_dim`` (int, positional) is the elements'
  dimension d; ``options`` are the model's fixed ``options`` with one grid point's values (keyword arguments);
- the module has ``out_dim`` (int >= 1), the width of what it returns;
- padded form: ``forward(V, lengths) -> (B, out_dim)``, ``V`` ``(B, N, d)`` float32 with set ``i`` in
  ``V[i, :lengths[i]]`` and zeros after it, ``lengths`` ``(B,)`` int64, every set non-empty;
- ragged form (the module's ``ragged`` attribute is true; e.g. a PyG aggregation wrapped in the contract):
  ``forward(x, index, dim_size=B) -> (B, out_dim)``, ``x`` ``(total, d)`` the elements of all sets stacked,
  ``index`` ``(total,)`` int64 the set of each element (sorted), as ``torch_geometric``'s aggregations take them;
- a set's output depends on that set alone: not on the other sets of its batch, nor on how far it is padded
  (in eval mode; the pipeline batches and pads sets differently in training, validation and test).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

import torch
from torch import nn

__all__ = ["ENTRY_POINT_GROUP", "LayerContractError", "RaggedLayer", "is_registered", "resolve_layer", "wrap_layer",
           "check_layer", "SAMPLE_SIZES"]

#: the entry-point group in which installed distributions declare set layers
ENTRY_POINT_GROUP = "repset.layers"
#: set sizes of the batch :func:`check_layer` runs a layer on
SAMPLE_SIZES = (4, 1, 3)


class LayerContractError(ValueError):
    """A layer that cannot be imported, or that breaks the contract of this module's docstring."""


def is_registered(name: str) -> bool:
    """Whether ``name`` is one of the package's own layers (:data:`repset.layers.LAYERS`)."""
    from repset.layers import LAYERS

    return name in LAYERS


def resolve_layer(name: str) -> Callable[..., nn.Module]:
    """The class (or factory) a model's ``layer`` names: a registry name, ``module:Name``, ``file.py:Name`` or an
    entry point of :data:`ENTRY_POINT_GROUP`; :class:`LayerContractError` saying what failed and how to fix it."""
    from repset.layers import LAYERS

    if name in LAYERS:
        return LAYERS[name]
    if ":" in name:
        source, _, attribute = name.rpartition(":")
        if not source or not attribute.isidentifier():
            raise LayerContractError(f"layer {name!r}: an import path is 'package.module:Name' or 'path/file.py:Name'")
        module = _load_file(source, name) if source.endswith(".py") else _import(source, name)
        try:
            return _callable(getattr(module, attribute), name)
        except AttributeError:
            raise LayerContractError(f"layer {name!r}: {source} has no attribute {attribute!r}") from None
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        points = sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))
        raise LayerContractError(
            f"unknown layer {name!r}; valid layers: {', '.join(sorted(LAYERS))}; entry points of group "
            f"{ENTRY_POINT_GROUP!r}: {', '.join(points) or 'none installed'}; or an import path 'package.module:Name' "
            "or 'path/file.py:Name'")
    try:
        return _callable(found[0].load(), name)
    except (ImportError, AttributeError) as err:
        raise LayerContractError(f"layer {name!r}: entry point {found[0].value!r} of group {ENTRY_POINT_GROUP!r} "
                                 f"does not load: {type(err).__name__}: {err}") from None


def _import(module: str, name: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise LayerContractError(
            f"layer {name!r}: cannot import {module!r} ({type(err).__name__}: {err}); install the package that "
            "holds it (pip install -e <its folder>), put its folder on PYTHONPATH, or name its file: "
            f"'{module.replace('.', '/')}.py:{name.rpartition(':')[2]}'") from None


def _load_file(source: str, name: str) -> ModuleType:
    """The module of the file ``source`` (loaded once per process, under a name made from its absolute path)."""
    path = Path(source).resolve()
    if not path.is_file():
        raise LayerContractError(f"layer {name!r}: no file {source} (from {Path.cwd()}; a file path is relative to "
                                 "the working directory, the repository root where Snakemake runs)")
    key = "repset_layer_" + hashlib.sha256(str(path).encode()).hexdigest()[:16]
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        try:
            spec.loader.exec_module(module)
        except Exception as err:
            del sys.modules[key]
            raise LayerContractError(f"layer {name!r}: loading {source} raised {type(err).__name__}: {err}") from None
    return sys.modules[key]


def _callable(obj: object, name: str) -> Callable[..., nn.Module]:
    if not callable(obj):
        raise LayerContractError(f"layer {name!r}: {type(obj).__name__} {obj!r} is not a class or a function "
                                 "returning a torch.nn.Module")
    return obj


class RaggedLayer(nn.Module):
    """A ragged-form layer (``forward(x, index, dim_size=B)``) in the padded form ``forward(V, lengths)`` the
    classifier calls: the valid elements of ``V`` stacked, each with its set's index."""

    def __init__(self, layer: nn.Module) -> None:
        super().__init__()
        self.layer = layer
        self.out_dim = layer.out_dim

    def forward(self, V: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """``(B, out_dim)`` for padded sets ``V`` (B, N, d) with ``lengths`` (B,)."""
        from repset.sets import length_mask

        index = torch.repeat_interleave(torch.arange(len(lengths), device=V.device), lengths.to(V.device))
        return self.layer(V[length_mask(lengths.to(V.device), V.shape[1])], index, dim_size=len(lengths))


def wrap_layer(layer: nn.Module) -> nn.Module:
    """``layer`` in the padded form: itself, or a :class:`RaggedLayer` where its ``ragged`` attribute is true."""
    return RaggedLayer(layer) if getattr(layer, "ragged", False) is True else layer


def check_layer(layer: str | Callable[..., nn.Module], options: dict | None = None, in_dim: int = 3) -> nn.Module:
    """Build ``layer`` (a ``layer`` value of a model, or the class itself) with ``in_dim`` and ``options`` and hold it
    to the contract (this module's docstring) on a batch of :data:`SAMPLE_SIZES` random sets; return it in the
    padded form, in training mode. :class:`LayerContractError` says what broke; the constructor's own TypeError or
    ValueError (an option it refuses) passes through unchanged."""
    factory = resolve_layer(layer) if isinstance(layer, str) else layer
    label = layer if isinstance(layer, str) else getattr(layer, "__qualname__", repr(layer))
    try:
        built = factory(in_dim, **(options or {}))
    except (TypeError, ValueError):
        raise
    except Exception as err:
        raise LayerContractError(f"layer {label!r}: {label}({in_dim}, **{options or {}}) raised "
                                 f"{type(err).__name__}: {err}") from None
    if not isinstance(built, nn.Module):
        raise LayerContractError(f"layer {label!r}: {label}({in_dim}, ...) returned a {type(built).__name__}, "
                                 "not a torch.nn.Module")
    out_dim = getattr(built, "out_dim", None)
    if type(out_dim) is not int or out_dim < 1:
        raise LayerContractError(f"layer {label!r}: the module needs an attribute out_dim, an int >= 1 (the width of "
                                 f"what forward returns), got {out_dim!r}")
    module = wrap_layer(built)
    generator = torch.Generator().manual_seed(0)
    sets = [torch.randn(n, in_dim, generator=generator) for n in SAMPLE_SIZES]
    module.eval()
    with torch.no_grad():
        batch = _run(module, sets, label, out_dim)
        padded = _run(module, sets, label, out_dim, extra=2)
        alone = torch.cat([_run(module, [s], label, out_dim) for s in sets])
    for what, other in (("padded 2 elements further", padded), ("run one set at a time", alone)):
        if not torch.allclose(batch, other, rtol=1e-4, atol=1e-5):
            worst = (batch - other).abs().max().item()
            raise LayerContractError(f"layer {label!r}: a set's output must depend on that set alone, but the same "
                                     f"sets {what} give other outputs (largest difference {worst:.3g}): mask the "
                                     "padding (lengths) and compute each set on its own")
    return module.train()


def _run(module: nn.Module, sets: list[torch.Tensor], label: str, out_dim: int, extra: int = 0) -> torch.Tensor:
    """``module``'s output on ``sets`` padded with zeros to their largest size plus ``extra``, checked for shape,
    dtype and finiteness."""
    lengths = torch.tensor([len(s) for s in sets])
    V = torch.zeros(len(sets), int(lengths.max()) + extra, sets[0].shape[1])
    for i, s in enumerate(sets):
        V[i, :len(s)] = s
    what = f"forward on {len(sets)} padded set(s) of {lengths.tolist()} elements of dim {V.shape[2]}"
    try:
        out = module(V, lengths)
    except Exception as err:
        raise LayerContractError(f"layer {label!r}: {what} raised {type(err).__name__}: {err}") from None
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != (len(sets), out_dim):
        got = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        raise LayerContractError(f"layer {label!r}: {what} returned {got}, expected (B, out_dim) = "
                                 f"({len(sets)}, {out_dim})")
    if not out.is_floating_point() or not torch.isfinite(out).all():
        raise LayerContractError(f"layer {label!r}: {what} returned {out.dtype} values that are not all finite floats")
    return out
