"""Set Transformer: faithful to the official blocks on full sets, key-padding masks, invariances, training."""
import math

import pytest
import torch

from set_checks import assert_overfits_tiny_dataset, assert_permutation_invariant, padded_batch

from repset.layers import LAYERS, SetTransformer
from repset.layers.set_transformer import ISAB, SAB
from repset.training.classifier import SetClassifier, build_layer

VARIANTS = [{}, {"ln": True}, {"num_inds": 3}, {"num_seeds": 2, "n_decoder": 1}]
#: the variants again, with an encoder-free model (input projection, then PMA)
MASKED_VARIANTS = VARIANTS + [{"ln": True, "num_inds": 3}, {"n_encoder": 0}]
DTYPES = [torch.float64, torch.float32]
#: float64: equal to rounding; float32: the fused kernel and the explicit product round differently
TOLERANCE = {torch.float64: {"rtol": 1e-10, "atol": 1e-12}, torch.float32: {"rtol": 1e-4, "atol": 1e-5}}


def _official_mab(mab, Q, K, key_mask=None, query_mask=None):
    """MAB.forward of github.com/juho-lee/set_transformer (modules.py), on our module's parameters, with the
    masks as an explicit product: ``-inf`` logits at padding keys, padding query rows zeroed after the block
    (the layer's attention before torch's fused kernel). No mask: the official code line for line."""
    Q = mab.fc_q(Q)
    K, V = mab.fc_k(K), mab.fc_v(K)
    dim_split = mab.dim_V // mab.num_heads
    Q_ = torch.cat(Q.split(dim_split, 2), 0)
    K_ = torch.cat(K.split(dim_split, 2), 0)
    V_ = torch.cat(V.split(dim_split, 2), 0)
    logits = Q_.bmm(K_.transpose(1, 2)) / math.sqrt(mab.dim_V)
    if key_mask is not None:                                  # heads are stacked along the batch dimension
        logits = logits.masked_fill(~key_mask.repeat(mab.num_heads, 1)[:, None, :], float("-inf"))
    A = torch.softmax(logits, 2)
    O = torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
    O = O if mab.ln0 is None else mab.ln0(O)
    O = O + torch.relu(mab.fc_o(O))
    O = O if mab.ln1 is None else mab.ln1(O)
    return O if query_mask is None else O * query_mask[..., None].to(O.dtype)


def _official_forward(model, X, lengths=None):
    """The whole model through :func:`_official_mab`; with ``lengths``, padding masked as the layer's docstring says."""
    mask = None
    if lengths is not None:
        mask = torch.arange(X.shape[1])[None, :] < lengths[:, None]
        X = torch.where(mask[..., None], X, torch.zeros((), dtype=X.dtype))
    if model.input_proj is not None:
        X = model.input_proj(X) if mask is None else model.input_proj(X) * mask[..., None].to(X.dtype)
    for block in model.encoder:
        if isinstance(block, SAB):
            X = _official_mab(block.mab, X, X, mask, mask)
        else:
            H = _official_mab(block.mab0, block.I.repeat(X.size(0), 1, 1), X, key_mask=mask)
            X = _official_mab(block.mab1, X, H, query_mask=mask)
    Z = _official_mab(model.pma.mab, model.pma.S.repeat(X.size(0), 1, 1), X, key_mask=mask)
    for block in model.decoder:
        Z = _official_mab(block.mab, Z, Z)
    return Z.reshape(Z.shape[0], -1)


def _gradients(model, loss_of, *inputs):
    """Gradients of ``loss_of(model, *inputs)`` w.r.t. every parameter and every floating input, as a list."""
    inputs = [x.detach().requires_grad_() if x.is_floating_point() else x for x in inputs]
    model.zero_grad(set_to_none=True)
    loss_of(model, *inputs).backward()
    return [p.grad.clone() for p in model.parameters()] + [x.grad for x in inputs if x.is_floating_point()]


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


