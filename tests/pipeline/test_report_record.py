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


def test_a_majority_row_of_another_protocol_or_store_is_refused_with_its_command(config, tmp_path):
    from repset.pipeline.report_record import check_majority

    sidecars = {"MUTAG.struc2vec": {"file": "MUTAG.struc2vec.npz", "sha256": "b" * 64, "meta": {"dataset": "MUTAG"}}}
    path = tmp_path / "MUTAG.json"
    for splits, store in ((3, "b" * 64), (10, "b" * 64), (3, "c" * 64)):
        path.write_text(json.dumps({"dataset": "MUTAG", "splits": splits, "store_sha256": store}))
        if (splits, store) == (3, "b" * 64):       # the config's 3 folds, the records' store
            check_majority([path], config, sidecars)
            continue
        with pytest.raises(ValueError, match=rf"MUTAG.json: the majority class over {splits} splits of the store "
                                             rf"{store[:12]}, but the config's protocol has 3 and the records read "
                                             r"bbbbbbbbbbbb; compute it again on that store: python -m "
                                             r"repset.protocol.majority data/sets/MUTAG.struc2vec.npz --dataset MUTAG "
                                             r"--splits 3 --out .*MUTAG.json"):
            check_majority([path], config, sidecars)


def test_a_budget_of_another_protocol_is_refused(config, tmp_path):
    from repset.pipeline.report_record import check_budget

    page, jobs = tmp_path / "protocol.md", len(runs(config))
    override = " MUTAG (`protocol.per_dataset`): 2 of the 10 x 10 folds, the grid searched on the first split only."
    page.write_text(f"laid out as the workflow's jobs.\n\n**Total: 1.0 CPU hours in {jobs} training jobs; ...**\n")
    check_budget(page, config)
    page.write_text(f"jobs.{override}\n\n**Total: 1.0 CPU hours in {jobs} training jobs; ...**\n")
    with pytest.raises(ValueError, match=r"protocol.md: a budget of \d+ training jobs with the overrides \{'MUTAG': "
                                         r"'2 of the 10 x 10 folds, .*the overrides none: make it again"):
        check_budget(page, config)
    page.write_text(f"**Total: 1.0 CPU hours in {jobs + 1} training jobs**\n")
    with pytest.raises(ValueError, match=rf"a budget of {jobs + 1} training jobs .* has {jobs} jobs"):
        check_budget(page, config)
    from repset.protocol.plan import describe_override
    for override in ({"graph_splits": 2, "grid_splits": 1}, {"graph_splits": 20, "grid_splits": 1,
                                                             "grid_scope": "repetition"}, {}):   # {}: no words
        config["protocol"]["per_dataset"] = {"MUTAG": override}
        page.write_text(f"jobs. MUTAG (`protocol.per_dataset`): {describe_override(config, 'MUTAG')}.\n\n"
                        f"**Total: 1.0 CPU hours in {len(runs(config))} training jobs**\n")
        check_budget(page, config)


def test_a_text_datasets_majority_row_is_checked_by_its_store_name(config, tmp_path):
    """A text store's sidecar may name no dataset: its file stem does (bbcsport.glove-6b-50d); 2 random splits here;
    a row of a dataset whose records name no store is refused by name."""
    from repset.pipeline.report_record import check_majority

    sidecars = {"bbcsport.glove-6b-50d": {"file": "bbcsport.glove-6b-50d.npz", "sha256": "d" * 64, "meta": {}}}
    path = tmp_path / "bbcsport.json"
    path.write_text(json.dumps({"dataset": "bbcsport", "splits": 2, "store_sha256": "d" * 64}))
    check_majority([path], config, sidecars)
    path.write_text(json.dumps({"dataset": "bbcsport", "splits": 5, "store_sha256": "d" * 64}))
    with pytest.raises(ValueError, match=r"over 5 splits .* protocol has 2 .* data/sets/bbcsport.glove-6b-50d.npz "
                                         r"--dataset bbcsport --splits 2"):
        check_majority([path], config, sidecars)
    path.write_text(json.dumps({"dataset": "MUTAG", "splits": 3, "store_sha256": "d" * 64}))
    with pytest.raises(ValueError, match=r"bbcsport.json: a majority-class row of MUTAG, whose records name no store"):
        check_majority([path], config, sidecars)
