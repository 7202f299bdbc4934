"""The Snakemake workflow: dry run of `all`, lint, and config validation errors naming the key."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from repo_paths import ROOT

SNAKEMAKE = shutil.which("snakemake") or str(Path(sys.executable).parent / "snakemake")
pytestmark = pytest.mark.skipif(not Path(SNAKEMAKE).exists(), reason="snakemake not installed")


def snakemake(*args):
    return subprocess.run([SNAKEMAKE, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_dry_run_all_plans_the_toy():
    out = snakemake("-n", "all", "--forceall")
    assert out.returncode == 0, out.stderr
    assert "toy" in out.stdout


def test_lint_is_clean():
    out = snakemake("--lint")
    assert out.returncode == 0 and "Congratulations" in out.stdout + out.stderr, out.stdout + out.stderr


@pytest.mark.parametrize("override, message", [
    ("bogus=1", "'bogus' was unexpected"),
    ("solver=nope", "config key 'solver': unknown solver 'nope'; valid solvers:"),
    ("seed=-1", "-1 is less than the minimum of 0"),
])
def test_bad_config_is_refused_before_any_job(override, message):
    out = snakemake("-n", "all", "--config", override)
    assert out.returncode != 0
    assert message in out.stdout + out.stderr
