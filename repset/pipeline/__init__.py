"""The functions the workflow's thin scripts call (one per rule family): config checks (:mod:`.config`),
data preparation and its tables (:mod:`.data`), training and aggregation (:mod:`.train`), the WMD baseline
(:mod:`.wmd`), the protocol budget (:mod:`.budget`) and the toy (:mod:`.toy`). The top floor: it may import
every other room of repset; nothing in repset imports it. Submodules are imported on use.

The pipeline needs the ``[pipeline]`` extra (:data:`EXTRA`); on a base install (the layer only) importing
this package, and so every ``python -m repset.pipeline.<module>``, raises one ModuleNotFoundError naming
the missing packages and the install command.
"""
from __future__ import annotations

from importlib.util import find_spec

#: the ``[pipeline]`` extra of pyproject.toml as (module imported, distribution installed)
EXTRA = (("yaml", "pyyaml"), ("jsonschema", "jsonschema"), ("matplotlib", "matplotlib"), ("pandas", "pandas"),
         ("tqdm", "tqdm"), ("tabulate", "tabulate"), ("jinja2", "jinja2"), ("markdown", "markdown"),
         ("threadpoolctl", "threadpoolctl"))
INSTALL = "pip install 'repset[pipeline]'"


def missing_packages() -> list[str]:
    """The distributions of :data:`EXTRA` whose module cannot be imported here (none found, or blocked)."""
    return [dist for module, dist in EXTRA if find_spec(module) is None]


def _require_extra() -> None:
    missing = missing_packages()
    if missing:
        raise ModuleNotFoundError(f"repset.pipeline needs the [pipeline] extra; missing: {', '.join(missing)}. "
                                  f"Install it with: {INSTALL}")


_require_extra()
