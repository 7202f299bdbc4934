"""Checks of a pipeline config that need the library (the JSON schema checks the rest)."""
from __future__ import annotations

import solvers


def check_config(config: dict) -> dict:
    """Raise ValueError naming the key when a value is not usable; return ``config`` unchanged."""
    try:
        solvers.get_solver(config["solver"])
    except ValueError as err:
        raise ValueError(f"config key 'solver': {err}") from None
    except ImportError as err:
        raise ValueError(f"config key 'solver': solver {config['solver']!r} needs a missing package: {err}") from None
    if "datasets" in config:
        from repset.protocol.plan import check_protocol

        check_protocol(config)
    return config
