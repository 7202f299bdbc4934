"""Numba as the solvers run it (solvers.runtime): loaded on first use, a fork-safe threading layer, its
cache outside the source tree, thread counts per call, and concurrent callers serialised where needed."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from repo_paths import ROOT

pytest.importorskip("numba")

from solvers import get_solver, runtime  # noqa: E402


def test_building_a_numba_solver_loads_no_numba(run_isolated):
    """A layer's constructor builds its solver: no Numba import, no compilation, no pool until a call."""
    out = run_isolated("""
        import json, sys
        from solvers import get_solver
        solver = get_solver("numba")
        before = "numba" in sys.modules
        solver.solve([[1.0, 2.0], [3.0, 1.0]])
        print(json.dumps([before, "numba" in sys.modules]))
    """)
    assert out == [False, True]


def test_the_cache_lives_in_the_users_cache_directory(monkeypatch, tmp_path):
    from solvers import jv_dense, shared_rows

    for kernel in (jv_dense.jv_kernel, shared_rows.shared_rows_kernel):
        path = Path(kernel._cache._cache_path)
        assert runtime.cache_dir() in path.parents and ROOT not in path.parents
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert runtime.cache_dir() == tmp_path / "repset" / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert runtime.cache_dir() == tmp_path / "mine"


def test_the_threading_layer_is_fork_safe_unless_the_user_chose():
    numba = runtime.load()
    if "NUMBA_THREADING_LAYER" in os.environ:
        pytest.skip("the user chose Numba's threading layer")
    assert numba.threading_layer() in ("tbb", "workqueue")


def test_a_kernel_runs_on_the_count_of_its_threads_block_and_leaves_the_callers():
    numba = runtime.load()

    @runtime.njit(parallel=True)
    def counts(out):
        for i in numba.prange(len(out)):
            out[i] = numba.get_num_threads()

    before = numba.get_num_threads()
    out = np.zeros(4, dtype=np.int64)
    with runtime.threads(1):
        runtime.run(counts, out)
        assert set(out) == {1}
        assert runtime.current_threads(5) == min(5, numba.config.NUMBA_NUM_THREADS)   # an explicit count wins
    runtime.run(counts, out)
    assert set(out) == {before} and numba.get_num_threads() == before
    with pytest.raises(ValueError, match="threads must lie in"):
        get_solver("numba", threads=numba.config.NUMBA_NUM_THREADS + 1)


def test_solvers_called_from_several_python_threads_at_once(run_isolated):
    """The workqueue layer runs one parallel call at a time and kills the process on a concurrent one;
    the runtime serialises the calls."""
    out = run_isolated("""
        import json, threading
        import numpy as np
        from solvers import get_solver
        solver = get_solver("numba")
        weights = np.random.default_rng(0).random((64, 8, 7, 6))
        want = solver.solve(weights).value
        results = []
        def work():
            for _ in range(20):
                results.append(bool(np.array_equal(solver.solve(weights).value, want)))
        threads = [threading.Thread(target=work) for _ in range(4)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        print(json.dumps([len(results), all(results)]))
    """)
    assert out == [80, True]

