"""The hidden-set layers' shared contract: argument checks and overflow detection, the same for both."""
import re

import numpy as np
import pytest
import torch

from repset.layers import ApproxRepSet, RepSet

LAYERS = [RepSet, ApproxRepSet]


@pytest.mark.parametrize("cls", LAYERS)
def test_overflowing_edge_weights_raise_in_both_layers(cls):
    # float32: 1e20 * 1e20 = inf and -inf in one dot product: inf - inf = NaN (ApproxRepSet returned 0)
    layer = cls(3, 1, 1)
    with torch.no_grad():
        layer.weight[:] = torch.tensor([1e20, -1e20, 1e5]).view(3, 1, 1)
    with pytest.raises(ValueError, match="edge weights ReLU\\(V H\\) overflow torch.float32"):
        layer(torch.tensor([[[1e20, 1e20, 1.0]]]))
    # the same values in float64 do not overflow
    assert torch.isfinite(layer.double()(torch.tensor([[[1e20, 1e20, 1.0]]], dtype=torch.float64))).all()


@pytest.mark.parametrize("cls", LAYERS)
def test_large_finite_edge_weights_pass(cls):
    layer = cls(2, 1, 1)
    with torch.no_grad():
        layer.weight[:] = torch.tensor([1e18, 1e18]).view(2, 1, 1)
    assert layer(torch.tensor([[[1e18, 0.0]]])).item() == pytest.approx(1e36, rel=1e-6)


@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float16])
def test_input_dtype_other_than_the_layers_is_named(cls, dtype):
    with pytest.raises(ValueError, match=f"V has dtype {dtype} but the layer's parameters are torch.float32"):
        cls(3, 2, 2)(torch.ones(1, 2, 3, dtype=dtype))


@pytest.mark.parametrize("cls", LAYERS)
def test_numpy_integers_are_sizes_and_bools_are_not(cls):
    assert cls(3, np.int64(2), np.int64(3)).hidden_sizes.tolist() == [3, 3]
    assert cls(3, 2, np.array([2, 4])).hidden_sizes.tolist() == [2, 4]
    with pytest.raises(ValueError, match="hidden_set_size must be a positive int or 2 positive ints, got True"):
        cls(3, 2, True)
    with pytest.raises(ValueError, match="in_dim and n_hidden_sets must be integers >= 1"):
        cls(3, 2.0, 2)


@pytest.mark.parametrize("cls", LAYERS)
def test_initialisations(cls):
    torch.manual_seed(0)
    uniform, normal, small = cls(8, 40, 25), cls(8, 40, 25, init="normal"), cls(8, 40, 25, init="small")
    assert uniform.weight.abs().max() <= 1 and uniform.init == "uniform"          # the default, unchanged
    assert uniform.weight.abs().max() > 0.9 and small.weight.abs().max() <= 0.1 and small.weight.abs().max() > 0.09
    assert abs(normal.weight.std().item() - 1) < 0.05 and normal.weight.abs().max() > 1
    with pytest.raises(ValueError, match="unknown init='glorot'; valid: uniform, normal, small, elements, scaled"):
        cls(8, 2, 2, init="glorot")
    with pytest.raises(ValueError, match="does not read training elements"):
        uniform.init_from_elements(torch.ones(3, 8))


@pytest.mark.parametrize("cls", LAYERS)
def test_data_aware_initialisations_follow_the_training_elements(cls):
    torch.manual_seed(0)
    elements = 5.0 + 0.5 * torch.randn(4000, 8)
    scaled = cls(8, 40, 25, init="scaled")
    assert scaled.needs_data_init
    scaled.init_from_elements(elements)
    W = scaled.weight.detach().reshape(8, -1)
    assert torch.allclose(W.mean(1), torch.full((8,), 5.0), atol=0.05) and torch.allclose(W.std(1), torch.full((8,), 0.5), atol=0.03)
    near = cls(8, 3, [2, 4, 1], init="elements")
    near.init_from_elements(elements)
    for hidden in near.hidden_sets():                    # each element a training element plus small noise
        gap = torch.cdist(hidden, elements).min(1).values
        assert (gap < 0.1 * 0.5 * 8 ** 0.5 * 3).all()
    assert (near.weight.detach()[:, 2, 1:] == 0).all()   # padding columns stay zero


def test_train_run_draws_data_aware_hidden_sets_from_the_training_split():
    from set_checks import two_class_sets

    from repset.training import TrainConfig, train_run

    data, split = two_class_sets()
    record, model = train_run(data, split, "repset", {"n_hidden_sets": 2, "hidden_set_size": 2, "init": "scaled"},
                              TrainConfig(epochs=1, batch_size=8, patience=None))
    assert record["layer_options"]["init"] == "scaled" and model.layer.init == "scaled"


