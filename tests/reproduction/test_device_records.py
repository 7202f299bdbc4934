"""reproduction/device_records.py: a GPU call's records join a clone only where it lacks them, only of its store,
and a record of another store stops the collection before anything is written."""
import hashlib
import importlib.util
import io
import json
import tarfile

import pytest
from repo_paths import ROOT

spec = importlib.util.spec_from_file_location("device_records", ROOT / "reproduction" / "device_records.py")
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)

STORE = "a" * 64


def _archive(path, files):
    with tarfile.open(path, "w:gz") as tar:
        for name, payload in files.items():
            data = json.dumps(payload).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _record(model, store=STORE, dataset="REDDIT-BINARY"):
    return {"dataset": dataset, "model": model, "store_meta": {"sha256": store}}


@pytest.fixture
def clone(tmp_path):
    clone = tmp_path / "clone"
    own = clone / "results/runs/REDDIT-BINARY/repset/k10-m20/split0_seed0.json"
    own.parent.mkdir(parents=True)
    own.write_text('{"own": true}')
    return clone


def test_only_missing_records_of_the_store_are_added_and_the_clones_own_are_kept(tmp_path, clone):
    runs = "results/runs/REDDIT-BINARY"
    archive = _archive(tmp_path / "records.tar.gz", {
        f"{runs}/repset/k10-m20/split0_seed0.json": _record("repset"),           # the clone has it
        f"{runs}/repset/k10-m20/split99_seed0.json": _record("repset"),
        f"{runs}/set_transformer/default/split98_seed0.json": _record("set_transformer"),
        f"{runs}/repset/grid_seed0_rep9.json": {"point": "k10-m20"},             # a grid choice: the clone's own
        "results/runs/MUTAG/repset/k10-m20/split0_seed0.json": _record("repset", dataset="MUTAG"),
    })
    out = script.collect(archive, clone, "REDDIT-BINARY", STORE)
    assert out["kept"] == 1
    assert out["added"] == [f"{runs}/repset/k10-m20/split99_seed0.json",
                            f"{runs}/set_transformer/default/split98_seed0.json"]
    assert out["models"] == {"repset": 1, "set_transformer": 1}
    assert (clone / runs / "repset/k10-m20/split0_seed0.json").read_text() == '{"own": true}'
    assert json.loads((clone / runs / "repset/k10-m20/split99_seed0.json").read_text()) == _record("repset")
    assert not (clone / runs / "repset/grid_seed0_rep9.json").exists()
    assert not (clone / "results/runs/MUTAG").exists()
    assert not list(clone.rglob("*.part"))


def test_a_record_of_another_store_stops_everything_before_a_write(tmp_path, clone):
    runs = "results/runs/REDDIT-BINARY"
    archive = _archive(tmp_path / "records.tar.gz", {
        f"{runs}/repset/k10-m20/split97_seed0.json": _record("repset"),
        f"{runs}/repset/k10-m20/split98_seed0.json": _record("repset", store="b" * 64),
    })
    with pytest.raises(SystemExit, match="split98_seed0.json is of dataset REDDIT-BINARY and store bbbb"):
        script.collect(archive, clone, "REDDIT-BINARY", STORE)
    assert sorted(p.name for p in (clone / runs).rglob("*.json")) == ["split0_seed0.json"]


def test_the_store_sha256_is_the_sidecars_and_checked_against_the_file(tmp_path):
    sets = tmp_path / "data" / "sets"
    sets.mkdir(parents=True)
    (sets / "REDDIT-BINARY.struc2vec.npz").write_bytes(b"planes")
    digest = hashlib.sha256(b"planes").hexdigest()
    (sets / "REDDIT-BINARY.struc2vec.json").write_text(json.dumps({"format": "repset-sets/1", "sha256": digest}))
    assert script.store_sha256(tmp_path, "REDDIT-BINARY") == digest
    (sets / "REDDIT-BINARY.struc2vec.npz").write_bytes(b"other")
    with pytest.raises(SystemExit, match="its sidecar REDDIT-BINARY.struc2vec.json names"):
        script.store_sha256(tmp_path, "REDDIT-BINARY")
