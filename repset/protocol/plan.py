"""The benchmark protocol as data: which stores, splits, models and grid points a config asks for.

Stores live at ``data/sets/<store>.npz``; the training jobs and their paths are in :mod:`.jobs`.
"""
from __future__ import annotations

from pathlib import Path

from repset.datasets.registry import get_spec
from repset.provenance import LEGACY_DEFAULTS
from repset.protocol.grid import grid_points, point_id


def store_stem(dataset: str, config: dict) -> str:
    """``<name>.<embedding>``: text stores are named by their word vectors, graph stores by struc2vec."""
    spec = get_spec(dataset)
    return f"{spec.name}.{config['data']['vectors'] if spec.kind == 'text' else 'struc2vec'}"


def store_path(dataset: str, config: dict) -> str:
    return f"data/sets/{store_stem(dataset, config)}.npz"


def split_per_dataset(section: dict) -> tuple[dict, dict[str, dict]]:
    """A config section (``protocol``, ``struc2vec``) as its own keys (without ``per_dataset``) and its
    ``per_dataset`` overrides keyed by canonical dataset name (config validation accepts any spelling)."""
    own = {k: v for k, v in section.items() if k != "per_dataset"}
    return own, {get_spec(name).name: dict(keys) for name, keys in (section.get("per_dataset") or {}).items()}


def struc2vec_options(dataset: str, config: dict) -> dict:
    """struc2vec keyword options for ``dataset``: the defaults with its ``per_dataset`` overrides."""
    options, overrides = split_per_dataset(config["struc2vec"])
    return {**options, **overrides.get(get_spec(dataset).name, {})}


def wmd_mat_path(dataset: str, config: dict) -> str | None:
    """The WMD authors' .mat for ``dataset`` when ``data.wmd_mat_dir`` holds it, else None."""
    folder, spec = config["data"].get("wmd_mat_dir"), get_spec(dataset)
    if folder and spec.wmd_mat and (Path(folder) / spec.wmd_mat).is_file():
        return str(Path(folder) / spec.wmd_mat)
    return None


#: per dataset kind: the ``protocol`` key counting its splits and the most splits it has (5 random
#: 70/30 splits of a text dataset, the 10 x 10 CV folds of a graph dataset)
SPLIT_KEYS = {"text": ("text_splits", 5), "graph": ("graph_splits", 100)}
#: the values of a graph dataset's ``protocol.per_dataset.<name>.grid_scope``: where the grid's ``grid_splits``
#: splits are counted, from the protocol's first split (the default) or from each CV repetition's first fold
GRID_SCOPES = ("protocol", "repetition")


def protocol_overrides(config: dict) -> dict[str, dict]:
    """Canonical dataset name -> its ``protocol.per_dataset`` override (a declared reduction; none: empty)."""
    return split_per_dataset(config["protocol"])[1]


def protocol_for(config: dict, dataset: str) -> dict:
    """The ``protocol`` of ``dataset``: the global keys with its ``protocol.per_dataset`` override applied
    (without the ``per_dataset`` key). Read every split or grid count of one dataset through it."""
    protocol, overrides = split_per_dataset(config["protocol"])
    return {**protocol, **overrides.get(get_spec(dataset).name, {})}


def split_count(dataset: str, config: dict) -> int:
    """Splits to train on: 1 for a predefined split, ``text_splits`` of the random ones, ``graph_splits``
    of the 10 x 10 CV folds (of :func:`protocol_for` ``dataset``)."""
    spec = get_spec(dataset)
    if spec.kind == "text" and spec.split == "predefined" and wmd_mat_path(dataset, config) is None:
        return 1
    key, most = SPLIT_KEYS[spec.kind]
    return min(protocol_for(config, dataset)[key], most)


def describe_override(config: dict, dataset: str) -> str:
    """What the ``protocol.per_dataset`` override of ``dataset`` does, in words (e.g. ``10 of the 10 x 10
    folds (the first repetition), the grid searched on the first split only, later splits train the
    point chosen there``); empty without one."""
    spec = get_spec(dataset)
    keys, n, parts = protocol_overrides(config).get(spec.name, {}), split_count(dataset, config), []
    key, most = SPLIT_KEYS[spec.kind]
    if key in keys:
        if spec.kind == "text":
            predefined = n == 1 and spec.split == "predefined"
            parts.append("the predefined split" if predefined else f"{n} of the {most} splits")
        else:
            reps = n // spec.n_splits
            first = ("" if n % spec.n_splits or reps == spec.n_repeats else
                     " (the first repetition)" if reps == 1 else f" (the first {reps} repetitions)")
            parts.append(f"{n} of the {spec.n_splits} x {spec.n_repeats} folds{first}")
    if {"grid_splits", "grid_scope"} & set(keys):
        parts.append(describe_grid(config, dataset))
    return ", ".join(parts)


