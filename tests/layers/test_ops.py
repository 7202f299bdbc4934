"""The layers' custom operators: fake implementations consistent with the real ones (torch.library.opcheck),
and what they make possible: torch.compile with fullgraph=True, torch.export (static and dynamic shapes),
torch.func.vmap and jacrev, all equal to eager; value checks still raise in a compiled program."""
import copy

import pytest
import torch
from torch.export import Dim

from repset.layers import ApproxRepSet, RepSet
from repset.layers import ops
from solvers import get_solver

LAYERS = [RepSet, ApproxRepSet]


@pytest.fixture(autouse=True)
def fresh_dynamo():
    """Each test compiles afresh: Dynamo's recompile limit counts every layer compiled in the process."""
    torch._dynamo.reset()


def batch(B=3, N=5, d=4, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, N + 1, (B,), generator=g)
    lengths[0] = N
    return torch.randn(B, N, d, generator=g, dtype=dtype), lengths


def sample_args():
    """Valid inputs of every operator, from one small batch (F, its pairs, a gradient)."""
    torch.manual_seed(0)
    layer = RepSet(4, 3, [2, 3, 2]).double()
    V, lengths = batch()
    E, index = V.reshape(15, 4), torch.arange(15).view(3, 5)
    G = (E @ layer.weight.reshape(4, -1)).view(15, 3, 3).detach()
    F = G.clamp_min(0) * layer.hidden_mask
    _, rows, cols = ops.match_values(F, index, lengths, layer.hidden_sizes, ops.solver_key(layer.solver))
    hidden = layer.weight.detach().permute(1, 2, 0).contiguous()
    return {
        "match_values": (ops.match_values.op, (F, index, lengths, layer.hidden_sizes, ops.solver_key(layer.solver))),
        "approx_pairs": (ops.approx_pairs.op, (G, index, lengths, layer.hidden_sizes, True, 5)),
        "pair_grads": (ops.pair_grads.op, (E, index, hidden, rows.clamp(min=0), cols.clamp(min=0),
                                           torch.randn(3, 3, dtype=E.dtype), True, False)),
        "checked_batch": (ops.checked_batch, (V, lengths, None, layer.weight.detach(), 4, torch.float64)),
        "check_values": (ops.check_values, (torch.ones(3, 3), torch.ones(3, 3), G, E, layer.weight.detach(),
                                            "RepSet")),
        "match_products": (ops.match_products.op, (E, layer.weight.detach(), layer.hidden_mask.double(), index,
                                                   lengths, layer.hidden_sizes, ops.solver_key(layer.solver))),
        "approx_products": (ops.approx_products.op, (E, layer.weight.detach(), index, lengths, layer.hidden_sizes,
                                                     True, 5)),
    }


def test_operators_making_their_products_equal_those_given_them():
    """match_products / approx_products (the products made in a per-thread buffer) give match_values' and
    approx_pairs' outputs exactly, also after a larger and a smaller call have reused the buffer."""
    args = sample_args()
    for fused, given, at in (("match_products", "match_values", 3), ("approx_products", "approx_pairs", 2)):
        op, fused_args = args[fused]
        want = args[given][0](*args[given][1])
        for B in (8, 1):                                   # a larger, then a smaller call in between
            other = list(fused_args)
            other[0] = torch.randn(B * 5, 4, dtype=torch.float64)
            other[at:at + 2] = [torch.arange(B * 5).view(B, 5), torch.full((B,), 5)]    # index, lengths
            op(*other)
        for got, expected in zip(op(*fused_args), want):
            torch.testing.assert_close(got, expected, rtol=0, atol=0)


@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("compiled", [False, True])
def test_training_after_an_inference_mode_evaluation_of_a_larger_batch(cls, compiled):
    """The products' buffers (the eager layer's and a traced forward's per-thread one) grow under
    torch.inference_mode without becoming inference tensors, so the next training step can write them."""
    ops.release_buffers()
    layer = model_of(cls)[0]
    run = torch.compile(layer, fullgraph=True, backend="aot_eager") if compiled else layer
    small, large = batch(2, 3, seed=1)[0], batch(8, 5, seed=2)[0]
    run(small).sum().backward()
    with torch.inference_mode():
        evaluated = run(large)
    layer.zero_grad()
    run(small).sum().backward()
    torch.testing.assert_close(evaluated, model_of(cls)[0](large).detach(), rtol=0, atol=0)   # weights unchanged
    assert layer.weight.grad is not None and torch.isfinite(layer.weight.grad).all()