@pytest.mark.parametrize("cls", LAYERS)
def test_hidden_elements_skip_padding_and_movement_measures_the_change(cls):
    layer = cls(3, 2, [1, 2])
    elements = layer.hidden_elements()
    assert elements.shape == (3, 3)                      # 1 + 2 real elements, padding left out
    torch.testing.assert_close(elements[1:], layer.hidden_sets()[1])
    start = layer.weight.detach().clone()
    assert layer.movement(start) == pytest.approx({"cosine_to_initial": 1.0, "displacement_norm": 0.0,
                                                  "initial_norm": float(elements.norm(dim=1).mean()),
                                                  "trained_norm": float(elements.norm(dim=1).mean())})
    with torch.no_grad():
        layer.weight.mul_(-2.0)                          # every element reversed and doubled
    moved = layer.movement(start)
    assert moved["cosine_to_initial"] == pytest.approx(-1.0)
    assert moved["displacement_norm"] == pytest.approx(3 * moved["initial_norm"], rel=1e-6)
    assert moved["trained_norm"] == pytest.approx(2 * moved["initial_norm"], rel=1e-6)
    with pytest.raises(ValueError, match="weight must have shape"):
        layer.movement(start[:, :1])


VARIANTS = [(RepSet, {"solver": "numba"}), (RepSet, {"solver": "scipy"}), (RepSet, {"solver": "auction", "normalize": "input_size"}),
            (ApproxRepSet, {"form": "paper"}), (ApproxRepSet, {"form": "official"})]


def shared_vocabulary_batch(seed=0, vocabulary=11, d=4, sizes=(6, 1, 9, 3, 7, 9)):
    """Padded sets and the same sets as distinct elements + ids (words repeat across sets)."""
    g = torch.Generator().manual_seed(seed)
    vectors = torch.randn(vocabulary, d, generator=g, dtype=torch.float64)
    ids = torch.zeros(len(sizes), max(sizes), dtype=torch.long)
    for b, n in enumerate(sizes):
        ids[b, :n] = torch.randperm(vocabulary, generator=g)[:n]
    lengths = torch.tensor(sizes)
    mask = torch.arange(max(sizes))[None] < lengths[:, None]
    used, local = torch.unique(ids[mask], return_inverse=True)
    element_ids = torch.zeros_like(ids)
    element_ids[mask] = local
    V = vectors[ids] * mask[..., None]
    return V, lengths, vectors[used], element_ids, mask


@pytest.mark.parametrize("cls, options", VARIANTS)
@pytest.mark.parametrize("grad_mode", ["sparse", "dense"])
def test_element_ids_give_the_padded_values_and_gradients(cls, options, grad_mode):
    """Sets given as distinct elements + ids: the same x, hidden-set gradient and (summed over the
    positions of each element) input gradient as the padded batch, hidden sets of unequal sizes."""
    V, lengths, E, element_ids, mask = shared_vocabulary_batch()
    torch.manual_seed(1)
    layer = cls(4, 3, [2, 8, 5], grad_mode=grad_mode, **options).double()
    results = []
    for inputs, kwargs in (((V,), {}), ((E,), {"element_ids": element_ids})):
        inputs = inputs[0].clone().requires_grad_(True)
        layer.weight.grad = None
        x = layer(inputs, lengths, **kwargs)
        (x * torch.arange(1, 4, dtype=x.dtype)).square().sum().backward()
        results.append((x.detach(), layer.weight.grad.clone(), inputs.grad))
    (x_pad, gW_pad, gV), (x_ids, gW_ids, gE) = results
    assert len(E) < int(lengths.sum())                                  # elements are shared
    assert torch.allclose(x_ids, x_pad, rtol=1e-12, atol=1e-12)
    assert torch.allclose(gW_ids, gW_pad, rtol=1e-10, atol=1e-12) and gW_pad.abs().sum() > 0
    per_element = torch.zeros_like(E).index_add_(0, element_ids[mask], gV[mask])
    assert torch.allclose(gE, per_element, rtol=1e-10, atol=1e-12) and gE.abs().sum() > 0


