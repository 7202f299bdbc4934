"""Solver test setup: run code that could crash or hang the interpreter in a child process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import solvers

#: generous: the child may have to compile the Numba kernels (seconds) when their cache is stale
ISOLATED_TIMEOUT_S = 180


def _run_isolated(code: str, timeout: float = ISOLATED_TIMEOUT_S):
    """Run ``code`` in a fresh interpreter importing the same ``solvers`` package; return the JSON it
    prints last. A segfault (returncode -11), any other failure or a hang fails the calling test."""
    root = str(Path(solvers.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
    try:
        proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=root,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the solver did not return within {timeout} s")
    assert proc.returncode == 0, f"child exited with {proc.returncode} (-11: segfault)\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def run_isolated():
    """``run_isolated(code, timeout=180)``: the JSON printed last by ``code`` run in a child process."""
    return _run_isolated
