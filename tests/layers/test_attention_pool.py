"""NN-attention: masked softmax pooling, relation to NN-mean, invariances, training."""
import pytest
import torch

from set_checks import assert_overfits_tiny_dataset, assert_permutation_invariant, padded_batch

from repset.layers import LAYERS, AttentionPool, NNMean
from repset.training.classifier import build_layer

VARIANTS = [{}, {"gated": True}, {"scoring": "query"}, {"attention_dim": 7}]


def test_configuration_and_registry():
    layer = build_layer("nn_attention", 300)
    assert LAYERS["nn_attention"] is AttentionPool
    assert layer.phi_dim == 30 and layer.out_dim == 10 and layer.attention_dim == 30
    dims = [(m.in_features, m.out_features) for m in layer.phi if isinstance(m, torch.nn.Linear)]
    assert dims == [(300, 300), (300, 100), (100, 30)]


@pytest.mark.parametrize("options", VARIANTS)
def test_weights_are_a_softmax_over_valid_elements_only(options):
    torch.manual_seed(0)
    layer = AttentionPool(6, **options).double()
    V, lengths = padded_batch()
    a = layer.attention_weights(V, lengths)
    pad = torch.arange(7)[None, :] >= lengths[:, None]
    assert torch.all(a[pad] == 0) and torch.all(a[~pad] > 0)
    assert torch.allclose(a.sum(1), torch.ones(5, dtype=torch.float64))
    assert torch.all(a[2, :1] == 1.0)  # a singleton gets all the weight
    out = layer(V, lengths)
    for b, n in enumerate(lengths.tolist()):
        H = layer.phi(V[b, :n])
        assert torch.allclose(out[b], layer.rho(a[b, :n] @ H), atol=1e-12)


def test_constant_scores_give_nn_mean():
    torch.manual_seed(1)
    att = AttentionPool(6).double()
    with torch.no_grad():
        att.att_w.weight.zero_()
    mean = NNMean(6).double()
    mean.load_state_dict({k: v for k, v in att.state_dict().items() if k.startswith(("phi", "rho"))})
    V, lengths = padded_batch(1)
    assert torch.allclose(att(V, lengths), mean(V, lengths), atol=1e-12)


@pytest.mark.parametrize("options", VARIANTS)
def test_permutation_invariance(options):
    torch.manual_seed(2)
    V, lengths = padded_batch(2)
    assert_permutation_invariant(AttentionPool(6, **options).double(), V, lengths)


@pytest.mark.parametrize("options", VARIANTS)
def test_padding_never_matters(options):
    torch.manual_seed(3)
    layer = AttentionPool(6, **options).double()
    V, lengths = padded_batch(3)
    out = layer(V, lengths)
    garbage = V.clone()
    pad = torch.arange(7)[None, :] >= lengths[:, None]
    garbage[pad] = float("nan")
    assert torch.equal(layer(garbage, lengths), out)
    garbage[pad] = 1e6  # huge values would dominate an unmasked softmax
    assert torch.equal(layer(garbage, lengths), out)
    for b, n in enumerate(lengths.tolist()):
        assert torch.allclose(layer(V[b:b + 1, :n], torch.tensor([n]))[0], out[b], atol=1e-12)


def test_validation_errors():
    with pytest.raises(ValueError, match="unknown scoring='bilinear'"):
        AttentionPool(3, scoring="bilinear")
    with pytest.raises(ValueError, match="gated attention needs scoring='mlp'"):
        AttentionPool(3, scoring="query", gated=True)
    with pytest.raises(TypeError):
        AttentionPool(3, aggregation="sum")


def test_overfits_tiny_dataset():
    assert_overfits_tiny_dataset("nn_attention", lr=1e-2)


def test_gradients_reach_the_attention_parameters():
    torch.manual_seed(4)
    for options in VARIANTS:
        layer = AttentionPool(4, **options)
        layer(torch.randn(3, 5, 4), torch.tensor([5, 2, 3])).sum().backward()
        assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in layer.parameters())
