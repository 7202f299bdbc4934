"""The package's surface: the layers importable from the top, loaded lazily; no side effects on import;
typed; a base install that is the layer alone."""
import os
import subprocess
import sys
import tomllib

import pytest
from repo_paths import ROOT

import repset


def _user_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    return {**env, **extra}


def test_import_leaves_the_environment_alone_and_loads_nothing_heavy():
    code = ("import os, sys, repset; print(os.environ.get('OMP_WAIT_POLICY'), "
            "sorted(m for m in ('torch', 'numba', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], env=_user_env(), capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "None []"


def test_the_layers_and_aggregations_are_importable_from_the_top():
    from repset import ApproxRepSet, ApproxRepSetAggregation, RepSet, RepSetAggregation
    from repset.layers import aggregation, approx
    from repset.layers import repset as repset_module

    assert RepSet is repset_module.RepSet and ApproxRepSet is approx.ApproxRepSet
    assert (RepSetAggregation, ApproxRepSetAggregation) == (aggregation.RepSetAggregation,
                                                           aggregation.ApproxRepSetAggregation)
    assert {"RepSet", "ApproxRepSet", "RepSetAggregation", "set_threads"} <= set(repset.__all__) & set(dir(repset))
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        repset.Nothing


def test_typed_and_the_stub_names_every_top_level_name():
    assert (ROOT / "repset" / "py.typed").exists() and (ROOT / "solvers" / "py.typed").exists()
    stub = (ROOT / "repset" / "__init__.pyi").read_text()
    assert all(f"import {name} as {name}" in stub for name in repset._LAZY)
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in data["repset"] and "*.pyi" in data["repset"] and "py.typed" in data["solvers"]


def test_the_base_install_is_the_layer_and_all_still_installs_everything():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {dep.split(">")[0].split("=")[0].split("<")[0].strip() for dep in project["dependencies"]}
    assert names == {"numpy", "scipy", "torch", "numba"}
    extras = project["optional-dependencies"]
    assert {"pandas>=2.1", "matplotlib>=3.8", "pyyaml>=6"} <= set(extras["pipeline"])
    assert extras["all"] == ["repset[pipeline,workflow,verify,data,test,pyg]"]
    assert "repset[pipeline]" in extras["workflow"]          # snakemake's jobs run the pipeline


def test_the_layer_trains_with_the_base_installs_packages_only():
    """With the pipeline extra's packages and PyG hidden, as in a base install (``sys.modules[name] = None``
    makes their import fail), the layers and aggregations import and train."""
    hidden = ["torch_geometric", *(name.split(">")[0].split("=")[0].split("<")[0].strip().replace("-", "_")
                                   for name in tomllib.loads((ROOT / "pyproject.toml").read_text())
                                   ["project"]["optional-dependencies"]["pipeline"])]
    hidden = ["yaml" if name == "pyyaml" else name for name in hidden]
    code = (f"import sys\nfor name in {hidden!r}:\n    sys.modules[name] = None\n"
            "import torch\nfrom repset import ApproxRepSetAggregation, RepSet\n"
            "x = torch.randn(6, 4)\n"
            "RepSet(4, 3, 2)(x.view(2, 3, 4)).sum().backward()\n"
            "ApproxRepSetAggregation(4, 3, 2)(x, torch.tensor([0, 0, 1, 1, 1, 2])).sum().backward()\n"
            "print('trained')")
    out = subprocess.run([sys.executable, "-c", code], env=_user_env(), capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "trained"
