"""RepSet / ApproxRepSet as ragged aggregations: equal to the padded layers in values and gradients."""
import pytest
import torch

from repset.layers import ApproxRepSet, RepSet
from repset.layers.aggregation import ApproxRepSetAggregation, HiddenSetAggregation, RepSetAggregation, size_groups
from repset.sets import pad_sets

CASES = [(RepSet, {"solver": "scipy"}), (RepSet, {"solver": "numba"}),
         (RepSet, {"solver": "numba", "normalize": "input_size"}),
         (ApproxRepSet, {"form": "paper"}), (ApproxRepSet, {"form": "official"})]


def ragged(seed=0, sizes=(1, 7, 3, 12, 3, 5, 20, 2)):
    g = torch.Generator().manual_seed(seed)
    sets = [torch.randn(n, 6, generator=g, dtype=torch.float64) for n in sizes]
    return sets, torch.cat(sets), torch.repeat_interleave(torch.arange(len(sets)), torch.tensor(sizes))


@pytest.mark.parametrize("cls, options", CASES)
@pytest.mark.parametrize("max_padding", [0.0, 0.25, 0.9])
def test_values_and_gradients_equal_the_padded_layer(cls, options, max_padding):
    sets, x, index = ragged()
    torch.manual_seed(0)
    layer = cls(6, 4, [3, 2, 5, 1], **options).double()
    aggr = HiddenSetAggregation(layer, max_padding=max_padding)
    V, lengths = pad_sets([s.clone().requires_grad_() for s in sets])
    V = V.detach().requires_grad_()
    expected = layer(V, lengths)
    (expected * torch.arange(1.0, 5.0, dtype=torch.float64)).sum().backward()
    grad_W, grad_V = layer.weight.grad.clone(), V.grad.clone()
    layer.weight.grad = None
    x = x.clone().requires_grad_()
    out = aggr(x, index)
    torch.testing.assert_close(out, expected)
    (out * torch.arange(1.0, 5.0, dtype=torch.float64)).sum().backward()
    torch.testing.assert_close(layer.weight.grad, grad_W)
    torch.testing.assert_close(x.grad, torch.cat([grad_V[i, :len(s)] for i, s in enumerate(sets)]))


def test_ptr_and_unsorted_index():
    sets, x, index = ragged(1)
    torch.manual_seed(0)
    aggr = RepSetAggregation(6, 3, 2, solver="numba").double()
    reference = aggr(x, index)
    ptr = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(torch.bincount(index), 0)])
    torch.testing.assert_close(aggr(x, ptr=ptr), reference)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(aggr(x[perm], index[perm]), reference)


@pytest.mark.parametrize("cls", [RepSetAggregation, ApproxRepSetAggregation])
def test_an_empty_graph_raises_as_the_padded_layers_empty_set(cls):
    """A set without elements is refused as the padded layer refuses an empty set; no set at all is (0, m)."""
    sets, x, index = ragged(1)
    aggr = cls(6, 3, 2).double()
    with pytest.raises(ValueError, match="empty sets are not allowed"):
        aggr.layer(*pad_sets([sets[0], sets[0][:0]]))
    with pytest.raises(ValueError, match=r"empty sets are not allowed \(sets \[1, 3, 5"):
        aggr(x, index * 2, dim_size=17)                       # odd sets and 16 hold no element
    with pytest.raises(ValueError, match="empty sets are not allowed"):
        aggr(x, ptr=torch.tensor([0, 0, len(x)]))
    with pytest.raises(ValueError, match="empty sets are not allowed"):
        aggr(x[:0], index[:0], dim_size=2)
    assert aggr(x[:0], index[:0]).shape == (0, 3)


@pytest.mark.parametrize("bad", [torch.tensor([0.0, 0.0, 1.0]), torch.tensor([0.0, 0.5, 1.0]),
                                 torch.tensor([True, False, True])], ids=["float", "fractional", "bool"])
def test_a_non_integer_batch_is_refused(bad):
    aggr = RepSetAggregation(6, 3, 2)
    x = torch.randn(3, 6)
    with pytest.raises(TypeError, match="index must be an integer tensor"):
        aggr(x, bad)
    with pytest.raises(TypeError, match="ptr must be an integer tensor"):
        aggr(x, ptr=torch.tensor([0.0, 1.0, 3.0]))


