"""Trainer: determinism, early stopping, evaluation, config checks."""
import numpy as np
import pytest
import torch

from repset.sets import SetDataset
from repset.layers import ApproxRepSet
from repset.training.classifier import SetClassifier, build_layer
from repset.training.trainer import TrainConfig, eval_options, evaluate, fit, seed_everything


def blobs(n=40, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    sets = [rng.normal(2.0 * y - 1.0, 0.3, (rng.integers(1, 6), 3)) for y in labels]
    return SetDataset.from_sets(sets, labels.tolist())


def train_once(seed, **kw):
    seed_everything(seed)
    model = SetClassifier(ApproxRepSet(3, 4, 2), 2)
    hist = fit(model, blobs(), TrainConfig(epochs=15, batch_size=8, lr=0.05, seed=seed, **kw), val=blobs(seed=1))
    return model, hist


def test_same_seed_same_result():
    (m1, h1), (m2, h2) = train_once(0), train_once(0)
    assert h1["train_loss"] == h2["train_loss"]
    for a, b in zip(m1.state_dict().values(), m2.state_dict().values()):
        assert torch.equal(a, b)


def test_learns_and_keeps_best_epoch():
    model, hist = train_once(0, patience=3)
    assert evaluate(model, blobs())["accuracy"] >= 0.9
    best = hist["best_epoch"]
    assert hist["val"][best]["loss"] == min(v["loss"] for v in hist["val"])
    assert evaluate(model, blobs(seed=1))["loss"] == pytest.approx(hist["val"][best]["loss"], rel=1e-6)
    assert hist["epochs_run"] <= 15


def test_config_and_missing_validation_errors():
    with pytest.raises(ValueError, match="TrainConfig.lr"):
        TrainConfig(lr=0)
    with pytest.raises(ValueError, match="TrainConfig.epochs"):
        TrainConfig(epochs=0)
    with pytest.raises(ValueError, match="needs a validation set"):
        fit(SetClassifier(ApproxRepSet(3, 4, 2), 2), blobs(), TrainConfig(patience=2))


def test_bucketed_batches_cover_every_set_once_with_less_padding():
    from repset.training.trainer import BUCKET_POOL, batch_indices

    lengths = torch.from_numpy(np.random.default_rng(0).integers(1, 500, 1000))
    g = lambda: torch.Generator().manual_seed(5)  # noqa: E731
    plain, bucketed = batch_indices(1000, 8, g()), batch_indices(1000, 8, g(), lengths)
    assert sorted(torch.cat(bucketed).tolist()) == list(range(1000)) and len(bucketed) == len(plain) == 125
    assert all(len(b) == 8 for b in bucketed)
    padded = lambda batches: sum(len(b) * int(lengths[b].max()) for b in batches)  # noqa: E731
    assert padded(bucketed) < 0.6 * padded(plain)
    assert [b.tolist() for b in bucketed] == [b.tolist() for b in batch_indices(1000, 8, g(), lengths)]   # seeded
    assert BUCKET_POOL * 8 < 1000   # several pools: the order across pools stays random
    ordered = batch_indices(1000, 8, None, lengths)                     # evaluation: all sorted by size
    assert torch.equal(lengths[torch.cat(ordered)], torch.sort(lengths).values)


def test_progress_reports_every_epoch_with_an_eta():
    from set_checks import two_class_sets

    data, split = two_class_sets()
    seen = []
    seed_everything(0)
    model = SetClassifier(build_layer("deepsets", data.dim), 2)
    history = fit(model, data.subset(split["train"]), TrainConfig(epochs=6, batch_size=8, patience=2),
                  val=data.subset(split["val"]), progress=seen.append)
    assert [e["epoch"] for e in seen] == list(range(1, history["epochs_run"] + 1)) and seen[0]["epochs"] == 6
    assert all(e["val"] is not None and e["seconds"] > 0 for e in seen)
    assert seen[-1]["eta_seconds"] == pytest.approx((6 - len(seen)) * sum(history["epoch_seconds"]) / len(seen))


def word_blobs(n=40, vocabulary=25, seed=0):
    """Two classes of word sets over one vocabulary (class c draws words from its half), with ids."""
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(vocabulary, 4)).astype(np.float32)
    labels = np.arange(n) % 2
    ids = [rng.choice(np.arange(vocabulary)[c::2], size=rng.integers(2, 9), replace=False) for c in labels]
    offsets = np.concatenate([[0], np.cumsum([len(i) for i in ids])])
    return SetDataset(torch.from_numpy(vectors[np.concatenate(ids)]), torch.from_numpy(offsets),
                      torch.from_numpy(labels), torch.from_numpy(np.concatenate(ids)))