def _weighted_sum(out, seed=7):
    """A scalar that reads every output feature with its own fixed weight (so gradients see each one)."""
    w = torch.randn(out.shape[-1], generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return (out * w.to(out.dtype)).sum()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", MASKED_VARIANTS)
def test_fused_attention_equals_the_masked_product_with_gradients(options, dtype):
    """torch's scaled_dot_product_attention with the boolean key mask gives the explicit masked product's
    outputs and gradients (parameters and input), every set padded (the batch is wider than its largest set)."""
    torch.manual_seed(6)
    model = SetTransformer(6, dim_hidden=8, num_heads=2, **options).to(dtype)
    V, lengths = padded_batch(6)
    V = torch.cat([V, torch.randn(5, 2, 6, dtype=torch.float64)], dim=1).to(dtype)
    torch.testing.assert_close(model(V, lengths), _official_forward(model, V, lengths), **TOLERANCE[dtype])
    ours = _gradients(model, lambda m, X: _weighted_sum(m(X, lengths)), V)
    reference = _gradients(model, lambda m, X: _weighted_sum(_official_forward(m, X, lengths)), V)
    for a, b in zip(ours, reference, strict=True):
        torch.testing.assert_close(a, b, **TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", MASKED_VARIANTS)
def test_a_set_alone_equals_the_set_in_a_padded_batch(options, dtype):
    """Values and gradients: set b of a padded batch = set b alone (= the official code on it); the other
    sets' elements get no gradient from set b's output."""
    torch.manual_seed(1)
    model = SetTransformer(6, dim_hidden=8, num_heads=2, **options).to(dtype)
    V, lengths = padded_batch(1)
    V = V.to(dtype)
    out = model(V, lengths)
    for b, n in enumerate(lengths.tolist()):
        alone = V[b:b + 1, :n]
        torch.testing.assert_close(out[b], model(alone)[0], **TOLERANCE[dtype])
        torch.testing.assert_close(out[b], _official_forward(model, alone)[0], **TOLERANCE[dtype])
        *in_batch, grad_V = _gradients(model, lambda m, X: _weighted_sum(m(X, lengths)[b]), V)
        *by_itself, grad_alone = _gradients(model, lambda m, X: _weighted_sum(m(X)[0]), alone)
        for a, c in zip(in_batch, by_itself, strict=True):
            torch.testing.assert_close(a, c, **TOLERANCE[dtype])
        torch.testing.assert_close(grad_V[b, :n], grad_alone[0], **TOLERANCE[dtype])
        others = torch.ones_like(grad_V, dtype=torch.bool)
        others[b, :n] = False
        assert torch.all(grad_V[others] == 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sdpa_boolean_key_mask_with_padding_query_rows(dtype):
    """The call the layer makes: a (B, 1, 1, N) boolean mask (True = the key takes part) broadcast over heads
    and queries. A padding query row still sees every valid key (no all -inf row), so every output row is
    finite and equals the masked softmax; backward is finite and leaves padding keys and values no gradient."""
    g = torch.Generator().manual_seed(8)
    B, H, N, D = 3, 2, 6, 4
    q, k, v = (torch.randn(B, H, N, D, generator=g, dtype=dtype, requires_grad=True) for _ in range(3))
    key_mask = torch.arange(N)[None, :] < torch.tensor([6, 1, 3])[:, None]
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=key_mask[:, None, None, :], scale=0.3)
    logits = (q @ k.transpose(-1, -2) * 0.3).masked_fill(~key_mask[:, None, None, :], float("-inf"))
    torch.testing.assert_close(out, torch.softmax(logits, -1) @ v, **TOLERANCE[dtype])
    assert torch.isfinite(out).all()
    _weighted_sum(out).backward()
    assert all(torch.isfinite(t.grad).all() for t in (q, k, v))
    padding_keys = ~key_mask[:, None, :, None].expand(B, H, N, D)
    assert torch.all(k.grad[padding_keys] == 0) and torch.all(v.grad[padding_keys] == 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", MASKED_VARIANTS)
def test_no_nan_forward_or_backward_with_nan_padding(options, dtype):
    """NaN in the padding: the output and every gradient are finite, the padding's gradient exactly zero."""
    torch.manual_seed(9)
    model = SetTransformer(6, dim_hidden=8, num_heads=2, **options).to(dtype)
    V, lengths = padded_batch(9)
    V = V.to(dtype)
    pad = torch.arange(7)[None, :] >= lengths[:, None]
    V[pad] = float("nan")
    *grads, grad_V = _gradients(model, lambda m, X: _weighted_sum(m(X, lengths)), V)
    assert all(torch.isfinite(t).all() for t in grads) and torch.isfinite(grad_V).all()
    assert torch.all(grad_V[pad] == 0) and torch.any(grad_V[~pad] != 0)


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
