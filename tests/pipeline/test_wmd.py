"""WMD kNN over a store's splits: each finished split checkpointed, a stopped job resuming there."""
from __future__ import annotations

import json

import numpy as np
import pytest

import repset.pipeline.wmd as wmd_module
from repset.datasets.registry import random_splits
from repset.datasets.store import SetCollection, save_store
from repset.pipeline.wmd import wmd_eval

CONFIG = {"data": {"wmd_mat_dir": None}, "protocol": {"text_splits": 2, "graph_splits": 10, "seeds": [0]}}


def word_store(tmp_path, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.repeat([0, 1], 12)
    lengths = rng.integers(2, 6, len(labels))
    ids = np.concatenate([rng.integers(0, 5, n) + 5 * lab for n, lab in zip(lengths, labels)]).astype(np.int32)
    coll = SetCollection(offsets=np.concatenate([[0], np.cumsum(lengths)]), labels=labels, class_names=["a", "b"],
                         splits=random_splits(labels, 2, seed=0), vectors=rng.normal(size=(10, 3)).astype(np.float32),
                         element_ids=ids, vocab=[f"w{i}" for i in range(10)], meta={"dataset": "bbcsport"})
    return save_store(tmp_path / "bbcsport.test.npz", coll)


def test_a_stopped_job_resumes_at_its_first_unfinished_split(tmp_path, monkeypatch):
    store, ckpt = word_store(tmp_path), tmp_path / "splits"
    full = wmd_eval(str(store), "bbcsport", CONFIG, str(tmp_path / "a.json"), checkpoints=str(ckpt))
    assert sorted(p.name for p in ckpt.iterdir()) == ["split0.json", "split1.json"]
    (ckpt / "split1.json").unlink()                     # as if stopped during split 1
    calls = []
    real = wmd_module.wmd_knn
    monkeypatch.setattr(wmd_module, "wmd_knn", lambda *a, **k: calls.append(1) or real(*a, **k))
    resumed = wmd_eval(str(store), "bbcsport", CONFIG, str(tmp_path / "b.json"), checkpoints=str(ckpt))
    assert len(calls) == 1                              # split 0 read back, split 1 computed
    assert [{k: r[k] for k in ("split", "error", "k", "val_errors")} for r in resumed["records"]] == \
        [{k: r[k] for k in ("split", "error", "k", "val_errors")} for r in full["records"]]
    assert resumed["test_error_mean"] == pytest.approx(full["test_error_mean"])


def test_a_checkpoint_of_other_inputs_is_not_reused(tmp_path, monkeypatch):
    ckpt = tmp_path / "splits"
    wmd_eval(str(word_store(tmp_path)), "bbcsport", CONFIG, str(tmp_path / "a.json"), checkpoints=str(ckpt))
    before = json.loads((ckpt / "split0.json").read_text())["key"]
    other = tmp_path / "other"
    other.mkdir()
    calls = []
    real = wmd_module.wmd_knn
    monkeypatch.setattr(wmd_module, "wmd_knn", lambda *a, **k: calls.append(1) or real(*a, **k))
    wmd_eval(str(word_store(other, seed=1)), "bbcsport", CONFIG, str(tmp_path / "b.json"), checkpoints=str(ckpt))
    assert len(calls) == 2 and json.loads((ckpt / "split0.json").read_text())["key"] != before