@pytest.mark.parametrize("cls", LAYERS)
def test_element_ids_are_checked(cls):
    V, lengths, E, element_ids, _ = shared_vocabulary_batch()
    layer = cls(4, 2, 3).double()
    with pytest.raises(ValueError, match=r"element_ids must lie in \[0, 3\)"):
        layer(E[:3], lengths, element_ids=element_ids)
    with pytest.raises(ValueError, match="distinct elements of shape"):
        layer(V, lengths, element_ids=element_ids)


@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("state_sizes, own_sizes", [([3, 2], [3, 3]), ([3, 3], [3, 2])])
def test_a_state_of_other_hidden_set_sizes_is_refused_naming_both(cls, strict, state_sizes, own_sizes):
    # same weight shape (d, m, K) = (2, 2, 3), other sizes: the mask and the equal-size flag would keep
    # b's constructor's (a RepSet loaded from [3, 3] into [3, 2] computed other values than a)
    torch.manual_seed(0)
    a, b = cls(2, 2, state_sizes), cls(2, 2, own_sizes)
    before = {k: v.clone() for k, v in b.state_dict().items()}
    with pytest.raises(RuntimeError, match=f"hidden_sizes.*{re.escape(str(state_sizes))}.*{re.escape(str(own_sizes))}"):
        b.load_state_dict(a.state_dict(), strict=strict)
    assert all(torch.equal(before[k], v) for k, v in b.state_dict().items())   # nothing of a's taken
    assert b.hidden_mask.sum(1).tolist() == own_sizes and b._equal_sizes == (len(set(own_sizes)) == 1)


@pytest.mark.parametrize("cls", LAYERS)
def test_a_state_of_the_same_sizes_loads_and_computes_the_same(cls):
    torch.manual_seed(0)
    a, b = cls(2, 2, [3, 2]), cls(2, 2, [3, 2])
    b.load_state_dict(a.state_dict())
    V = torch.randn(2, 4, 2)
    assert torch.equal(a(V), b(V))
    b.load_state_dict({"weight": a.weight.detach()}, strict=False)   # a state without sizes: the layer's own
    assert torch.equal(a(V), b(V))


@pytest.mark.parametrize("cls", [RepSet, ApproxRepSet])
@pytest.mark.parametrize("grad_mode", ["sparse", "dense"])
def test_reused_products_give_the_fresh_values_and_gradients(cls, grad_mode, monkeypatch):
    """The forward's products go to the layer's scratch (CPU, no autograd): calls of other sizes in
    between, training or evaluating, change nothing; equal to a layer computing a fresh tensor per call;
    the scratch is reused, not grown, for a smaller call and is left out of a copy."""
    import copy

    torch.manual_seed(0)
    big, small = torch.randn(6, 9, 4), torch.randn(3, 5, 4)
    lengths_big, lengths_small = torch.tensor([9, 3, 7, 1, 9, 5]), torch.tensor([5, 2, 4])

    def run(layer, V, lengths):
        layer.zero_grad()
        x = layer(V, lengths)
        x.pow(2).sum().backward()
        with torch.no_grad():
            y = layer(V, lengths)
        return x.detach(), layer.weight.grad.clone(), y

    layer = cls(4, 3, 2, grad_mode=grad_mode)
    first = run(layer, small, lengths_small)
    scratch = layer.__dict__.get("_scratch")
    assert scratch is not None and scratch.numel() == 3 * 5 * 3 * 2
    run(layer, big, lengths_big)
    grown = layer.__dict__["_scratch"]
    again = run(layer, small, lengths_small)
    assert layer.__dict__["_scratch"].data_ptr() == grown.data_ptr()       # a smaller call: the same memory
    fresh = copy.deepcopy(layer)
    assert "_scratch" not in fresh.__dict__
    monkeypatch.setattr(cls, "_products", lambda self, E, reuse=False, _f=cls._products: _f(self, E))
    want = run(fresh, small, lengths_small)
    for a, b, c in zip(first, again, want):
        assert torch.equal(a, b) and torch.equal(a, c)


@pytest.mark.parametrize("cls", LAYERS)
def test_meta_build_to_empty_and_reset_parameters_gives_a_working_layer(cls):
    """The meta-device pattern: ApproxRepSet's kernel read garbage sizes (a segfault), RepSet's solver
    refused column lengths in the billions."""
    with torch.device("meta"):
        layer = cls(4, 3, [2, 3, 2])
    layer.to_empty(device="cpu")
    assert layer.hidden_sizes.tolist() == [2, 3, 2] and layer.hidden_mask.sum(1).tolist() == [2, 3, 2]
    V, built = torch.randn(2, 5, 4), cls(4, 3, [2, 3, 2])
    with torch.no_grad():                                       # weights set by hand, no reset: the sizes hold
        layer.weight.fill_(0.5)
        built.weight.fill_(0.5)
    torch.testing.assert_close(layer(V), built(V))
    layer.reset_parameters()
    assert layer.weight[:, [0, 2], 2].abs().sum() == 0          # padding columns zero again
    x = layer(V)
    assert x.shape == (2, 3) and torch.isfinite(x).all()


