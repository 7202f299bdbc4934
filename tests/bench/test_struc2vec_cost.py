"""struc2vec cost bench: its setting strings, fastText's objectives, and the skip-gram timing of a given walk round."""
import sys

import numpy as np
import pytest

from repset.bench.struc2vec_cost import _setting, fasttext_rate, main


def test_a_setting_names_its_library_and_defaults_to_the_reference_objective():
    assert _setting("") == ("gensim", {"hs": True, "negative": 5, "workers": 1})
    assert _setting("hs=0 negative=5 workers=2 library=fasttext") == ("fasttext",
                                                                       {"hs": False, "negative": 5, "workers": 2})
    for bad in ("hs=1 window=5", "library=torch", "library=fasttext", "hs=0 negative=0 library=fasttext"):
        with pytest.raises(ValueError, match="--skipgram"):
            _setting(bad)


def test_fasttext_has_one_objective_at_a_time_and_says_how_to_install_it(tmp_path, monkeypatch):
    corpus = tmp_path / "walks-0.txt"
    corpus.write_text("0 1 2\n")
    for hs, negative in ((True, 5), (False, 0)):
        with pytest.raises(ValueError, match="not both or neither"):
            fasttext_rate(str(corpus), 10, hs, negative, 1)
    monkeypatch.setitem(sys.modules, "fasttext", None)
    with pytest.raises(ImportError, match="pip install fasttext-numpy2"):
        fasttext_rate(str(corpus), 10, True, 0, 1)


def _round(tmp_path, n_nodes=30, walks=40, length=20):
    rng = np.random.default_rng(0)
    walk = rng.integers(0, n_nodes, (walks, length))
    corpus = tmp_path / "walks-0.txt"
    corpus.write_text("".join(" ".join(map(str, w)) + "\n" for w in walk))
    np.save(tmp_path / "walks-0.counts.npy", np.bincount(walk.ravel(), minlength=n_nodes))
    return corpus, walk.size


def test_a_given_round_is_timed_without_building_a_graph(tmp_path):
    corpus, tokens = _round(tmp_path)
    table = main(["--corpus", str(corpus), "--tokens", str(tokens), "--walks-per-node", "2", "--epochs", "3",
                  "--skipgram", "hs=1 negative=5 workers=1", "hs=1 negative=0 workers=2"])
    assert list(table["skipgram"]) == ["hs=1 negative=5 workers=1", "hs=1 negative=0 workers=2"]
    assert (table["nodes"] == 30).all() and (table["tokens_per_s"] > 0).all()
    assert table["per_thread"][0] == table["tokens_per_s"][0]
    assert abs(table["per_thread"][1] * 2 - table["tokens_per_s"][1]) <= 2     # each rounded from one rate
    # the whole build is 2 x 3 rounds of the round's tokens at the timed rate
    hours = tokens * 6 / table["tokens_per_s"] / 3600
    assert np.allclose(table["skipgram_h"], hours.round(2), atol=0.01)


def test_a_round_without_its_counts_and_a_bad_setting_fail_before_any_work(tmp_path, monkeypatch):
    corpus, _ = _round(tmp_path)
    with pytest.raises(ValueError, match="--skipgram"):
        main(["--corpus", str(corpus), "--skipgram", "hs=1 library=word2vec"])
    with pytest.raises(ValueError, match="not both or neither"):
        main(["--corpus", str(corpus), "--skipgram", "hs=1 negative=5", "hs=1 negative=5 library=fasttext"])
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "fasttext", None)
        with pytest.raises(ImportError, match="pip install fasttext-numpy2"):
            main(["--corpus", str(corpus), "--skipgram", "hs=1 negative=5", "hs=1 negative=0 library=fasttext"])
    (tmp_path / "walks-0.counts.npy").unlink()
    with pytest.raises(FileNotFoundError, match="walks-0.counts.npy"):
        main(["--corpus", str(corpus)])


def test_a_fasttext_failure_is_a_row_of_its_own_and_the_other_settings_go_on(tmp_path, monkeypatch):
    import repset.bench.struc2vec_cost as bench

    def nan(*args, **kwargs):
        raise RuntimeError("Encountered NaN.")

    monkeypatch.setattr(bench, "fasttext_rate", nan)
    monkeypatch.setattr(bench, "_fasttext", lambda: None)      # the bindings, whether installed or not
    corpus, tokens = _round(tmp_path)
    table = main(["--corpus", str(corpus), "--tokens", str(tokens),
                  "--skipgram", "hs=1 negative=0 library=fasttext", "hs=1 negative=0"])
    assert table["error"][0] == "Encountered NaN." and np.isnan(table["tokens_per_s"][0])
    assert table["tokens_per_s"][1] > 0 and not isinstance(table["error"][1], str)
