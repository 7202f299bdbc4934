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


@pytest.mark.parametrize("form", ["paper", "official"])
def test_numba_pairs_equal_torch_pairs(form):
    from repset.layers.matched_sum import _picked

    torch.manual_seed(4)
    layer = ApproxRepSet(5, 3, [2, 7, 4], form=form)
    V = torch.rand(6, 5, 5) - 0.3
    lengths = torch.tensor([5, 1, 3, 4, 2, 5])
    V = V * (torch.arange(5)[None, :, None] < lengths[:, None, None])   # zero padding, as forward() does
    with torch.no_grad():
        F = layer.edge_weights(V)
        F[:, :, 0, 0] = F[:, :, 0, 1]                    # plant ties
        fast = layer.select_pairs(F, lengths)
        slow = layer._torch_pairs(F, lengths)
    assert fast[0].shape[-1] == 7 and slow[0].shape[-1] == (5 + 7 if form == "paper" else 5)
    assert torch.allclose(_picked(F, *fast).sum(-1), _picked(F, *slow).sum(-1), rtol=1e-6, atol=0)


def test_numba_pairs_use_k_slots_when_every_set_is_larger():
    from repset.layers.matched_sum import _picked

    torch.manual_seed(5)
    layer = ApproxRepSet(4, 3, [2, 3, 1])
    V = torch.rand(5, 6, 4) - 0.3
    lengths = torch.tensor([6, 3, 4, 5, 6])                 # every |X| >= max |Y_k| = 3
    V = V * (torch.arange(6)[None, :, None] < lengths[:, None, None])
    with torch.no_grad():
        F = layer.edge_weights(V)
        fast, slow = layer.select_pairs(F, lengths), layer._torch_pairs(F, lengths)
    assert fast[0].shape[-1] == 3                            # K slots, not max(N, K) = 6
    assert torch.equal(_picked(F, *fast).sum(-1), _picked(F, *slow).sum(-1))
    # each hidden element j < |Y_k| is paired once, with a row of its set
    assert ((fast[1] >= 0).sum(-1) == torch.tensor([2, 3, 1])).all()
    assert (fast[0] < lengths[:, None, None]).all()