@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("assign", [False, True])
def test_a_state_dict_loads_after_to_empty_and_with_assign(cls, assign):
    torch.manual_seed(0)
    source, V = cls(4, 3, [2, 3, 2]), torch.randn(2, 5, 4)
    with torch.device("meta"):
        layer = cls(4, 3, [2, 3, 2])
    if not assign:
        layer.to_empty(device="cpu")                            # garbage in hidden_sizes before the load
    layer.load_state_dict(source.state_dict(), assign=assign)
    assert layer.hidden_mask.device.type == "cpu" and layer.hidden_sizes.tolist() == [2, 3, 2]
    assert torch.equal(layer(V), source(V))


@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_layers_match_in_float32_and_return_their_dtype(cls, dtype):
    torch.manual_seed(0)
    reference = cls(4, 3, [2, 3, 2])
    half = cls(4, 3, [2, 3, 2])
    half.load_state_dict(reference.state_dict())
    half = half.to(dtype)
    V = torch.randn(3, 5, 4).to(dtype).requires_grad_()
    x = half(V, torch.tensor([5, 2, 4]))
    x.float().pow(2).sum().backward()
    assert x.dtype == dtype and V.grad.dtype == dtype and half.weight.grad.dtype == dtype
    # the same values as float32 on the rounded inputs, up to the output's rounding
    expected = cls(4, 3, [2, 3, 2])
    expected.load_state_dict({"weight": half.weight.detach().float()}, strict=False)
    want = expected(V.detach().float(), torch.tensor([5, 2, 4]))
    torch.testing.assert_close(x.float(), want, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("cls", LAYERS)
def test_an_unsupported_dtype_is_one_error_listing_the_supported(cls):
    layer = cls(4, 3, 2).to(torch.float8_e4m3fn)
    with pytest.raises(TypeError, match="supports parameters of dtype float32 or float64, and float16 or bfloat16"):
        layer(torch.randn(2, 5, 4).to(torch.float8_e4m3fn))


@pytest.mark.parametrize("cls", LAYERS)
def test_under_autocast_the_layer_computes_and_returns_its_parameters_dtype(cls):
    torch.manual_seed(0)
    layer, linear, V = cls(4, 3, 2), torch.nn.Linear(4, 4), torch.randn(2, 5, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        hidden = linear(V)                                      # bfloat16 under autocast
        x = layer(hidden)
    assert hidden.dtype == torch.bfloat16 and x.dtype == torch.float32
    torch.testing.assert_close(x, layer(hidden.float()))


@pytest.mark.parametrize("cls", LAYERS)
def test_jit_trace_is_refused_rather_than_silently_wrong(cls):
    with pytest.raises(RuntimeError, match="cannot be traced by torch.jit.trace"):
        torch.jit.trace(cls(4, 3, 2), torch.randn(2, 5, 4))


@pytest.mark.parametrize("cls", LAYERS)
def test_double_backward_of_the_sparse_gradient_is_the_dense_ones(cls):
    """create_graph=True through the sparse backward: was a gradient without a graph (an error, or a
    term silently dropped beside others); now the dense mode's second derivatives."""
    torch.manual_seed(0)
    V = torch.randn(3, 5, 4, dtype=torch.float64)
    lengths = torch.tensor([5, 2, 4])
    results = []
    for grad_mode in ("sparse", "dense"):
        torch.manual_seed(1)
        layer = cls(4, 3, [2, 3, 2], grad_mode=grad_mode).double()
        V_ = V.clone().requires_grad_()
        gV, = torch.autograd.grad(layer(V_, lengths).pow(2).sum(), V_, create_graph=True)
        penalty = gV.pow(2).sum() + layer.weight.sum()
        results.append(torch.autograd.grad(penalty, (V_, layer.weight)))
    for sparse, dense in zip(*results):
        torch.testing.assert_close(sparse, dense)
    layer = cls(4, 2, 2).double()
    W = layer.weight.detach().clone().requires_grad_()
    V_ = V.clone().requires_grad_()
    assert torch.autograd.gradgradcheck(lambda V, W: torch.func.functional_call(layer, {"weight": W}, (V, lengths)),
                                        (V_, W))
