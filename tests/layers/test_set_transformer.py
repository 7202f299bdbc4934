"""Set Transformer: faithful to the official blocks on full sets, key-padding masks, invariances, training."""
import math

import pytest
import torch

from set_checks import assert_overfits_tiny_dataset, assert_permutation_invariant, padded_batch

from repset.layers import LAYERS, SetTransformer
from repset.layers.set_transformer import ISAB, SAB
from repset.training.classifier import SetClassifier, build_layer

VARIANTS = [{}, {"ln": True}, {"num_inds": 3}, {"num_seeds": 2, "n_decoder": 1}]


def _official_mab(mab, Q, K):
    """MAB.forward of github.com/juho-lee/set_transformer (modules.py), on our module's parameters."""
    Q = mab.fc_q(Q)
    K, V = mab.fc_k(K), mab.fc_v(K)
    dim_split = mab.dim_V // mab.num_heads
    Q_ = torch.cat(Q.split(dim_split, 2), 0)
    K_ = torch.cat(K.split(dim_split, 2), 0)
    V_ = torch.cat(V.split(dim_split, 2), 0)
    A = torch.softmax(Q_.bmm(K_.transpose(1, 2)) / math.sqrt(mab.dim_V), 2)
    O = torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
    O = O if mab.ln0 is None else mab.ln0(O)
    O = O + torch.relu(mab.fc_o(O))
    return O if mab.ln1 is None else mab.ln1(O)


def _official_forward(model, X):
    for block in model.encoder:
        if isinstance(block, SAB):
            X = _official_mab(block.mab, X, X)
        else:
            H = _official_mab(block.mab0, block.I.repeat(X.size(0), 1, 1), X)
            X = _official_mab(block.mab1, X, H)
    Z = _official_mab(model.pma.mab, model.pma.S.repeat(X.size(0), 1, 1), X)
    for block in model.decoder:
        Z = _official_mab(block.mab, Z, Z)
    return Z.reshape(Z.shape[0], -1)


def test_paper_configuration_and_registry():
    model = build_layer("set_transformer", 300)
    assert LAYERS["set_transformer"] is SetTransformer
    assert model.out_dim == 64 and not model.ln
    assert [type(b) for b in model.encoder] == [SAB, SAB] and len(model.decoder) == 2
    assert model.pma.S.shape == (1, 1, 64)
    mab = model.encoder[0].mab
    assert (mab.num_heads, mab.dim_V, mab.fc_q.in_features) == (4, 64, 300)
    assert SetClassifier(model, 5).head[-1].in_features == 64
    assert isinstance(SetTransformer(4, num_inds=8).encoder[0], ISAB)


@pytest.mark.parametrize("options", VARIANTS)
def test_equals_official_code_on_unpadded_sets(options):
    torch.manual_seed(0)
    model = SetTransformer(6, dim_hidden=8, num_heads=2, **options).double()
    X = torch.randn(3, 5, 6, dtype=torch.float64)
    assert torch.allclose(model(X), _official_forward(model, X), atol=1e-12)
    assert torch.allclose(model(X, torch.full((3,), 5)), _official_forward(model, X), atol=1e-12)


@pytest.mark.parametrize("options", VARIANTS)
def test_a_set_alone_equals_the_set_in_a_paddedpadded_batch(options):
    torch.manual_seed(1)
    model = SetTransformer(6, dim_hidden=8, num_heads=2, **options).double()
    V, lengths = padded_batch(1)
    out = model(V, lengths)
    for b, n in enumerate(lengths.tolist()):
        assert torch.allclose(out[b], _official_forward(model, V[b:b + 1, :n])[0], atol=1e-12)


@pytest.mark.parametrize("options", VARIANTS)
def test_padding_never_matters(options):
    torch.manual_seed(2)
    model = SetTransformer(6, dim_hidden=8, num_heads=2, **options).double()
    V, lengths = padded_batch(2)
    out = model(V, lengths)
    garbage = V.clone()
    pad = torch.arange(7)[None, :] >= lengths[:, None]
    garbage[pad] = float("nan")
    assert torch.equal(model(garbage, lengths), out)
    wider = torch.cat([V, torch.randn(5, 3, 6, dtype=torch.float64)], dim=1)
    assert torch.allclose(model(wider, lengths), out, atol=1e-12)


def test_padding_rows_stay_zero_between_blocks():
    torch.manual_seed(3)
    sab = SAB(4, 8, 2).double()
    X = torch.randn(2, 5, 4, dtype=torch.float64)
    mask = torch.tensor([[True] * 5, [True, True, False, False, False]])
    assert torch.all(sab(X, mask)[1, 2:] == 0)


@pytest.mark.parametrize("options", VARIANTS)
def test_permutation_invariance(options):
    torch.manual_seed(4)
    model = SetTransformer(6, dim_hidden=8, num_heads=2, **options).double()
    V, lengths = padded_batch(4)
    assert_permutation_invariant(model, V, lengths)


def test_validation_errors():
    with pytest.raises(ValueError, match="divisible by num_heads"):
        SetTransformer(3, dim_hidden=10, num_heads=4)
    with pytest.raises(ValueError, match="num_inds"):
        SetTransformer(3, num_inds=0)
    with pytest.raises(ValueError, match="feature size"):
        SetTransformer(3)(torch.randn(1, 2, 4))


def test_overfits_tiny_dataset():
    assert_overfits_tiny_dataset("set_transformer", lr=3e-3)


def test_gradients_reach_every_parameter():
    torch.manual_seed(5)
    for options in VARIANTS:
        model = SetTransformer(4, dim_hidden=8, num_heads=2, **options)
        model(torch.randn(3, 5, 4), torch.tensor([5, 2, 1])).sum().backward()
        assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())


def test_overflow_inside_attention_raises_instead_of_nan():
    layer = SetTransformer(3)
    with pytest.raises(ValueError, match="SetTransformer: the output is NaN or infinite for a finite input"):
        layer(torch.full((1, 4, 3), 1e30))
