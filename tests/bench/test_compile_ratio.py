"""The compile-ratio benchmark: eager and compiled steps of one model alternate; the ratio is theirs."""
import pytest

from repset.bench.compile_ratio import build_model, main, ratio


def test_the_ratio_is_compiled_over_eager_per_round():
    r = ratio("sum", rounds=2, steps=1)
    assert r["eager_ms"] > 0 and r["compiled_ms"] > 0
    assert r["ratio_min"] <= r["ratio"] <= r["ratio_max"]


def test_the_table_runs_each_model_in_a_fresh_process(capsys):
    main(["--models", "sum", "--rounds", "1", "--steps", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| model | eager ms | compiled ms |") and len(lines) == 3 and lines[2].startswith("| sum |")


def test_an_unknown_model_is_refused():
    with pytest.raises(ValueError, match="unknown model 'lstm'; valid: repset, approx, sum"):
        build_model("lstm")
