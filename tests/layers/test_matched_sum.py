"""Sparse (index) and dense gradients of the pair sums agree and pass gradcheck."""
import pytest
import torch
from torch.func import functional_call

from repset.layers import ApproxRepSet, RepSet
from repset.layers.matched_sum import matched_sum


def layer_and_batch(cls, grad_mode, N=5, **kw):
    torch.manual_seed(0)
    layer = cls(4, 3, [2, 6, 3], grad_mode=grad_mode, **kw).double()
    V = torch.randn(3, N, 4, dtype=torch.float64)
    lengths = torch.tensor([N, 2, 1])
    return layer, V, lengths


CASES = [(RepSet, {}), (ApproxRepSet, {"form": "paper"}), (ApproxRepSet, {"form": "official"})]


@pytest.mark.parametrize("cls, kw", CASES)
@pytest.mark.parametrize("grad_mode", ["sparse", "dense"])
def test_gradcheck(cls, kw, grad_mode):
    layer, V, lengths = layer_and_batch(cls, grad_mode, **kw)
    W = layer.weight.detach().clone().requires_grad_(True)
    V.requires_grad_(True)
    fn = lambda V, W: functional_call(layer, {"weight": W}, (V, lengths))  # noqa: E731
    assert torch.autograd.gradcheck(fn, (V, W), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("cls, kw", CASES)
def test_sparse_equals_dense(cls, kw):
    grads = {}
    for mode in ("sparse", "dense"):
        layer, V, lengths = layer_and_batch(cls, mode, N=7, **kw)
        V.requires_grad_(True)
        x = layer(V, lengths)
        (x * torch.arange(1, 4, dtype=x.dtype)).sum().backward()
        grads[mode] = (x.detach(), V.grad, layer.weight.grad)
    for a, b in zip(grads["sparse"], grads["dense"]):
        assert torch.allclose(a, b, rtol=1e-12, atol=1e-12)


def test_padding_pairs_and_unknown_mode():
    F = torch.ones(2, 1, 2)                                    # two element rows, one hidden set of 2
    index = torch.tensor([[0, 1]])
    rows = torch.tensor([[[0, -1, 1]]])
    cols = torch.tensor([[[1, 0, -1]]])
    assert matched_sum(torch.zeros(2, 3), torch.zeros(3, 1, 2), F, index, rows, cols).item() == 1.0
    with pytest.raises(ValueError, match="unknown grad_mode='fast'; valid: sparse, dense"):
        matched_sum(torch.zeros(2, 3), torch.zeros(3, 1, 2), F, index, rows, cols, grad_mode="fast")


def shared_rows(g, B=4, N=6, R=9):
    """An index (B, N) into R table rows, with repeated rows across and within sets."""
    return torch.randint(0, R, (B, N), generator=g)


def test_cpu_kernel_equals_torch_index_add():
    from repset.layers.matched_sum import _cpu_backward, _torch_backward

    g = torch.Generator().manual_seed(7)
    E, W = torch.randn(9, 5, generator=g), torch.randn(5, 3, 4, generator=g)
    index = shared_rows(g)
    rows = torch.randint(0, 6, (4, 3, 4), generator=g)
    rows[torch.rand(4, 3, 4, generator=g) < 0.3] = -1          # inactive pairs
    cols = torch.randint(0, 4, (4, 3, 4), generator=g)
    grad = torch.randn(4, 3, generator=g)
    cpu = _cpu_backward(E, W, index, rows, cols, grad, True, True)
    ref = _torch_backward(E, W, index, rows, cols, grad, True, True)
    for a, b in zip(cpu, ref):
        assert torch.allclose(a, b, atol=1e-5)
    assert cpu[0][0].abs().sum() > 0 and cpu[1].abs().sum() > 0   # the check is not vacuous


def test_cpu_gather_equals_torch_gather():
    from repset.layers.ops import picked
    from repset.layers.pair_grad import gather_pairs

    g = torch.Generator().manual_seed(3)
    F = torch.relu(torch.randn(7, 2, 4, generator=g))          # about half the weights are zero
    index = shared_rows(g, 3, 5, 7)
    rows = torch.randint(-1, 5, (3, 2, 6), generator=g)
    cols = torch.randint(-1, 4, (3, 2, 6), generator=g)
    x, active = gather_pairs(F.numpy(), index.numpy(), rows.numpy(), cols.numpy())
    weights = picked(F, index, rows, cols)
    assert torch.allclose(torch.from_numpy(x), weights.sum(-1), atol=1e-6)
    assert torch.equal(torch.from_numpy(active), torch.where(weights > 0, rows, -1))
    assert (active == -1).sum() > (rows == -1).sum()            # zero-weight pairs were dropped
    # the same pairs on the padded form F[index] (identity index) give the same sums
    dense = F[index].reshape(15, 2, 4)
    x_dense, _ = gather_pairs(dense.numpy(), torch.arange(15).view(3, 5).numpy(), rows.numpy(), cols.numpy())
    assert (x_dense == x).all()
