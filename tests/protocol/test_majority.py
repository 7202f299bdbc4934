"""The majority-class predictor: the training sets' most frequent class on each split, scored on its test sets."""
import numpy as np
import pytest

from repset.protocol.majority import majority_runs, majority_summary


def test_each_split_predicts_its_training_majority():
    labels = np.array([0, 0, 1, 1, 1, 2, 2, 0])
    splits = [{"train": np.array([0, 1, 2]), "val": np.array([5]), "test": np.array([3, 4, 6, 7])},   # majority 0
              {"train": np.array([2, 3]), "val": np.array([4, 0]), "test": np.array([1, 5, 6, 7])},   # majority 1
              {"train": np.array([0, 2]), "test": np.array([1, 3])}]                                   # a tie: class 0
    runs = majority_runs(labels, splits, "toy")
    assert runs["majority"].tolist() == [0, 1, 0]
    assert runs["test_accuracy"].tolist() == pytest.approx([0.25, 0.0, 0.5])
    assert (runs["test_error"] + runs["test_accuracy"]).tolist() == pytest.approx([1.0] * 3)
    with pytest.raises(ValueError, match="toy: split 0 has no training or no test sets"):
        majority_runs(labels, [{"train": np.array([0]), "test": np.array([], dtype=int)}], "toy")


def test_the_summary_follows_the_reports_convention(tmp_path):
    from set_checks import tiny_text_store

    store = tiny_text_store(tmp_path / "bbcsport.npz", n_splits=3)
    row = majority_summary(store, "bbcsport").iloc[0]
    assert row["model"] == "majority" and row["splits"] == 3 and row["std_over"] == "splits"
    assert row["test_accuracy_mean"] + row["test_error_mean"] == pytest.approx(100.0)
    assert 0.0 < row["test_accuracy_mean"] <= 100.0 and row["class_rates"].count(":") == 2
    with pytest.raises(ValueError, match="3 splits, fewer than the 4 asked for"):
        majority_summary(store, "bbcsport", n_splits=4)


def test_write_majority_records_the_protocols_splits_and_the_store(tmp_path):
    import json

    from set_checks import tiny_text_store

    from repset.protocol.majority import write_majority
    from repset.report.document import reference_long

    store = tiny_text_store(tmp_path / "bbcsport.npz", n_splits=3)
    out = tmp_path / "results" / "majority" / "bbcsport.json"
    record = write_majority(store, "bbcsport", 2, out)
    assert json.loads(out.read_text()) == record and record["splits"] == 2
    assert record["store_sha256"] == json.loads(store.with_suffix(".json").read_text())["sha256"]
    row = reference_long([out]).iloc[0]
    assert row["method"] == "majority" and row["mean"] == pytest.approx(record["test_error_mean"])


def test_the_command_writes_the_reports_json_for_one_store(tmp_path, capsys):
    import json

    from set_checks import tiny_text_store

    from repset.protocol.majority import main, write_majority

    store = tiny_text_store(tmp_path / "bbcsport.npz", n_splits=3)
    main([str(store), "--splits", "2", "--out", str(tmp_path / "cli.json")])
    assert "| bbcsport  |" in capsys.readouterr().out
    expected = write_majority(store, "bbcsport", 2, tmp_path / "api.json")
    assert json.loads((tmp_path / "cli.json").read_text()) == expected
    with pytest.raises(SystemExit):
        main([str(store), str(store), "--out", str(tmp_path / "two.json")])
    assert not (tmp_path / "two.json").exists()
