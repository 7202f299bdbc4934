"""The report without stores: each store's sidecar as the records of its dataset name it, refused when a record is
missing or the records name two stores."""
import json

import pytest
import yaml

from repo_paths import ROOT
from repset.pipeline.report_record import record_sidecars
from repset.protocol.jobs import runs


@pytest.fixture
def config():
    c = yaml.safe_load((ROOT / "config.yaml").read_text())
    c["datasets"] = {"text": ["bbcsport"], "graph": ["MUTAG"]}
    c["protocol"].update(text_splits=2, graph_splits=3, grid_splits=None, per_dataset={})
    c["models"] = {"nn_max": c["models"]["nn_max"]}
    return c


def _write(root, config, dataset, meta_of=lambda i: {}):
    for i, run in enumerate(runs(config, [dataset])):
        path = root / run.path
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"file": f"{dataset}.vectors.npz", "sha256": "a" * 64, "meta": {"dataset": dataset}, **meta_of(i)}
        path.write_text(json.dumps({"store_meta": meta}))


def test_each_dataset_gives_the_sidecar_its_records_name(config, tmp_path):
    _write(tmp_path, config, "bbcsport")
    _write(tmp_path, config, "MUTAG", lambda i: {"file": "MUTAG.struc2vec.npz", "sha256": "b" * 64})
    out = record_sidecars(config, tmp_path)
    assert list(out) == ["bbcsport.vectors", "MUTAG.struc2vec"]            # the store's name: file without .npz
    assert out["MUTAG.struc2vec"]["sha256"] == "b" * 64 and out["bbcsport.vectors"]["meta"] == {"dataset": "bbcsport"}


def test_a_missing_record_and_two_stores_are_refused_by_dataset(config, tmp_path):
    _write(tmp_path, config, "bbcsport")
    with pytest.raises(ValueError, match=r"MUTAG: 3 of 3 records missing \(first: results/runs/MUTAG/.*restore it"):
        record_sidecars(config, tmp_path)
    _write(tmp_path, config, "MUTAG", lambda i: {"sha256": "c" * 64} if i == 2 else {})
    with pytest.raises(ValueError, match=r"MUTAG: its records name 2 stores \(sha256 aaaaaaaaaaaa, cccccccccccc\)"):
        record_sidecars(config, tmp_path)
