"""NaN, infinite and negative weights raise ValueError naming the problem, whatever ``check_values`` says.

The Numba kernels used to segfault (rc 139) or loop forever on inf with ``check_values=False`` and to
return a finite wrong value on NaN: they now validate every problem as they read it. Those cases run
in a child process, so that a crash or hang fails the test instead of killing pytest.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from solvers import get_solver

#: child code: every case for one solver (``NAME``), each with check_values False and True
CHILD = """
import json
import numpy as np
from solvers import get_solver

solver = get_solver(NAME)
rng = np.random.default_rng(0)
crash = rng.random((4, 5, 6, 7))
crash[rng.random(crash.shape) < 0.3] = np.inf          # rc 139 with check_values=False before
layer = np.maximum(rng.normal(size=(6 * 9, 8)) @ rng.normal(size=(8, 4 * 5)), 0).astype(np.float32)
layer = layer.reshape(6, 9, 4, 5).transpose(0, 2, 1, 3)  # the layer's strided (B, m, N, K) view
inf_layer, nan_layer = layer.copy(), layer.copy()
inf_layer[3, 1, 2, 4] = np.inf
nan_layer[1, 2, 0, 0] = np.nan
negative = rng.random((3, 4, 4))
negative[2, 1, 1] = -0.5
cases = {"crash": crash, "all_inf": np.full((2, 2), np.inf), "inf_layer": inf_layer, "nan_layer": nan_layer,
         "nan_2d": np.array([[1.0, np.nan], [2.0, 3.0]]), "minus_inf": np.full((3, 3, 3), -np.inf),
         "negative": negative}
out = {}
for key, w in cases.items():
    for check in (False, True):
        try:
            out[f"{key} {check}"] = repr(solver.solve(w, check_values=check).value.tolist())
        except ValueError as err:
            out[f"{key} {check}"] = "ValueError: " + str(err)
padded = layer.copy()
padded[:, :, 7:, :] = np.nan                             # padding is never read by the kernels
rows = np.full((6, 1), 7)
out["padding"] = [solver.solve(padded, rows, check_values=False).value.tolist(),
                  get_solver("scipy").solve(layer, rows).value.tolist()]
print(json.dumps(out))
"""

EXPECTED = {
    "crash": r"problem \(0, 0\) of the batch contain NaN or infinite entries",
    "all_inf": r"weights of the problem contain NaN or infinite entries",
    "inf_layer": r"problem \(3, 1\) of the batch contain NaN or infinite entries",
    "nan_layer": r"problem \(1, 2\) of the batch contain NaN or infinite entries",
    "nan_2d": r"weights of the problem contain NaN or infinite entries",
    "minus_inf": r"problem \(0,\) of the batch contain NaN or infinite entries",
    "negative": r"problem \(2,\) of the batch must be nonnegative",
}


@pytest.mark.parametrize("name", ["numba", "auction"])
def test_kernels_reject_non_finite_weights_even_unchecked(run_isolated, name):
    pytest.importorskip("numba")
    out = run_isolated(f"NAME = {name!r}\n" + CHILD)
    for key, pattern in EXPECTED.items():
        for check in (False, True):
            got = out[f"{key} {check}"]
            assert got.startswith("ValueError: "), (key, check, got)
            assert re.search(pattern, got), (key, check, got)
    got, want = out["padding"]
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("name", ["scipy", "brute", "lp"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_other_solvers_always_check_finiteness(name, bad):
    """Solvers without an in-kernel check scan the weights even with ``check_values=False``
    (brute force used to return 4.0 on NaN and inf on inf, lp and scipy raised unrelated errors)."""
    if name == "lp":
        pytest.importorskip("cvxpy")
    w = np.ones((3, 2, 2))
    w[1, 0, 1] = bad
    with pytest.raises(ValueError, match=r"weights of problem \(1,\) of the batch contain NaN or infinite entries"):
        get_solver(name).solve(w, check_values=False)


def test_unchecked_and_checked_calls_agree_on_valid_input():
    """Unchecked and checked calls agree exactly on valid (strided, ragged) input."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(3)
    w = rng.random((5, 4, 9, 6)).astype(np.float32).transpose(0, 1, 3, 2)
    rows = rng.integers(0, 7, size=(5, 1))
    for name in ["numba", "auction"]:
        solver = get_solver(name)
        a, b = solver.solve(w, rows, check_values=False), solver.solve(w, rows)
        np.testing.assert_array_equal(a.value, b.value)
        np.testing.assert_array_equal(a.assignment, b.assignment)
