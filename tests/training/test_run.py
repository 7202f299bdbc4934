"""One training run on one split: the record and its checks."""
import numpy as np
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


@pytest.mark.parametrize("change, message", [
    ({"test": np.array([3, -1])}, r"split\['test'\] has index -1 outside 0\.\.39 \(40 sets\)"),
    ({"val": np.array([1, 40])}, r"split\['val'\] has index 40 outside 0\.\.39 \(40 sets\)"),
    ({"test": np.array([0, 3, 7])}, r"split\['train'\] and split\['test'\] share 1 set \(index 0\)"),
    ({"val": np.array([2, 4, 5])}, r"split\['train'\] and split\['val'\] share 2 sets \(index 2, 4\)"),
    ({"train": np.array([0, 2, 2])}, r"split\['train'\] repeats index 2"),
    ({"train": np.array([0.0, 2.0])}, r"split\['train'\] must hold integer indices, got float64"),
])
def test_train_run_refuses_bad_split_indices_naming_the_part(change, message):
    data, split = two_class_sets()
    with pytest.raises(ValueError, match=message):
        train_run(data, {**split, **change}, "repset", {"n_hidden_sets": 2, "hidden_set_size": 2},
                  TrainConfig(epochs=1, batch_size=8))
