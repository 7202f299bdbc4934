"""SetClassifier and the layer factory."""
import pytest
import torch
from repo_paths import ROOT

from repset.layers import ApproxRepSet, RepSet
from repset.training.classifier import SetClassifier, build_layer


def test_classifier_shapes_and_hidden_layers():
    model = SetClassifier(RepSet(3, 4, 2), n_classes=5, hidden_dims=[8, 6], activation="tanh", dropout=0.1)
    assert model(torch.rand(2, 3, 3), torch.tensor([3, 1])).shape == (2, 5)
    linears = [m for m in model.head if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linears] == [(4, 8), (8, 6), (6, 5)]


def test_build_layer_by_name():
    assert isinstance(build_layer("repset", 3, n_hidden_sets=2, hidden_set_size=2, solver="scipy"), RepSet)
    assert isinstance(build_layer("approx_repset", 3, n_hidden_sets=2, hidden_set_size=2, form="official"), ApproxRepSet)
    with pytest.raises(ValueError, match="unknown layer 'no-such-layer'; valid layers: .*approx_repset.*repset"):
        build_layer("no-such-layer", 3)


def test_build_layer_by_import_path_feeds_the_classifier_its_out_dim(monkeypatch):
    monkeypatch.chdir(ROOT)
    layer = build_layer("examples/sum_pool.py:SumPool", 3, hidden=8, out_dim=6)   # a file relative to the root
    assert type(layer).__name__ == "SumPool" and layer.out_dim == 6
    model = SetClassifier(layer, n_classes=4)
    assert model.head[0].in_features == 6 and model(torch.rand(2, 3, 3), torch.tensor([3, 1])).shape == (2, 4)


def test_classifier_argument_errors():
    with pytest.raises(ValueError, match="activation"):
        SetClassifier(RepSet(3, 4, 2), 3, activation="gelu")
    with pytest.raises(ValueError, match="n_classes"):
        SetClassifier(RepSet(3, 4, 2), 1)
