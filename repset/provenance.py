"""Provenance of a result: package versions, platform, git commit, config hash, seed."""
from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

#: Training-path fields added to ``TrainConfig`` after the first records, each with the value that reproduces
#: a record (or config) made before it existed; every new field that changes how a run trains belongs here.
LEGACY_DEFAULTS: dict[str, object] = {"distinct_elements": False, "ragged": False, "max_elements": None}

PACKAGES = ("repset", "torch", "numpy", "scipy", "numba", "snakemake", "cvxpy", "gensim", "pot", "pandas")


def package_versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str | None]:
    """Installed version of each package (None where not installed)."""
    out: dict[str, str | None] = {}
    for name in packages:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def config_hash(config: dict) -> str:
    """sha256 of the config as canonical JSON (sorted keys)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def git_commit(path: str | Path = ".") -> str | None:
    """HEAD commit of the repository holding ``path`` (None outside git), '+dirty' if modified."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=path,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return None


def provenance(config: dict | None = None, seed: int | None = None, **extra) -> dict:
    """A provenance block for a JSON record."""
    import torch

    return {
        "config": config,
        "config_sha256": config_hash(config) if config is not None else None,
        "seed": seed,
        "packages": package_versions(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "torch_threads": torch.get_num_threads(),
        # the installed package's checkout, else (a non-editable install) the workflow's, run from its root
        "git_commit": git_commit(Path(__file__).resolve().parent) or git_commit(Path.cwd()),
        **extra,
    }
