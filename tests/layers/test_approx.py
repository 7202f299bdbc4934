"""ApproxRepSet: closed forms, Proposition 1, forms, device."""
import pytest
import torch

from repset.layers import ApproxRepSet, RepSet


def test_paper_form_closed_form_and_proposition_1():
    torch.manual_seed(0)
    for trial in range(20):
        sizes = torch.randint(1, 9, (4,)).tolist()
        approx = ApproxRepSet(6, 4, sizes).double()
        exact = RepSet(6, 4, sizes).double()
        exact.load_state_dict(approx.state_dict())
        V = torch.randn(8, 9, 6, dtype=torch.float64)
        lengths = torch.randint(1, 10, (8,))
        xa, xe = approx(V, lengths), exact(V, lengths)
        assert (xa >= xe - 1e-12).all(), "Proposition 1: the relaxation upper-bounds the matching"
        for b in range(8):
            for k, H in enumerate(approx.hidden_sets()):
                F = torch.relu(V[b, : lengths[b]] @ H.T)
                ref = F.amax(0).sum() if lengths[b] >= H.shape[0] else F.amax(1).sum()
                assert xa[b, k].item() == pytest.approx(ref.item(), rel=1e-12)


def test_official_form_always_sums_over_input_elements():
    torch.manual_seed(1)
    layer = ApproxRepSet(3, 2, [2, 5], form="official").double()
    V = torch.randn(3, 4, 3, dtype=torch.float64)
    lengths = torch.tensor([4, 1, 3])
    x = layer(V, lengths)
    for b in range(3):
        for k, H in enumerate(layer.hidden_sets()):
            assert x[b, k].item() == pytest.approx(torch.relu(V[b, : lengths[b]] @ H.T).amax(1).sum().item())


def test_equal_to_exact_when_one_side_has_one_element():
    torch.manual_seed(2)
    approx = ApproxRepSet(4, 3, 1).double()
    exact = RepSet(4, 3, 1).double()
    exact.load_state_dict(approx.state_dict())
    V = torch.randn(5, 6, 4, dtype=torch.float64)
    assert torch.allclose(approx(V), exact(V))


def test_unknown_form():
    with pytest.raises(ValueError, match="unknown form='exact'; valid: paper, official"):
        ApproxRepSet(3, 2, 2, form="exact")


def test_gradients_flow_to_hidden_sets():
    torch.manual_seed(3)
    layer = ApproxRepSet(4, 2, 3)
    layer(torch.rand(2, 5, 4)).sum().backward()
    assert layer.weight.grad is not None and torch.isfinite(layer.weight.grad).all()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_runs_on_cuda():
    layer = ApproxRepSet(4, 2, 3).cuda()
    V = torch.rand(2, 5, 4, device="cuda")
    cpu = ApproxRepSet(4, 2, 3)
    cpu.load_state_dict({k: v.cpu() for k, v in layer.state_dict().items()})
    assert torch.allclose(layer(V).cpu(), cpu(V.cpu()), atol=1e-5)


def fused_and_torch(layer, V, lengths, tie=False):
    """ApproxRepSet's fused Numba kernel on the raw products, and the torch pairs on ReLU(V H)."""
    from repset.layers.pair_grad import approx_pairs

    B, N, d = V.shape
    index = torch.arange(B * N).view(B, N)
    with torch.no_grad():
        G = layer._products(V.reshape(B * N, d))
        if tie:
            G[:, 0, 0] = G[:, 0, 1]                              # plant ties
        F = layer._edge_rows(V.reshape(B * N, d), G.clone())
        fused = approx_pairs(G.numpy(), index.numpy(), lengths.numpy(), layer.hidden_sizes.numpy(),
                             layer.form == "paper")
        slow = layer._torch_pairs(F.view(B, N, *F.shape[1:]), lengths)
    return F, index, [torch.from_numpy(a) for a in fused], slow


@pytest.mark.parametrize("form", ["paper", "official"])
def test_fused_kernel_equals_torch_pairs(form):
    from repset.layers.ops import picked

    torch.manual_seed(4)
    layer = ApproxRepSet(5, 3, [2, 7, 4], form=form)
    V = torch.rand(6, 5, 5) - 0.3
    lengths = torch.tensor([5, 1, 3, 4, 2, 5])
    V = V * (torch.arange(5)[None, :, None] < lengths[:, None, None])   # zero padding, as forward() does
    F, index, (x, rows, cols), slow = fused_and_torch(layer, V, lengths, tie=True)
    assert rows.shape[-1] == 7 and slow[0].shape[-1] == (5 + 7 if form == "paper" else 5)
    reference = picked(F, index, *slow).sum(-1)
    assert torch.allclose(x, reference, rtol=1e-6, atol=0)
    assert torch.allclose(picked(F, index, rows, cols).sum(-1), reference, rtol=1e-6, atol=0)
    # the kernel keeps only pairs on positive weights (ReLU applied inside), and drops some here
    assert (picked(F, index, rows, cols)[rows >= 0] > 0).all()
    assert ((rows < 0) & (cols >= 0)).any()


def test_fused_kernel_uses_k_slots_when_every_set_is_larger():
    from repset.layers.ops import picked

    torch.manual_seed(5)
    layer = ApproxRepSet(4, 3, [2, 3, 1])
    V = torch.rand(5, 6, 4) + 0.1                           # positive products: every pair is active
    layer.weight.data.abs_()
    lengths = torch.tensor([6, 3, 4, 5, 6])                 # every |X| >= max |Y_k| = 3
    V = V * (torch.arange(6)[None, :, None] < lengths[:, None, None])
    F, index, (x, rows, cols), slow = fused_and_torch(layer, V, lengths)
    assert rows.shape[-1] == 3                              # K slots, not max(N, K) = 6
    assert torch.allclose(x, picked(F, index, *slow).sum(-1), rtol=1e-6, atol=0)
    # each hidden element j < |Y_k| is paired once, with a row of its set
    assert ((rows >= 0).sum(-1) == torch.tensor([2, 3, 1])).all()
    assert (rows < lengths[:, None, None]).all()


@pytest.mark.parametrize("grad_mode", ["sparse", "dense"])
def test_torch_path_equals_fused_kernel_on_element_ids(grad_mode):
    """The device-agnostic path (GPUs) with element ids: the same values and gradients as the CPU kernel."""
    from repset.layers.base import HiddenSetLayer

    torch.manual_seed(6)
    layer = ApproxRepSet(4, 3, [2, 5, 3], grad_mode=grad_mode).double()
    E = torch.randn(7, 4, dtype=torch.float64)
    ids = torch.randint(0, 7, (4, 6))
    lengths = torch.tensor([6, 1, 4, 3])
    results = []
    for set_values in (type(layer).set_values, HiddenSetLayer.set_values):
        layer.weight.grad = None
        with torch.set_grad_enabled(True):
            index, _ = torch.where(torch.arange(6)[None] < lengths[:, None], ids, 0), None
            G = layer._products(E) if grad_mode == "dense" else layer._products(E).detach()
            x = set_values(layer, E, G, index, lengths)
            x.pow(2).sum().backward()
        results.append((x.detach(), layer.weight.grad.clone()))
    for a, b in zip(*results):
        assert torch.allclose(a, b, rtol=1e-12, atol=1e-12)
    assert results[0][1].abs().sum() > 0
