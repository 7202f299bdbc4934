"""SetClassifier and the layer factory."""
import pytest
import torch

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


def test_classifier_argument_errors():
    with pytest.raises(ValueError, match="activation"):
        SetClassifier(RepSet(3, 4, 2), 3, activation="gelu")
    with pytest.raises(ValueError, match="n_classes"):
        SetClassifier(RepSet(3, 4, 2), 1)
