"""Package import side effects: none on the environment; Numba's pool passive in either import order."""
import os
import subprocess
import sys

import pytest

#: a training step's Numba kernels in a fresh process, then the spin count of Numba's OpenMP runtime
#: (libgomp's verbose display: 0 = passive, 300000 = the default spin) and the environment after
CHILD = """
import ctypes, os, sys
first = sys.argv[1]
if first == "torch":
    import torch
    import repset.layers
else:
    import repset.layers
    import torch
from repset.layers import RepSet
from repset.sets import pad_sets
V, lengths = pad_sets([torch.randn(5, 4) for _ in range(3)])
RepSet(4, 2, 2, solver="numba")(V, lengths).sum().backward()
print("ENV", os.environ.get("OMP_WAIT_POLICY"))
import numba
numba_gomp = [l.split()[-1] for l in open("/proc/self/maps") if "gomp" in l and "torch" not in l]
if numba.threading_layer() != "omp" or not numba_gomp:
    print("NO_GOMP", numba.threading_layer())
else:
    ctypes.CDLL(numba_gomp[0]).omp_display_env(1)
"""


def _user_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    return {**env, **extra}


def test_import_leaves_the_environment_alone():
    code = "import os, repset, repset.layers; print(os.environ.get('OMP_WAIT_POLICY'))"
    out = subprocess.run([sys.executable, "-c", code], env=_user_env(), capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "None"


@pytest.mark.parametrize("first", ["torch", "repset"])
def test_numba_pool_is_passive_in_either_import_order(first):
    out = subprocess.run([sys.executable, "-c", CHILD, first], env=_user_env(), capture_output=True, text=True)
    if "NO_GOMP" in out.stdout or (out.returncode != 0 and "omp_display_env" in out.stderr):
        pytest.skip(f"Numba's threading layer is not GNU OpenMP here ({out.stdout.strip()})")
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ENV None" in out.stdout                            # restored: torch's runtime keeps the user's policy
    assert "GOMP_SPINCOUNT = '0'" in out.stderr               # Numba's pool sleeps at once: never spins
    # a policy the user exported is kept
    out = subprocess.run([sys.executable, "-c", CHILD, first], env=_user_env(OMP_WAIT_POLICY="ACTIVE"),
                         capture_output=True, text=True, check=True)
    assert "ENV ACTIVE" in out.stdout and "OMP_WAIT_POLICY = 'ACTIVE'" in out.stderr
