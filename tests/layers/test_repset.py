"""Exact RepSet layer: value, gradient, invariance, padding, errors."""
import pytest
import torch
from torch.func import functional_call

from repset.layers import ApproxRepSet, RepSet
from set_checks import assert_permutation_invariant
from solvers import get_solver


def random_batch(B=4, N=6, d=5, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    V = torch.randn(B, N, d, generator=g, dtype=dtype)
    lengths = torch.randint(1, N + 1, (B,), generator=g)
    lengths[0] = N
    return V, lengths


@pytest.mark.parametrize("sizes", [3, [1, 4, 2], [7, 7, 7]])
def test_value_equals_brute_force_matching(sizes):
    torch.manual_seed(0)
    layer = RepSet(5, 3, sizes).double()
    V, lengths = random_batch()
    x = layer(V, lengths)
    brute = get_solver("brute")
    for b in range(V.shape[0]):
        for k, H in enumerate(layer.hidden_sets()):
            F = torch.relu(V[b, : lengths[b]] @ H.T).numpy()
            assert x[b, k].item() == pytest.approx(float(brute.solve(F).value), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("N, K", [(6, 3), (3, 6), (4, 4)])
def test_gradcheck_wrt_inputs_and_hidden_sets(N, K):
    torch.manual_seed(1)
    layer = RepSet(4, 2, K).double()
    V, lengths = random_batch(B=3, N=N, d=4, seed=2)
    V.requires_grad_(True)
    W = layer.weight.detach().clone().requires_grad_(True)

    def fn(V, W):
        return functional_call(layer, {"weight": W}, (V, lengths))

    assert torch.autograd.gradcheck(fn, (V, W), eps=1e-6, atol=1e-6)


def test_zero_weight_pairs_get_no_gradient():
    # every inner product is negative, so F == 0 everywhere, yet a full matching is still returned
    layer = RepSet(2, 1, 2).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[[1.0, 2.0]], [[1.0, 1.0]]], dtype=torch.float64))
    V = torch.tensor([[[-1.0, -1.0], [-2.0, -0.5], [-0.3, -3.0]]], dtype=torch.float64, requires_grad=True)
    x = layer(V)
    assert x.item() == 0.0
    x.sum().backward()
    assert torch.count_nonzero(V.grad) == 0 and torch.count_nonzero(layer.weight.grad) == 0


def test_gradient_only_reaches_matched_positive_pairs():
    layer = RepSet(2, 1, 2).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[[1.0, 0.0]], [[0.0, 1.0]]], dtype=torch.float64))   # u1=e1, u2=e2
    V = torch.tensor([[[2.0, 0.0], [0.0, 3.0], [0.1, 0.1]]], dtype=torch.float64, requires_grad=True)
    layer(V).sum().backward()
    # matching pairs v1-u1 (2) and v2-u2 (3); v3 unmatched
    assert torch.equal(V.grad[0], torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], dtype=torch.float64))


@pytest.mark.parametrize("cls", [RepSet, ApproxRepSet])
def test_permutation_invariance_and_padding(cls):
    torch.manual_seed(3)
    layer = cls(5, 4, [3, 5, 2, 8]).double()
    V, lengths = random_batch(B=5, N=7, seed=4)
    x = layer(V, lengths)
    assert_permutation_invariant(layer, V, lengths)
    # padding: garbage (NaN, huge) beyond the lengths and extra padded columns change nothing
    Vg = torch.cat([V, torch.zeros(5, 3, 5, dtype=V.dtype)], dim=1)
    mask = torch.arange(10)[None, :] >= lengths[:, None]
    Vg[mask] = float("nan")
    Vg[mask.nonzero()[0, 0], mask.nonzero()[0, 1]] = 1e9
    assert torch.allclose(layer(Vg, lengths), x, rtol=1e-12)
    # each set alone gives the same output as in the batch
    for b in range(5):
        assert torch.allclose(layer(V[b : b + 1, : lengths[b]]), x[b : b + 1], rtol=1e-12)


def test_normalize_divides_by_set_size():
    torch.manual_seed(5)
    plain = RepSet(5, 3, 4).double()
    norm = RepSet(5, 3, 4, normalize="input_size").double()
    norm.load_state_dict(plain.state_dict())
    V, lengths = random_batch()
    assert torch.allclose(norm(V, lengths), plain(V, lengths) / lengths[:, None])


