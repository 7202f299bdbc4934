"""DeepSets / NN-mean / NN-max: the paper's configuration, masked aggregation, invariances, training."""
import pytest
import torch

from set_checks import assert_overfits_tiny_dataset, assert_permutation_invariant

from repset.layers import LAYERS, DeepSets, NNMax, NNMean
from repset.training.classifier import SetClassifier, build_layer

AGGS = ("sum", "mean", "max")


def _batch(seed=0, B=5, N=7, d=6):
    g = torch.Generator().manual_seed(seed)
    V = torch.randn(B, N, d, generator=g, dtype=torch.float64)
    lengths = torch.tensor([7, 3, 1, 5, 2])[:B]
    return V, lengths


def test_paper_configuration_and_registry():
    layer = DeepSets(300)
    dims = [(m.in_features, m.out_features) for m in layer.modules() if isinstance(m, torch.nn.Linear)]
    assert dims == [(300, 300), (300, 100), (100, 30), (30, 30), (30, 10)]
    assert sum(isinstance(m, torch.nn.Tanh) for m in layer.modules()) == 5
    assert layer.out_dim == 10 and layer.aggregation == "sum"
    for name, agg in (("deepsets", "sum"), ("nn_mean", "mean"), ("nn_max", "max")):
        built = build_layer(name, 20)
        assert built.aggregation == agg and built.out_dim == 10
        assert LAYERS[name] is type(built)
    assert isinstance(SetClassifier(build_layer("nn_max", 20), 4).head[-1], torch.nn.Linear)
    assert SetClassifier(build_layer("nn_max", 20), 4).head[-1].in_features == 10


@pytest.mark.parametrize("agg", AGGS)
def test_matches_manual_aggregation_over_valid_elements(agg):
    torch.manual_seed(0)
    layer = DeepSets(6, agg, phi_dims=(8, 4), rho_dims=(3,)).double()
    V, lengths = _batch()
    out = layer(V, lengths)
    for b, n in enumerate(lengths.tolist()):
        H = layer.phi(V[b, :n])
        pooled = {"sum": H.sum(0), "mean": H.mean(0), "max": H.amax(0)}[agg]
        assert torch.allclose(out[b], layer.rho(pooled), atol=1e-12)


def test_max_ignores_padding_even_when_all_features_are_negative():
    layer = NNMax(3, phi_dims=(4,), rho_dims=()).double()
    with torch.no_grad():
        layer.phi[0].weight.zero_()
        layer.phi[0].bias.fill_(-1.0)          # phi(x) = tanh(-1) < 0 for every element
    V = torch.randn(2, 5, 3, dtype=torch.float64)
    out = layer(V, torch.tensor([2, 5]))
    assert torch.allclose(out, torch.full_like(out, torch.tanh(torch.tensor(-1.0)).item()))


@pytest.mark.parametrize("agg", AGGS)
def test_permutation_invariance(agg):
    torch.manual_seed(1)
    layer = DeepSets(6, agg).double()
    V, lengths = _batch(1)
    assert_permutation_invariant(layer, V, lengths)
    batch_perm = torch.randperm(len(V))
    assert torch.allclose(layer(V[batch_perm], lengths[batch_perm]), layer(V, lengths)[batch_perm], atol=1e-12)


@pytest.mark.parametrize("agg", AGGS)
def test_padding_never_matters(agg):
    torch.manual_seed(2)
    layer = DeepSets(6, agg).double()
    V, lengths = _batch(2)
    out = layer(V, lengths)
    garbage = V.clone()
    pad = torch.arange(V.shape[1])[None, :] >= lengths[:, None]
    garbage[pad] = float("nan")
    garbage[pad.nonzero()[:3].unbind(1)] = 1e30
    assert torch.equal(layer(garbage, lengths), out)
    for b, n in enumerate(lengths.tolist()):
        alone = layer(V[b:b + 1, :n], torch.tensor([n]))
        assert torch.allclose(alone[0], out[b], atol=1e-12)
        longer = torch.cat([V[b:b + 1, :n], torch.randn(1, 4, 6, dtype=torch.float64)], dim=1)
        assert torch.allclose(layer(longer, torch.tensor([n]))[0], out[b], atol=1e-12)


def test_sum_sees_multiplicity_mean_does_not():
    torch.manual_seed(3)
    s, m = DeepSets(4, "sum").double(), NNMean(4).double()
    x = torch.randn(1, 2, 4, dtype=torch.float64)
    doubled = torch.cat([x, x], dim=1)
    assert torch.allclose(m(x), m(doubled), atol=1e-12)
    assert not torch.allclose(s(x), s(doubled))


def test_validation_errors():
    with pytest.raises(ValueError, match="unknown aggregation='median'"):
        DeepSets(3, "median")
    with pytest.raises(ValueError, match="unknown activation"):
        DeepSets(3, activation="gelu")
    layer = DeepSets(3)
    with pytest.raises(ValueError, match="empty sets"):
        layer(torch.randn(2, 4, 3), torch.tensor([0, 2]))
    with pytest.raises(ValueError, match="NaN"):
        layer(torch.full((1, 2, 3), float("nan")), torch.tensor([2]))


@pytest.mark.parametrize("name", ["deepsets", "nn_mean", "nn_max"])
def test_overfits_tiny_dataset(name):
    assert_overfits_tiny_dataset(name, lr=1e-2)


def test_gradients_reach_every_parameter():
    torch.manual_seed(4)
    for agg in AGGS:
        layer = DeepSets(4, agg)
        layer(torch.randn(3, 5, 4), torch.tensor([5, 2, 1])).sum().backward()
        assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in layer.parameters())
