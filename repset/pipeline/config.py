"""Checks of a pipeline config that need the library (the JSON schema checks the rest), run before any
job: every error names the config key, so nothing fails at job time after other jobs have run. Some values
pass JSON Schema and fail in every job: an integer key written as a float (its ``integer`` accepts 5.0,
which ``range`` refuses), a float that is not finite (``.inf`` and ``.nan`` pass a schema's bounds), a model
name that is not one folder of ``results/runs/<dataset>/<model>/``, and lists that name one dataset, seed or
variant twice (datasets compared by their registry name, so ``twitter`` and ``TWITTER`` are one): they are
checked here too."""
from __future__ import annotations

import inspect
import json
import math
import os
import re
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path

import solvers
from repset.protocol.plan import dataset_of_kind

__all__ = ["check_config", "check_device", "check_names_and_numbers", "check_recorded_layers", "check_unique",
           "canonical_dataset", "reserved_models", "SAFE_NAME"]


def check_config(config: dict, schema: str | os.PathLike | dict | None = None,
                 records: str | os.PathLike | None = None) -> dict:
    """Raise ValueError naming the key when a value is not usable; return ``config`` unchanged. ``schema``
    (a path or the loaded schema: the workflow's, which the Snakefile passes) says which keys are integers: 5.0
    there is refused, as JSON Schema's ``integer`` accepts it (None: only the schema-free checks). ``records``
    (the folder of run records, ``results/runs``, which the Snakefile passes): a model whose records there name
    another layer is refused (None: not checked)."""
    check_names_and_numbers(config, schema)
    _check_solver("solver", config["solver"])
    if "datasets" in config:
        from repset.protocol.plan import check_protocol

        check_protocol(config)
        _check_models(config)
        if records is not None:
            check_recorded_layers(config, records)
        _check_dataset_lists(config)
        _check_train_packs(config)
        _check_protocol_overrides(config)
        _check_struc2vec(config)
        _check_init_study(config)
    for name in config.get("bench", {}).get("solvers", []):
        _check_solver("bench.solvers", name)
    _check_variants(config)
    return config


def check_device(train: dict, model: str | None = None) -> None:
    """At a job's start: ValueError naming the config key when ``train`` (the job's train settings, of
    ``model``) asks for CUDA on a machine without it. Not a check of :func:`check_config`: the DAG may be
    built on a host without the jobs' GPU (a cluster's login node; the train rule requests one)."""
    device = train.get("device", "cpu")
    if device == "cpu":
        return
    import torch

    if torch.device(device).type == "cuda" and not torch.cuda.is_available():
        key = "'train.device'" + (f" (or its override 'models.{model}.train.device')" if model else "")
        why = "torch is built without CUDA" if torch.version.cuda is None else "no GPU is visible"
        raise ValueError(f"config key {key} is {device!r} but this machine has no CUDA device ({why}, torch "
                         f"{torch.__version__}): set it to cpu, or run the job on a machine with a GPU")


def _check_solver(key: str, name: str) -> None:
    try:
        solvers.get_solver(name)
    except ValueError as err:
        raise ValueError(f"config key '{key}': {err}") from None
    except ImportError as err:
        raise ValueError(f"config key '{key}': solver {name!r} needs a missing package: {err}") from None


def _check_models(config: dict) -> None:
    """Build every grid point's layer once (in_dim 2): a misspelled option or grid key, a value the layer
    refuses (``n_hidden_sets: [0]``) or a grid that leaves a required option unset is named here, under
    ``options`` or ``grid`` by which of them holds the value at fault (:func:`_blamed_part`). A grid point's id
    is a folder of ``results/runs/<dataset>/<model>/``: one that is not (a value with ``/``) is refused. A layer
    from outside the package (:func:`repset.training.external.check_layer`) is held to the layer contract at every
    point, under ``layer``, and its model may not take a name of the package's models (:func:`reserved_models`)."""
    from repset.protocol.plan import layer_options
    from repset.training import build_layer
    from repset.training.external import LayerContractError, check_layer, is_registered

    for model, spec in config["models"].items():
        external = not is_registered(spec["layer"])
        if external and model in reserved_models():
            raise ValueError(f"config key 'models.{model}': {model!r} is a model of the package and of the record "
                             f"(reserved: {', '.join(sorted(reserved_models()))}); a layer from outside the package "
                             f"({spec['layer']!r}) needs a model name of its own")
        points = layer_options(config, model)
        for point, options in points.items():
            if point in (".", "..") or "/" in point or "\\" in point or not point.isprintable():
                raise ValueError(f"config key 'models.{model}.grid': grid point {point!r} is not a folder name "
                                 "(its values name the folder of its records): use values without '/'")
            try:
                if external:
                    check_layer(spec["layer"], options, in_dim=2)
                else:
                    build_layer(spec["layer"], 2, **options)
            except LayerContractError as err:
                raise ValueError(f"config key 'models.{model}.layer': {err}") from None
            except (TypeError, ValueError) as err:
                part = _blamed_part(spec, point, points, str(err))
                where = "options" if point == "default" else f"grid (point {point})"
                raise ValueError(f"config key 'models.{model}.{part}': layer {spec['layer']!r} "
                                 f"with {options} in its {where}: {err}") from None


