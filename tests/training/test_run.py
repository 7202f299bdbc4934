"""One training run on one split: the record and its checks."""
import pytest
from set_checks import two_class_sets

from repset.training.run import train_run
from repset.training.trainer import TrainConfig


def test_train_run_record():
    data, split = two_class_sets()
    record, model = train_run(data, split, "approx_repset", {"n_hidden_sets": 4, "hidden_set_size": 2},
                              TrainConfig(epochs=30, batch_size=8, lr=0.05, patience=10))
    assert record["sizes"] == {"train": 20, "val": 10, "test": 10}
    assert record["test"]["accuracy"] >= 0.9 and record["val"]["error"] <= 0.1
    assert 1 <= record["epochs_run"] <= 30
    with pytest.raises(ValueError, match="no 'val' part"):
        train_run(data, {"train": split["train"], "test": split["test"]}, "repset", {}, TrainConfig())


def test_train_run_records_hidden_movement_and_initial_weight():
    data, split = two_class_sets()
    snapshots = {}
    record, model = train_run(data, split, "repset", {"n_hidden_sets": 2, "hidden_set_size": 2},
                              TrainConfig(epochs=3, batch_size=8, lr=0.05, patience=None), snapshots=snapshots)
    initial = snapshots["initial_weight"]
    assert initial.shape == model.layer.weight.shape and not initial.equal(model.layer.weight.detach())
    assert record["hidden_movement"] == pytest.approx(model.layer.movement(initial))
    assert 0 < record["hidden_movement"]["displacement_norm"] and record["hidden_movement"]["cosine_to_initial"] < 1
    baseline, _ = train_run(data, split, "deepsets", {}, TrainConfig(epochs=1, batch_size=8))
    assert baseline["hidden_movement"] is None             # no hidden sets
