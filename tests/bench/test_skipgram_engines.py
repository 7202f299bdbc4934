"""Tests of the skip-gram engines' benchmark (repset.bench.skipgram_engines)."""
import numpy as np
import pytest

pytest.importorskip("gensim")
pytest.importorskip("numba")

from repset.bench.skipgram_engines import main  # noqa: E402
from repset.embed.skipgram import EngineUnsupported, check_numba, new_model  # noqa: E402


def test_it_times_both_engines_on_the_first_lines_and_finds_them_equal(tmp_path, capsys):
    try:
        check_numba(new_model(np.ones(3, np.int64), 20, 2, 1, True, 5, 0, 1))
    except EngineUnsupported as e:
        pytest.skip(str(e))
    rng = np.random.default_rng(0)
    walks = rng.integers(0, 50, (40, 12))
    (tmp_path / "walks-0.txt").write_text("\n".join(" ".join(map(str, w)) for w in walks) + "\n")
    np.save(tmp_path / "walks-0.counts.npy", np.bincount(walks.ravel(), minlength=50))
    main(["--corpus", str(tmp_path / "walks-0.txt"), "--lines", "30"])
    out = capsys.readouterr().out
    assert "'tokens': 360" in out and "'bit_equal': True" in out