def check_recorded_layers(config: dict, records: str | os.PathLike) -> None:
    """ValueError naming ``models.<name>.layer`` where the first record found in ``records/<dataset>/<name>/`` (e.g.
    one restored from ``reproduction/``) was trained with another layer than the config gives that model: its runs
    would be counted as the new layer's, and none of them would be retrained."""
    from repset.protocol.plan import datasets

    for model, spec in config["models"].items():
        for dataset in datasets(config):
            found = next((Path(records) / dataset / model).glob("*/split*_seed*.json"), None)
            if found is None:
                continue
            try:
                theirs = json.loads(found.read_text()).get("layer")
            except (OSError, ValueError):
                continue            # an unreadable record is named by the jobs that read it
            if theirs is not None and theirs != spec["layer"]:
                raise ValueError(f"config key 'models.{model}.layer': {spec['layer']!r}, but {found} holds a run of "
                                 f"layer {theirs!r}: name the model otherwise (the records of {model!r} are another "
                                 f"model's), or move {Path(records) / dataset / model} away")


def reserved_models() -> set[str]:
    """Model names a layer from outside the package may not take: the package's layers (the record's models) and
    the report's named rows (:data:`repset.report.tables.DISPLAY`: its opt-in variants, WMD, the majority class)."""
    from repset.layers import LAYERS
    from repset.report.tables import DISPLAY

    return set(LAYERS) | set(DISPLAY)


def _blamed_part(spec: dict, point: str, points: dict[str, dict], message: str) -> str:
    """``"grid"`` or ``"options"``: where the value a layer refused at ``point`` sits. The grid where the
    message names one of its keys (``n_hidden_sets must be ...``), or where another grid point builds (the
    fixed options are then usable); else the fixed options (a misspelled or refused option, or one a grid
    cannot set: every point fails alike)."""
    grid = spec.get("grid") or {}
    if point == "default" or not grid:
        return "options"
    if any(re.search(rf"\b{re.escape(key)}\b", message) for key in grid):
        return "grid"
    options = {k: v for k, v in (spec.get("options") or {}).items() if k not in grid}
    if any(re.search(rf"\b{re.escape(key)}\b", message) for key in options):
        return "options"
    from repset.training import build_layer

    for values in points.values():
        try:
            build_layer(spec["layer"], 2, **values)
            return "grid"
        except (TypeError, ValueError):
            continue
    return "options"


def _check_dataset_lists(config: dict) -> None:
    """``sensitivity`` and ``wmd.datasets`` name datasets of ``datasets`` (any spelling the registry
    knows); ``verify.set_dataset`` and ``bench.epoch_stores`` are text datasets."""
    from repset.protocol.plan import datasets, text_datasets

    _check_names("sensitivity", config.get("sensitivity", []), datasets(config))
    _check_names("wmd.datasets", config.get("wmd", {}).get("datasets", []), text_datasets(config), "text ")
    name = config.get("verify", {}).get("set_dataset")
    if name is not None:
        dataset_of_kind("verify.set_dataset", name, "text", "a text dataset is needed")
    for name in config.get("bench", {}).get("epoch_stores", []):
        dataset_of_kind("bench.epoch_stores", name, "text", "word sets only")
    check_unique("bench.epoch_stores", config.get("bench", {}).get("epoch_stores", []), canonical_dataset)


def _check_train_packs(config: dict) -> None:
    """``train_packs.datasets``: datasets of ``datasets`` (any spelling), each once: a dataset trained in packs
    is one the config trains (an overlay that narrows ``datasets`` narrows ``train_packs`` with it)."""
    from repset.protocol.plan import datasets

    _check_names("train_packs.datasets", (config.get("train_packs") or {}).get("datasets", []), datasets(config))