def test_released_buffers_are_made_again_on_the_next_call():
    op, args = sample_args()["match_products"]
    want = op(*args)
    ops.release_buffers()
    assert "buffers" not in ops._SCRATCH.__dict__
    for got, expected in zip(op(*args), want):
        torch.testing.assert_close(got, expected, rtol=0, atol=0)


@pytest.mark.parametrize("name", ["match_values", "approx_pairs", "pair_grads", "checked_batch", "check_values",
                                  "match_products", "approx_products"])
def test_fake_implementations_agree_with_the_operators(name):
    op, args = sample_args()[name]
    torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))


def model_of(cls, grad_mode="sparse"):
    torch.manual_seed(0)
    return torch.nn.Sequential(cls(4, 3, [2, 3, 2], grad_mode=grad_mode), torch.nn.Linear(3, 2)).double()


def values_and_grads(model, V):
    model.zero_grad()
    V = V.clone().requires_grad_()
    x = model(V)
    x.pow(2).sum().backward()
    return [x.detach(), V.grad, *(p.grad.clone() for p in model.parameters())]


@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("grad_mode", ["sparse", "dense"])
def test_compile_fullgraph_equals_eager_on_new_shapes(cls, grad_mode):
    """One graph (fullgraph: a graph break would raise); a new input of the compiled shape gets its own pairs,
    one of another shape (fewer elements than hidden elements: a recompile with dynamic shapes) too; values
    and gradients are eager's (the ``aot_eager`` backend: Dynamo and AOTAutograd, without codegen)."""
    model = model_of(cls, grad_mode)
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    for seed, (B, N) in enumerate([(3, 5), (3, 5), (6, 2)]):
        V, _ = batch(B, N, seed=seed)
        for got, want in zip(values_and_grads(compiled, V), values_and_grads(model, V)):
            torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_a_device_solver_compiles_too():
    """The ``cuda`` solver (torch operations, here on CPU tensors) runs inside the matching operator as well."""
    layer, reference = RepSet(4, 3, [2, 3, 7], solver="cuda").double(), RepSet(4, 3, [2, 3, 7], solver="scipy").double()
    reference.load_state_dict(layer.state_dict())
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    V, lengths = batch(4, 6, seed=2)
    torch.testing.assert_close(compiled(V, lengths), reference(V, lengths), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls", LAYERS)
def test_compiled_sets_as_distinct_elements_with_lengths(cls):
    layer = model_of(cls)[0]
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    g = torch.Generator().manual_seed(1)
    E, ids, lengths = torch.randn(7, 4, generator=g, dtype=torch.float64), torch.randint(0, 7, (3, 5), generator=g), \
        torch.tensor([5, 1, 3])
    torch.testing.assert_close(compiled(E, lengths, element_ids=ids), layer(E, lengths, element_ids=ids),
                               rtol=0, atol=0)


@pytest.mark.parametrize("cls", LAYERS)
def test_compiled_layers_still_check_values_at_each_call(cls):
    layer = cls(3, 1, 1)
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    V = torch.randn(2, 4, 3)
    compiled(V)
    bad = V.clone()
    bad[1, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="NaN or infinite"):
        compiled(bad)
    with pytest.raises(ValueError, match="empty sets"):
        compiled(V, torch.tensor([3, 0]))
    with torch.no_grad():
        layer.weight[:] = torch.tensor([1e20, -1e20, 1e5]).view(3, 1, 1)
    with pytest.raises(ValueError, match="overflow"):
        compiled(torch.tensor([[[1e20, 1e20, 1.0]]]))
    with torch.no_grad():
        layer.weight[0] = float("nan")
    with pytest.raises(ValueError, match="weight\\) contain NaN or inf"):
        compiled(V)


@pytest.mark.parametrize("cls", LAYERS)
def test_a_compiled_float16_layer_returns_float16_and_checks_its_overflow(cls):
    torch.manual_seed(0)
    layer, V = cls(4, 3, [2, 3, 2]).half(), torch.randn(3, 5, 4).half()
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    x = compiled(V)
    assert x.dtype == torch.float16
    torch.testing.assert_close(x, layer(V), rtol=0, atol=0)
    with torch.no_grad():
        layer.weight.fill_(200.0)
    with pytest.raises(ValueError, match=f"{cls.__name__}: set values up to .* overflow torch.float16"):
        compiled(torch.full((3, 5, 4), 200.0, dtype=torch.float16))


@pytest.mark.parametrize("cls", LAYERS)
def test_export_equals_eager_on_new_inputs_and_sizes(cls):
    layer = model_of(cls)[0]
    V, lengths = batch()
    program = torch.export.export(layer, (V, lengths))
    targets = {str(node.target) for module in program.graph_module.modules() if isinstance(module, torch.fx.GraphModule)
               for node in module.graph.nodes if node.op == "call_function"}    # autocast-off regions: submodules
    assert {"repset.checked_batch.default", "repset.check_values.default"} <= targets
    # the sparse gradient on the CPU: the products are made inside the layer's operator, not in the graph
    assert f"repset.{'match' if cls is RepSet else 'approx'}_products.default" in targets
    assert "aten.mm.default" not in targets
    V2, lengths2 = batch(seed=5)
    torch.testing.assert_close(program.module()(V2, lengths2), layer(V2, lengths2), rtol=0, atol=0)
    B, N = Dim("B"), Dim("N")
    program = torch.export.export(layer, (V, lengths), dynamic_shapes=({0: B, 1: N}, {0: B}))
    for B_, N_ in [(6, 9), (1, 1), (2, 30)]:
        V3, lengths3 = batch(B_, N_, seed=B_)
        torch.testing.assert_close(program.module()(V3, lengths3), layer(V3, lengths3), rtol=0, atol=0)


@pytest.mark.parametrize("cls", LAYERS)
def test_vmap_equals_a_loop(cls):
    layer = model_of(cls)[0]
    Vs = torch.randn(4, 3, 5, 4, dtype=torch.float64)
    lengths = torch.randint(1, 6, (4, 3))
    got = torch.func.vmap(layer)(Vs, lengths)
    torch.testing.assert_close(got, torch.stack([layer(V, n) for V, n in zip(Vs, lengths)]), rtol=0, atol=0)
    shared = torch.func.vmap(layer, in_dims=(0, None))(Vs, lengths[0])   # one lengths for every batch
    torch.testing.assert_close(shared, torch.stack([layer(V, lengths[0]) for V in Vs]), rtol=0, atol=0)


@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("grad_mode", ["sparse", "dense"])
def test_jacrev_equals_autograd_and_finite_differences(cls, grad_mode):
    layer = model_of(cls, grad_mode)[0]
    V, lengths = batch(2, 4, seed=3)

    def f(V):
        return layer(V, lengths)

    jac = torch.func.jacrev(f)(V)
    torch.testing.assert_close(jac, torch.autograd.functional.jacobian(f, V), rtol=1e-12, atol=1e-12)
    eps, flat = 1e-6, V.reshape(-1)
    columns = []
    for i in range(flat.numel()):          # central differences: the value is bilinear while the pairs hold
        step = torch.zeros_like(flat)
        step[i] = eps
        columns.append((f((flat + step).view_as(V)) - f((flat - step).view_as(V))) / (2 * eps))
    torch.testing.assert_close(jac.reshape(-1, flat.numel()), torch.stack(columns, -1).reshape(-1, flat.numel()),
                               rtol=1e-6, atol=1e-6)
    W = layer.weight.detach()
    jac_W = torch.func.jacrev(lambda W: torch.func.functional_call(layer, {"weight": W}, (V, lengths)))(W)
    torch.testing.assert_close(jac_W, torch.autograd.functional.jacobian(
        lambda W: torch.func.functional_call(layer, {"weight": W}, (V, lengths)), W), rtol=1e-12, atol=1e-12)


def test_solver_keys_find_the_layers_solver_and_fall_back_to_the_registry():
    solver = get_solver("numba", threads=1)
    layer = RepSet(4, 3, 2, solver=solver).double()
    assert ops.solver_key(solver) == layer._solver_key and ops._solver(layer._solver_key) is solver
    assert ops._solver("scipy:123456789").name == "scipy"      # a key of another process: the registry's solver
    twin = copy.deepcopy(layer)
    assert twin.solver is not solver and ops._solver(twin._solver_key) is twin.solver
    layer.solver = "scipy"
    assert ops._solver(layer._solver_key).name == "scipy"
    V, _ = batch()
    torch.testing.assert_close(layer(V), twin(V), rtol=1e-12, atol=1e-12)
