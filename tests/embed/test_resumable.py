"""Tests of the resumable struc2vec build (repset.embed.resumable): stopped anywhere, resumed, the same bits."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

nx = pytest.importorskip("networkx")
gensim_models = pytest.importorskip("gensim.models")

from repset.embed import struc2vec  # noqa: E402
from repset.embed.resumable import (CheckpointBusy, CheckpointMismatch, END_ALPHA, START_ALPHA, _alpha, _eta,  # noqa: E402
                                    held)

KW = dict(walks_per_node=3, walk_length=30, epochs=2, layers=3, variant="reference", seed=5)


def graph():
    G = nx.disjoint_union(nx.karate_club_graph(), nx.barbell_graph(5, 3))
    return G.number_of_nodes(), np.array(G.edges())


class Stop(Exception):
    pass


def stop_after(monkeypatch, calls: int) -> None:
    """Make the ``calls + 1``-th skip-gram chunk fail mid-way, as a killed process would."""
    real, seen = gensim_models.Word2Vec.train, []

    def train(self, *args, **kwargs):
        seen.append(1)
        if len(seen) > calls:
            raise Stop
        return real(self, *args, **kwargs)

    monkeypatch.setattr(gensim_models.Word2Vec, "train", train)


def test_interrupted_and_resumed_equals_uninterrupted(tmp_path, monkeypatch):
    n, e = graph()
    whole = struc2vec(n, e, 8, checkpoint_dir=tmp_path / "whole", **KW)
    assert whole.shape == (n, 8) and np.isfinite(whole).all()
    for calls in (0, 1, 4):   # stopped in the first chunk, the second, the last (6 chunks: 2 epochs x 3 rounds)
        folder = tmp_path / f"stopped{calls}"
        with monkeypatch.context() as m:
            stop_after(m, calls)
            with pytest.raises(Stop):
                struc2vec(n, e, 8, checkpoint_dir=folder, **KW)
        if calls:
            assert json.loads((folder / "skipgram" / "chunks.json").read_text())["chunks_done"] == calls
        np.testing.assert_array_equal(struc2vec(n, e, 8, checkpoint_dir=folder, **KW), whole)


def test_walk_rounds_resume_where_they_stopped(tmp_path):
    n, e = graph()
    whole = struc2vec(n, e, 8, checkpoint_dir=tmp_path / "a", **KW)
    folder = tmp_path / "b"
    struc2vec(n, e, 8, checkpoint_dir=folder, **KW)
    (folder / "walks-1.counts.npy").unlink()   # round 1 unfinished: written again, the same bytes
    (folder / "walks-1.txt").write_text("")
    for path in (folder / "skipgram").iterdir():   # and the skip-gram from the start
        path.unlink()
    (folder / "skipgram").rmdir()
    np.testing.assert_array_equal(struc2vec(n, e, 8, checkpoint_dir=folder, **KW), whole)
    assert (folder / "walks-1.txt").read_bytes() == (tmp_path / "a" / "walks-1.txt").read_bytes()


def test_a_checkpoint_of_other_inputs_is_refused(tmp_path):
    n, e = graph()
    struc2vec(n, e, 8, checkpoint_dir=tmp_path, **{**KW, "epochs": 1})
    with pytest.raises(CheckpointMismatch, match=str(tmp_path)):
        struc2vec(n, e, 8, checkpoint_dir=tmp_path, **KW)
    with pytest.raises(CheckpointMismatch):
        struc2vec(n, e[1:], 8, checkpoint_dir=tmp_path, **{**KW, "epochs": 1})


HOLD = """import sys, time
from repset.embed.resumable import held
with held(sys.argv[1]):
    print("held", flush=True)
    time.sleep(120)
"""


def test_a_folder_another_build_holds_is_refused_and_a_killed_holder_frees_it(tmp_path):
    n, e = graph()
    folder = tmp_path / "ckpt"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(CheckpointBusy, match=str(folder)):
            struc2vec(n, e, 8, checkpoint_dir=folder, **KW)
        assert not folder.exists()                                       # nothing written
        assert [p.name for p in tmp_path.iterdir()] == ["ckpt.lock"]     # the lock lives beside the folder
    finally:
        holder.kill()
        holder.wait()
    assert struc2vec(n, e, 8, checkpoint_dir=folder, **KW).shape == (n, 8)   # a killed holder leaves no lock


def test_a_hold_nests_in_its_process_and_frees_the_folder_when_the_outer_one_ends(tmp_path):
    folder = tmp_path / "ckpt"
    probe = [sys.executable, "-c", HOLD.replace("time.sleep(120)", "pass"), str(folder)]
    with held(folder):
        with held(folder):          # the pipeline holds the folder around struc2vec, which holds it too
            pass
        refused = subprocess.run(probe, capture_output=True, text=True)   # the inner release kept the lock
        assert refused.returncode != 0 and "CheckpointBusy" in refused.stderr and str(folder) in refused.stderr
    assert subprocess.run(probe, capture_output=True, text=True).stdout.strip() == "held"


def test_learning_rate_schedule_is_one_linear_decay():
    assert _alpha(0, 100) == START_ALPHA and _alpha(100, 100) == pytest.approx(END_ALPHA)
    assert _alpha(50, 100) == pytest.approx((START_ALPHA + END_ALPHA) / 2)


def test_the_eta_is_timed_at_this_runs_rate():
    assert _eta(trained=36_000, seconds=10.0, left=3_600 * 3_600 * 2) == \
        "25,920,000 tokens left, ETA 2.0 h at this run's 3,600 tokens/s"
    assert _eta(trained=36_000, seconds=10.0, left=0) == "done"


def test_a_build_stopped_on_gensim_and_resumed_on_the_numba_engine_equals_gensims(tmp_path, monkeypatch):
    pytest.importorskip("numba")
    from repset.embed.skipgram import EngineUnsupported, check_numba, new_model
    try:
        check_numba(new_model(np.ones(3, np.int64), 8, 2, 1, True, 5, 0, 1))
    except EngineUnsupported as e:                     # another BLAS or gensim: nothing to compare bit for bit
        pytest.skip(str(e))
    n, e = graph()
    whole = struc2vec(n, e, 8, checkpoint_dir=tmp_path / "whole", **KW)
    folder = tmp_path / "switched"
    with monkeypatch.context() as m:
        stop_after(m, 2)                               # two chunks by gensim, then the rest by the numba kernels
        with pytest.raises(Stop):
            struc2vec(n, e, 8, checkpoint_dir=folder, **KW)
    np.testing.assert_array_equal(struc2vec(n, e, 8, checkpoint_dir=folder, skipgram_engine="numba", **KW), whole)
    np.testing.assert_array_equal(struc2vec(n, e, 8, skipgram_engine="numba", **KW), struc2vec(n, e, 8, **KW))