def test_an_out_of_range_batch_is_refused():
    aggr = RepSetAggregation(6, 3, 2)
    x = torch.randn(3, 6)
    with pytest.raises(ValueError, match="dim_size 2 is smaller|invalid 'dim_size'"):
        aggr(x, torch.tensor([0, 1, 2]), dim_size=2)
    with pytest.raises(ValueError, match="nonnegative"):
        aggr(x, torch.tensor([0, -1, 1]))


def test_pyg_naming_and_repr():
    """PyG's names (in_channels, out_channels) and a repr with every option, as PyG's own aggregations."""
    aggr = RepSetAggregation(6, 4, hidden_set_size=3, solver="scipy", normalize="input_size")
    assert (aggr.in_channels, aggr.out_channels) == (6, 4)
    assert repr(aggr) == ("RepSetAggregation(6, 4, hidden_set_size=3, normalize='input_size', grad_mode='sparse', "
                          "init='uniform', solver='scipy', max_padding=0.25)")
    approx = ApproxRepSetAggregation(6, n_hidden_sets=2, hidden_set_size=[3, 1], form="official")
    assert approx.out_channels == 2 and "hidden_set_size=[3, 1]" in repr(approx) and "form='official'" in repr(approx)
    assert repr(HiddenSetAggregation(approx.layer, 0.5)).startswith("HiddenSetAggregation(ApproxRepSet(in_dim=6,")
    with pytest.raises(TypeError, match="out_channels .* or n_hidden_sets, exactly one"):
        RepSetAggregation(6, 4, 3, n_hidden_sets=4)
    with pytest.raises(TypeError, match="needs hidden_set_size"):
        RepSetAggregation(6, 4)


def test_arguments_are_checked():
    _, x, index = ragged()
    aggr = ApproxRepSetAggregation(6, 3, 2).double()
    for kwargs, message in (({"index": index[:-1]}, r"index must have shape \(53,\)"),
                            ({"index": index, "dim_size": 3}, "dim_size 3 is smaller"),
                            ({"ptr": torch.tensor([0, 5, 4, 53])}, "ptr must be nondecreasing"),
                            ({"ptr": torch.tensor([0, 53]), "dim_size": 2}, "disagrees with ptr|invalid 'dim_size'")):
        with pytest.raises(ValueError, match=message):
            aggr(x, **kwargs)
    with pytest.raises(ValueError, match="x has 5 features, the layer expects 6"):
        aggr(x[:, :5], index)
    with pytest.raises(TypeError, match="must be a RepSet or ApproxRepSet"):
        HiddenSetAggregation(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match=r"max_padding must lie in \[0, 1\)"):
        RepSetAggregation(6, 3, 2, max_padding=1.0)


def test_size_groups_bound_the_padding():
    sizes = torch.tensor([5, 0, 100, 6, 7, 90, 3, 3, 0, 50])
    groups = size_groups(sizes, 0.25)
    assert sorted(torch.cat(groups).tolist()) == [0, 2, 3, 4, 5, 6, 7, 9]   # every nonempty set, once
    for g in groups:
        s = sizes[g]
        assert int(s.max()) * len(s) * 0.75 <= int(s.sum())
    assert [len(g) for g in size_groups(torch.tensor([4, 4, 4]), 0.0)] == [3]   # equal sizes: no padding
    assert [len(g) for g in size_groups(torch.tensor([4, 5, 6]), 0.0)] == [1, 1, 1]


def test_a_drop_in_pyg_aggregation():
    aggr_module = pytest.importorskip("torch_geometric.nn.aggr")
    _, x, index = ragged()
    x = x.float()
    torch.manual_seed(0)
    ours = RepSetAggregation(6, 4, 3, solver="numba")
    assert isinstance(ours, aggr_module.Aggregation)
    multi = aggr_module.MultiAggregation([aggr_module.SumAggregation(), ours])
    out = multi(x, index)
    assert out.shape == (8, 6 + 4)
    torch.testing.assert_close(out[:, 6:], ours(x, index))
    torch.testing.assert_close(out[:, :6], aggr_module.SumAggregation()(x, index))
