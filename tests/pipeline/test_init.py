"""repset.pipeline on a base install: one ModuleNotFoundError naming the missing packages of the [pipeline]
extra and the install command, for the package and every ``python -m repset.pipeline.<module>``."""
import importlib
import re
import subprocess
import sys
import tomllib

import pytest
from repo_paths import ROOT

import repset.pipeline as pipeline


def test_extra_is_pyprojects_pipeline_extra():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["pipeline"]
    assert [dist for _, dist in pipeline.EXTRA] == [re.split(r"[<>=!~\[; ]", req, 1)[0] for req in extra]
    assert pipeline.missing_packages() == []                     # this environment has the extra


@pytest.fixture
def fresh_pipeline(monkeypatch):
    """``repset.pipeline`` and its submodules out of ``sys.modules`` (restored after the test)."""
    for name in [m for m in sys.modules if m == "repset.pipeline" or m.startswith("repset.pipeline.")]:
        monkeypatch.delitem(sys.modules, name)
    return monkeypatch


@pytest.mark.parametrize("module", ["repset.pipeline", "repset.pipeline.train"])
def test_a_missing_package_is_named_with_the_extra(fresh_pipeline, module):
    fresh_pipeline.setitem(sys.modules, "pandas", None)          # `import pandas` fails: a base install
    fresh_pipeline.setitem(sys.modules, "yaml", None)
    with pytest.raises(ModuleNotFoundError) as error:
        importlib.import_module(module)
    assert str(error.value) == ("repset.pipeline needs the [pipeline] extra; missing: pyyaml, pandas. "
                                "Install it with: pip install 'repset[pipeline]'")


def test_python_dash_m_entry_point_fails_with_the_one_error():
    code = ("import runpy, sys\nsys.modules['matplotlib'] = None\n"
            "runpy.run_module('repset.pipeline.data', run_name='__main__', alter_sys=True)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "ModuleNotFoundError: repset.pipeline needs the [pipeline] extra; missing: matplotlib. "
        "Install it with: pip install 'repset[pipeline]'")