def describe_grid(config: dict, dataset: str) -> str:
    """Where the grid of ``dataset`` is searched, in words (its ``grid_splits`` and ``grid_scope``, e.g. ``the grid
    searched on the first fold of each of the 10 repetitions, the other folds of a repetition train the point
    chosen on it``)."""
    protocol, n, spec = protocol_for(config, dataset), split_count(dataset, config), get_spec(dataset)
    searched = protocol.get("grid_splits")
    if protocol.get("grid_scope") == "repetition" and spec.n_repeats > 1 and searched is not None:
        if searched >= min(n, spec.n_splits):
            return "the grid searched on every split"
        reps = -(-n // spec.n_splits)
        folds = "fold" if searched == 1 else f"{searched} folds"
        where = f"each of the {reps} repetitions" if reps > 1 else "the repetition"
        return (f"the grid searched on the first {folds} of {where}, the other folds of a repetition train the point "
                "chosen on it")
    if searched is None or searched >= n:
        return "the grid searched on every split"
    return (f"the grid searched on the first {'split only' if searched == 1 else f'{searched} splits'}, "
            "later splits train the point chosen there")


def datasets(config: dict) -> list[str]:
    """Canonical names of every dataset in the config (text first)."""
    return [get_spec(d).name for d in config["datasets"]["text"] + config["datasets"]["graph"]]


def models_for(config: dict, dataset: str) -> list[str]:
    """The config's models that train on ``dataset``: all but those whose ``datasets`` list (an opt-in
    variant's, e.g. ``reproduction/init_small.yaml``) leaves it out."""
    name = get_spec(dataset).name
    return [m for m, spec in config["models"].items()
            if spec.get("datasets") is None or name in {get_spec(d).name for d in spec["datasets"]}]


def external_models(config: dict) -> list[str]:
    """The config's models whose ``layer`` comes from outside the package (an import path or an entry point, not a
    name of :data:`repset.layers.LAYERS`): the models a user brings, set against the others in the report."""
    from repset.training.external import is_registered

    return [m for m, spec in config["models"].items() if not is_registered(spec["layer"])]


def text_datasets(config: dict) -> list[str]:
    """Canonical names of the config's text datasets."""
    return [get_spec(d).name for d in config["datasets"]["text"]]


def model_points(config: dict, model: str) -> dict[str, dict]:
    """Grid point id -> layer options (fixed options + the point's values) of ``model``."""
    spec = config["models"][model]
    return {point_id(p): {**spec["options"], **p} for p in grid_points(spec["grid"])}


def layer_options(config: dict, model: str) -> dict[str, dict]:
    """Grid points of ``model`` with the config's solver given to every exact RepSet layer."""
    points = model_points(config, model)
    if config["models"][model]["layer"] == "repset":
        points = {pid: {"solver": config["solver"], **opts} for pid, opts in points.items()}
    return points


def train_settings(config: dict, model: str) -> dict:
    """``train`` settings of ``model``: the global ones with the model's own ``train`` overrides.
    A training-path key the config lacks takes its :data:`~repset.provenance.LEGACY_DEFAULTS` value, the
    path of the records made before the key existed (e.g. no ``distinct_elements``: padded batches), so
    that such records rerun identically (the distinct-element path rounds the products ``V H`` differently)."""
    return {**LEGACY_DEFAULTS, **config["train"], **config["models"][model].get("train", {})}


def dataset_of_kind(key: str, name: str, kind: str, why: str = ""):
    """The registry spec of ``name`` under config ``key``; ValueError naming the key unless ``name`` is
    a known ``kind`` (text / graph) dataset (``why``: appended to that error)."""
    try:
        spec = get_spec(name)
    except ValueError as err:
        raise ValueError(f"config key '{key}': {err}") from None
    if spec.kind != kind:
        raise ValueError(f"config key '{key}': {name} is a {spec.kind} dataset" + (f"; {why}" if why else ""))
    return spec


def check_protocol(config: dict) -> None:
    """Errors naming the config key: unknown datasets or layers (a layer that does not import), RECIPE without its
    .mat."""
    from repset.training.external import resolve_layer

    for key in ("text", "graph"):
        for name in config["datasets"][key]:
            spec = dataset_of_kind(f"datasets.{key}", name, key)
            if not spec.available and wmd_mat_path(name, config) is None:
                raise ValueError(f"config key 'datasets.{key}': {spec.display} exists only in the WMD authors' "
                                 f"{spec.wmd_mat}; set data.wmd_mat_dir to the folder holding it")
    for model, spec in config["models"].items():
        try:
            resolve_layer(spec["layer"])
        except ValueError as err:
            raise ValueError(f"config key 'models.{model}.layer': {err}") from None
        for name in spec.get("datasets") or []:
            try:
                get_spec(name)
            except (KeyError, ValueError) as err:
                raise ValueError(f"config key 'models.{model}.datasets': {err}") from None