def _check_protocol_overrides(config: dict) -> None:
    """``protocol.per_dataset``: each a dataset of ``datasets`` (once, in any spelling), overriding the split
    count of its kind and ``grid_splits`` with values the global keys could take, and, for a graph dataset,
    ``grid_scope``."""
    from repset.datasets.registry import get_spec
    from repset.protocol.plan import GRID_SCOPES, SPLIT_KEYS, datasets

    seen: dict[str, str] = {}
    for name, keys in (config["protocol"].get("per_dataset") or {}).items():
        key = f"protocol.per_dataset.{name}"
        _check_names(key, [name], datasets(config))
        spec = get_spec(name)
        if spec.name in seen:
            raise ValueError(f"config key '{key}': {spec.name} is overridden twice (also as {seen[spec.name]!r})")
        seen[spec.name] = name
        allowed = (SPLIT_KEYS[spec.kind][0], "grid_splits") + (("grid_scope",) if spec.kind == "graph" else ())
        if not isinstance(keys, dict) or set(keys) - set(allowed):
            bad = sorted(set(keys) - set(allowed)) if isinstance(keys, dict) else keys
            why = " (its splits are no CV repetitions)" if isinstance(keys, dict) and "grid_scope" in bad else ""
            raise ValueError(f"config key '{key}': cannot override {bad}; a {spec.kind} dataset may override "
                             f"{', '.join(allowed[:-1])} and {allowed[-1]}{why}")
        for option, value in keys.items():
            if option == "grid_splits":
                if not (value is None or (type(value) is int and value >= 1)):
                    raise ValueError(f"config key '{key}.{option}': {value!r} is not an integer >= 1 or null")
            elif option == "grid_scope":
                if value not in GRID_SCOPES:
                    raise ValueError(f"config key '{key}.{option}': {value!r} is not one of {', '.join(GRID_SCOPES)}")
            elif not (type(value) is int and 1 <= value <= SPLIT_KEYS[spec.kind][1]):
                raise ValueError(f"config key '{key}.{option}': {value!r} is not an integer >= 1 and "
                                 f"<= {SPLIT_KEYS[spec.kind][1]}")


def _check_init_study(config: dict) -> None:
    """``init_study``: a model of ``models`` with hidden sets, known inits, datasets of the config, a text
    dataset of the config for the latent-set tables."""
    study = config.get("init_study")
    if not study:
        return
    from repset.layers.base import INITS, HiddenSetLayer
    from repset.protocol.plan import datasets, text_datasets
    from repset.training.external import resolve_layer

    model = study["model"]
    if model not in config["models"]:
        raise ValueError(f"config key 'init_study.model': {model!r} is not in models {list(config['models'])}")
    layer = resolve_layer(config["models"][model]["layer"])
    if not (isinstance(layer, type) and issubclass(layer, HiddenSetLayer)):
        raise ValueError(f"config key 'init_study.model': {model} (layer {config['models'][model]['layer']!r}) "
                         "has no hidden sets to initialise")
    unknown = [i for i in study["inits"] if i not in INITS]
    if unknown:
        raise ValueError(f"config key 'init_study.inits': unknown {unknown}; valid: {', '.join(INITS)}")
    _check_names("init_study.datasets", study["datasets"], datasets(config))
    _check_names("init_study.latent_sets", [study["latent_sets"]] if study["latent_sets"] else [],
                 text_datasets(config), "text ")


def _check_names(key: str, names: list[str], allowed: list[str], kind: str = "") -> None:
    """Every name under config ``key`` is a registry dataset (any spelling) among ``allowed``, each once."""
    from repset.datasets.registry import get_spec

    for name in names:
        try:
            canonical = get_spec(name).name
        except ValueError as err:
            raise ValueError(f"config key '{key}': {err}") from None
        if canonical not in allowed:
            raise ValueError(f"config key '{key}': {name!r} is not among the config's {kind}datasets {allowed}")
    check_unique(key, names, canonical_dataset)


def _check_struc2vec(config: dict) -> None:
    """``struc2vec`` and its ``per_dataset`` overrides: known options, graph datasets of the config."""
    from repset.embed import struc2vec

    # the function's options, with ``checkpoint`` (a folder beside the embedding) for its ``checkpoint_dir``
    valid = set(inspect.signature(struc2vec).parameters) - {"n_nodes", "edges", "seed", "tmp_dir", "checkpoint_dir"}
    valid.add("checkpoint")
    options = config.get("struc2vec", {})
    unknown = sorted(set(options) - valid - {"per_dataset"})
    if unknown:
        raise ValueError(f"config key 'struc2vec': unknown options {unknown}; valid: {', '.join(sorted(valid))}")
    for name, overrides in options.get("per_dataset", {}).items():
        key = f"struc2vec.per_dataset.{name}"
        dataset_of_kind(key, name, "graph", "struc2vec embeds graphs")
        if not isinstance(overrides, dict) or set(overrides) - valid:
            bad = sorted(set(overrides) - valid) if isinstance(overrides, dict) else overrides
            raise ValueError(f"config key '{key}': unknown options {bad}; valid: {', '.join(sorted(valid))}")


