"""The layer-step benchmark: each model timed in a fresh process, the ratio to the quiet run, names checked."""
import pytest

from repset.bench.layer_step import compare, table, time_step


def test_models_are_timed_and_leave_torchs_threads_as_set():
    rows = compare(busy=[0, 1], models=["approx"], steps=2, threads=1)
    assert [(r["model"], r["mode"]) for r in rows] == [("approx", "eager")]
    assert all(r["busy 0"] > 0 and r["busy 1"] > 0 and r["torch threads after"] == 1 for r in rows)
    assert all(r["ratio 1/0"] == pytest.approx(r["busy 1"] / r["busy 0"]) for r in rows)
    lines = table(rows).splitlines()
    assert lines[0] == "| model | mode | busy 0 | torch threads after | busy 1 | ratio 1/0 |" and len(lines) == 3


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="unknown model 'lstm'; valid: repset-numba, repset-scipy, approx, sum"):
        time_step("lstm")
    with pytest.raises(ValueError, match="unknown mode 'jit'; valid: eager, compiled"):
        time_step("sum", "jit")