@pytest.mark.parametrize("cls", [RepSet, ApproxRepSet])
def test_bad_input_names_the_culprit(cls):
    layer = cls(5, 2, 3)
    V = torch.randn(2, 4, 5)
    with pytest.raises(ValueError, match="V must be a tensor of shape"):
        layer(torch.randn(4, 5))
    with pytest.raises(ValueError, match="in_dim=5"):
        layer(torch.randn(2, 4, 6))
    with pytest.raises(ValueError, match="empty sets"):
        layer(V, torch.tensor([3, 0]))
    with pytest.raises(ValueError, match="exceed"):
        layer(V, torch.tensor([3, 5]))
    with pytest.raises(ValueError, match="lengths must be integers"):
        layer(V, torch.tensor([3.0, 2.0]))
    bad = V.clone()
    bad[1, 0, 0] = float("inf")
    with pytest.raises(ValueError, match="NaN or infinite"):
        layer(bad)
    with pytest.raises(ValueError, match="hidden_set_size"):
        cls(5, 2, [3])
    with pytest.raises(ValueError, match="normalize"):
        cls(5, 2, 3, normalize="mean")


def test_unknown_solver_is_refused():
    with pytest.raises(ValueError, match="unknown solver 'nope'.*scipy"):
        RepSet(5, 2, 3, solver="nope")


def test_float32_matches_float64():
    torch.manual_seed(6)
    layer = RepSet(5, 3, 4)
    V, lengths = random_batch(dtype=torch.float32)
    x32 = layer(V, lengths)
    x64 = layer.double()(V.double(), lengths)
    assert torch.allclose(x32.double(), x64, rtol=1e-5)


def test_default_solver_is_numba_where_installed_and_equals_scipy():
    """The default solver is the fast exact one where Numba is installed (scipy otherwise), with scipy's values
    and gradients on ragged batches."""
    from importlib.util import find_spec

    torch.manual_seed(7)
    default = RepSet(5, 3, [2, 4, 7]).double()
    assert default.solver.name == ("numba" if find_spec("numba") else "scipy")
    reference = RepSet(5, 3, [2, 4, 7], solver="scipy").double()
    reference.load_state_dict(default.state_dict())
    V, lengths = random_batch(B=6, N=8, seed=7)
    V.requires_grad_(True)
    x = default(V, lengths)
    (grad,) = torch.autograd.grad(x.sum(), V)
    x_ref = reference(V, lengths)
    (grad_ref,) = torch.autograd.grad(x_ref.sum(), V)
    assert torch.allclose(x, x_ref, rtol=1e-12, atol=1e-12) and torch.allclose(grad, grad_ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device"))])
@pytest.mark.parametrize("grad_mode", ["sparse", "dense"])
def test_cuda_solver_gives_scipys_values_and_gradients(device, grad_mode):
    """solver="cuda" keeps F and the pairs on the tensors' device (CPU tensors in CI): the same values and
    gradients as scipy's, on ragged padded batches and on sets given as distinct elements + ids."""
    torch.manual_seed(8)
    layer = RepSet(5, 4, [2, 4, 7, 30], solver="cuda", grad_mode=grad_mode).double().to(device)
    reference = RepSet(5, 4, [2, 4, 7, 30], solver="scipy", grad_mode=grad_mode).double()
    reference.load_state_dict(layer.state_dict())
    V, lengths = random_batch(B=6, N=12, seed=8)
    E, ids = torch.randn(9, 5, dtype=torch.float64), torch.randint(0, 9, (6, 12))
    for args, kwargs in [((V, lengths), {}), ((E, lengths), {"element_ids": ids})]:
        results = []
        for model, where in [(layer, device), (reference, "cpu")]:
            X = args[0].to(where).requires_grad_(True)
            x = model(X, args[1].to(where), **{key: t.to(where) for key, t in kwargs.items()})
            g = torch.linspace(-1, 1, x.numel(), dtype=x.dtype, device=where).view_as(x)
            results.append([t.cpu() for t in (x, *torch.autograd.grad(x, (X, model.weight), g))])
        for got, expected in zip(*results):
            assert torch.allclose(got, expected, rtol=1e-12, atol=1e-12)