def _check_variants(config: dict) -> None:
    from repset.bench.epoch import check_variants

    for key, variants in (("bench.epoch_variants", config.get("bench", {}).get("epoch_variants", [])),
                          ("runtime.variants", config.get("runtime", {}).get("variants", []))):
        try:
            check_variants(list(variants))
        except ValueError as err:
            raise ValueError(f"config key '{key}': {err}") from None


# ---- values JSON Schema lets through: integral integers, finite floats, folder-safe names, no repeats ----

#: a model name: one folder name (letters, digits, ``_``, ``.`` and ``-``; not starting with ``.`` or ``-``)
SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
#: config lists of plain values that must not repeat one (datasets' lists are checked by registry name)
PLAIN_LISTS = ("protocol.seeds", "bench.solvers", "bench.epoch_variants", "runtime.variants", "init_study.inits")


def check_names_and_numbers(config: dict, schema: str | os.PathLike | dict | None = None) -> None:
    """ValueError naming the config key of the first value that is a float where ``schema`` (a path or the
    loaded schema; None: no such check) says integer, a float that is not finite (anywhere), a model name that
    is not :data:`SAFE_NAME`, or a repeat in the datasets lists, ``models.<name>.datasets`` or
    :data:`PLAIN_LISTS`."""
    if schema is not None and not isinstance(schema, dict):
        import yaml

        schema = yaml.safe_load(Path(schema).read_text())
    _check_numbers(config, schema or {}, schema or {}, "")
    for model, spec in (config.get("models") or {}).items():
        if not isinstance(model, str) or not SAFE_NAME.fullmatch(model):
            raise ValueError(f"config key 'models.{model}': a model name is a folder of results/runs/<dataset>/: "
                             "letters, digits, '_', '.' and '-', not starting with '.' or '-'")
        if isinstance(spec, dict) and spec.get("datasets"):
            check_unique(f"models.{model}.datasets", spec["datasets"], canonical_dataset)
    for kind in ("text", "graph"):
        check_unique(f"datasets.{kind}", (config.get("datasets") or {}).get(kind) or [], canonical_dataset)
    for key in PLAIN_LISTS:
        section, name = key.split(".")
        check_unique(key, (config.get(section) or {}).get(name) or [])


def canonical_dataset(name: str) -> str:
    """The registry's name of dataset ``name`` (any spelling); ``name`` itself where the registry does not
    know it (the dataset checks name that key)."""
    from repset.datasets.registry import get_spec

    try:
        return get_spec(name).name
    except (ValueError, AttributeError):
        return name


def check_unique(key: str, items: Iterable, canonical: Callable[[object], Hashable] | None = None) -> None:
    """ValueError naming config ``key`` when two of ``items`` are one (by ``canonical``: e.g. a dataset's
    registry name)."""
    seen: dict = {}
    for item in items:
        same = canonical(item) if canonical else item
        if same in seen:
            what = f"{same} twice ({seen[same]!r} and {item!r})" if item != seen[same] else f"{item!r} twice"
            raise ValueError(f"config key '{key}': lists {what}; each may appear once")
        seen[same] = item


def _check_numbers(value, node: dict, root: dict, key: str) -> None:
    """Walk ``value`` beside its schema ``node`` (``$ref`` resolved against ``root``)."""
    while "$ref" in node:                         # "#/$defs/epoch_shape"
        ref, node = node["$ref"], root
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"config key '{key}': {value} is not a finite number")
        types = node.get("type", [])
        if "integer" in ([types] if isinstance(types, str) else types) and "number" not in types:
            hint = f" (write {int(value)})" if value.is_integer() else ""
            raise ValueError(f"config key '{key}': {value!r} is not an integer{hint}")
    elif isinstance(value, dict):
        properties, extra = node.get("properties", {}), node.get("additionalProperties")
        for name, item in value.items():
            sub = properties.get(name, extra if isinstance(extra, dict) else {})
            _check_numbers(item, sub, root, f"{key}.{name}" if key else str(name))
    elif isinstance(value, list):
        items = node.get("items")
        for i, item in enumerate(value):
            _check_numbers(item, items if isinstance(items, dict) else {}, root, f"{key}[{i}]")