@pytest.mark.parametrize("layer", ["repset", "approx_repset"])
def test_distinct_elements_train_like_padded_batches(layer, monkeypatch):
    """Data with element ids reaches RepSet layers as distinct elements + ids (and only when
    distinct_elements is on); training follows the padded run up to float rounding."""
    data = word_blobs()
    calls = []
    monkeypatch.setattr(SetDataset, "indexed_batch", lambda self, index, _f=SetDataset.indexed_batch:
                        calls.append(len(index)) or _f(self, index))
    histories, metrics = [], []
    for distinct in (True, False):
        calls.clear()
        seed_everything(0)
        model = SetClassifier(build_layer(layer, 4, n_hidden_sets=6, hidden_set_size=3), 2)
        config = TrainConfig(epochs=4, batch_size=8, lr=0.01, patience=None, distinct_elements=distinct)
        histories.append(fit(model, data, config)["train_loss"])
        metrics.append(evaluate(model, data, distinct_elements=distinct))
        assert (sum(calls) == 4 * len(data) + len(data)) if distinct else not calls   # 4 epochs + evaluation
    assert np.allclose(histories[0], histories[1], rtol=1e-4)
    assert metrics[0]["accuracy"] == metrics[1]["accuracy"]
    assert metrics[0]["loss"] == pytest.approx(metrics[1]["loss"], rel=1e-4)


def test_models_without_element_ids_get_padded_batches():
    data = word_blobs()
    model = SetClassifier(build_layer("deepsets", 4), 2)
    assert not model.takes_element_ids
    history = fit(model, data, TrainConfig(epochs=1, batch_size=8, patience=None))
    assert len(history["train_loss"]) == 1
    with pytest.raises(ValueError, match="does not take element_ids"):
        model(torch.zeros(3, 4), torch.tensor([1]), element_ids=torch.zeros(1, 1, dtype=torch.long))


def ragged_sets(n=48, seed=0, dim=3):
    """Sets of 1-60 elements (most small, a few large), two classes."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    sizes = np.minimum(rng.geometric(0.08, n), 60)
    return SetDataset.from_sets([rng.normal(y, 1.0, (s, dim)) for y, s in zip(labels, sizes)], labels.tolist())


PATHS = [dict(ragged=True, max_elements=None), dict(ragged=False, max_elements=100), dict(ragged=True, max_elements=100)]


@pytest.mark.parametrize("layer", ["repset", "approx_repset", "deepsets", "set_transformer"])
def test_ragged_and_bounded_paths_match_the_padded_batch(layer):
    """Values (evaluation metrics) and gradients of one step equal the padded path's up to float rounding."""
    from repset.training.trainer import train_step

    data = ragged_sets()
    seed_everything(0)
    model = SetClassifier(build_layer(layer, 3, **({"n_hidden_sets": 4, "hidden_set_size": 3}
                                                   if "repset" in layer else {})), 2)
    index = torch.arange(len(data))

    def grads(**path):
        model.zero_grad(set_to_none=True)
        loss = train_step(model, data, index, TrainConfig(**path))
        return loss, [p.grad.clone() for p in model.parameters() if p.grad is not None]

    legacy = TrainConfig.from_record({})
    base_loss, base = grads(ragged=legacy.ragged, max_elements=legacy.max_elements)
    base_eval = evaluate(model, data)
    for path in PATHS:
        loss, g = grads(**path)
        assert loss == pytest.approx(base_loss, rel=1e-5)
        assert len(g) == len(base) and all(torch.allclose(a, b, rtol=1e-4, atol=1e-6) for a, b in zip(g, base))
        metrics = evaluate(model, data, **path)
        assert metrics["accuracy"] == base_eval["accuracy"]
        assert metrics["loss"] == pytest.approx(base_eval["loss"], rel=1e-6)


def test_records_without_the_new_fields_rerun_padded_and_unbounded():
    legacy = TrainConfig.from_record({"epochs": 3})
    assert (legacy.ragged, legacy.max_elements, legacy.distinct_elements) == (False, None, False)
    assert TrainConfig().max_elements is not None


def test_a_batch_within_the_bound_trains_exactly_as_the_original_path():
    """Small sets (MUTAG's graphs) never reach the bound: the default config trains them bit for bit as
    the records made before the bound existed."""
    from repset.training.trainer import train_step

    data = ragged_sets()
    seed_everything(0)
    model = SetClassifier(build_layer("approx_repset", 3, n_hidden_sets=4, hidden_set_size=3), 2)
    out = []
    for config in (TrainConfig.from_record({}), TrainConfig(max_elements=len(data) * 60)):
        model.zero_grad(set_to_none=True)
        loss = train_step(model, data, torch.arange(len(data)), config)
        out.append((loss, [p.grad.clone() for p in model.parameters()], evaluate(model, data, **eval_options(config))))
    (l0, g0, e0), (l1, g1, e1) = out
    assert l0 == l1 and e0 == e1 and all(torch.equal(a, b) for a, b in zip(g0, g1))
    with pytest.raises(ValueError, match="max_elements"):
        TrainConfig(max_elements=0)
