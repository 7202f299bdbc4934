"""Record members are parsed and checked against their path; archives are checked whole."""
import gzip
import io
import json
import tarfile

import pytest

from repset.pipeline.archive import RecordError, check_record, read_archive


def record(dataset, model, point, split, error=0.2):
    return {"dataset": dataset, "model": model, "point": point, "split": split, "seed": 0,
            "train_config": {"seed": 0}, "val": {"error": 0.1, "loss": 0.3}, "test": {"error": error},
            "epochs_run": 7, "best_epoch": 3, "train_seconds": 4.0, "grid_choice": None,
            "store_meta": {"sha256": "ab" * 32}, "provenance": {}}


def test_members_are_parsed_and_checked_against_their_path():
    good = json.dumps(record("bbcsport", "repset", "k10-m20", 0)).encode()
    assert check_record("bbcsport/repset/k10-m20/split0_seed0.json", good)["split"] == 0
    with pytest.raises(RecordError, match="not valid JSON"):
        check_record("bbcsport/repset/k10-m20/split0_seed0.json", good[:-5])
    with pytest.raises(RecordError, match=r"disagree with its path \(split 0 seed 0\)"):
        check_record("bbcsport/repset/k10-m20/split1_seed0.json", good)
    with pytest.raises(RecordError, match="test error 1.5"):
        check_record("bbcsport/repset/k10-m20/split0_seed0.json",
                     json.dumps(record("bbcsport", "repset", "k10-m20", 0, error=1.5)).encode())
    with pytest.raises(RecordError, match="not a run record: lacks model, point"):
        check_record("bbcsport/repset/k10-m20/split0_seed0.json", b'{"dataset": "bbcsport"}')


def test_grid_choices_and_study_records_are_checked_too():
    grid = {"dataset": "bbcsport", "model": "repset", "seed": 0, "point": "k10-m20", "per_split": {}}
    assert check_record("bbcsport/repset/grid_seed0.json", json.dumps(grid).encode())["point"] == "k10-m20"
    with pytest.raises(RecordError, match="seed 0"):
        check_record("bbcsport/repset/grid_seed1.json", json.dumps(grid).encode())
    study = {**record("bbcsport", "repset", "k10-m20", 2), "init": "small"}
    assert check_record("bbcsport/small/split2_seed0.json", json.dumps(study).encode())["init"] == "small"
    with pytest.raises(RecordError, match="dataset/init bbcsport/small"):
        check_record("bbcsport/normal/split2_seed0.json", json.dumps(study).encode())
    with pytest.raises(RecordError, match="not a study record: lacks init"):
        check_record("bbcsport/small/split2_seed0.json", json.dumps(record("bbcsport", "repset", "k10-m20", 2)).encode())


def test_a_repetitions_grid_choice_is_checked_against_the_datasets_repetitions():
    """grid_seed<s>_rep<r>.json (grid_scope: repetition): r in 1..9 for a graph dataset's 10 x 10 CV, its searched
    splits among repetition r's folds; a text dataset, repetition 0 or 10 and a fold of another repetition refused."""
    def choice(dataset, per_split):
        return json.dumps({"dataset": dataset, "model": "repset", "seed": 0, "point": "k10-m20",
                           "per_split": per_split}).encode()

    assert check_record("MUTAG/repset/grid_seed0_rep1.json", choice("MUTAG", {"10": "k10-m20"}))["point"] == "k10-m20"
    assert check_record("MUTAG/repset/grid_seed0_rep9.json", choice("MUTAG", {"90": "k10-m20", "91": "k10-m30"}))
    assert check_record("MUTAG/repset/grid_seed0.json", choice("MUTAG", {"0": "k10-m20", "10": "k10-m20"}))  # protocol
    refused = {
        "MUTAG/repset/grid_seed0_rep1.json": (choice("MUTAG", {"0": "k10-m20", "10": "k10-m20"}),
                                              r"per_split splits 0 outside repetition 1's folds 10..19"),
        "MUTAG/repset/grid_seed0_rep10.json": (choice("MUTAG", {}), r"repetition 10 of MUTAG, whose repetitions after "
                                                                      r"the first are 1..9"),
        "MUTAG/repset/grid_seed0_rep0.json": (choice("MUTAG", {"0": "k10-m20"}), r"the first repetition's is "
                                                                                 r"grid_seed<s>.json"),
        "bbcsport/repset/grid_seed0_rep1.json": (choice("bbcsport", {"1": "k10-m20"}),
                                                 "repetition 1 of bbcsport, which has no CV repetitions"),
        "MUTAG/repset/grid_seed1_rep1.json": (choice("MUTAG", {"10": "k10-m20"}), r"\(seed 0\)"),
    }
    for name, (data, message) in refused.items():
        with pytest.raises(RecordError, match=f"{name}: its fields disagree with its path .*{message}"):
            check_record(name, data)


def test_an_archive_is_read_whole_and_checked(tmp_path):
    members = {"bbcsport/repset/k10-m20/split0_seed0.json": json.dumps(record("bbcsport", "repset", "k10-m20", 0)).encode()}
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    archive = tmp_path / "records" / "bbcsport.tar.gz"
    archive.parent.mkdir()
    archive.write_bytes(buffer.getvalue())
    assert read_archive(archive) == members
    with pytest.raises(RecordError, match="sha256 differs"):
        read_archive(archive, expected_sha256="0" * 64)
    archive.write_bytes(buffer.getvalue()[:-4])                      # gzip's length field cut: tar alone reads on
    with pytest.raises(RecordError, match="bbcsport.tar.gz: damaged archive"):
        read_archive(archive)


def test_contradicting_fields_are_named():
    from repset.pipeline.archive import contradictions

    good = {**record("MUTAG", "repset", "k10-m20", 0, error=0.25), "sizes": {"test": 4, "val": 10},
            "train_config": {"seed": 0, "epochs": 7}}
    good["test"]["accuracy"] = 0.75
    assert contradictions(good) == []
    assert contradictions({**good, "test": {"error": 0.34, "accuracy": 0.95}}) == [
        "test accuracy 0.95 beside test error 0.34", "test error 0.34 is no multiple of 1/4 (4 test sets)"]
    assert contradictions({**good, "best_epoch": 7}) == ["best epoch 7 (from 0) outside the 7 epochs run"]
    assert contradictions({**good, "epochs_run": 9, "best_epoch": 2}) == ["9 epochs run of train_config.epochs 7"]
    assert contradictions({**good, "seed": 1}) == ["seed 1 beside train_config.seed 0"]
    assert contradictions({**good, "provenance": {"git_diff": "a change", "git_diff_sha256": "0" * 64}}) == [
        "provenance.git_diff does not have its git_diff_sha256"]
    with pytest.raises(RecordError, match=r"split0_seed1.json: its fields contradict each other \(seed 1 beside "
                                          r"train_config.seed 0\)"):
        check_record("MUTAG/repset/k10-m20/split0_seed1.json", json.dumps({**good, "seed": 1}).encode())
