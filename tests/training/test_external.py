"""Set layers from outside the package: the three ways to name one, and the contract each is held to."""
import inspect

import pytest
import torch
from repo_paths import ROOT
from torch import nn

from repset.layers import DeepSets
from repset.training.classifier import SetClassifier, build_layer
from repset.training.external import (ENTRY_POINT_GROUP, LayerContractError, RaggedLayer, check_layer, is_registered,
                                      resolve_layer)


class Reference(nn.Module):
    """Keeps the contract: a masked mean of a linear map."""

    def __init__(self, in_dim: int, out_dim: int = 4) -> None:
        super().__init__()
        self.out_dim, self.phi = out_dim, nn.Linear(in_dim, out_dim)

    def forward(self, V, lengths):
        mask = (torch.arange(V.shape[1])[None, :] < lengths[:, None]).to(V.dtype)[..., None]
        return (self.phi(V) * mask).sum(1) / lengths[:, None]


def test_registry_names_resolve_to_the_package_layers():
    assert resolve_layer("deepsets") is DeepSets and is_registered("deepsets")
    assert not is_registered("examples/sum_pool.py:SumPool")


def test_a_module_path_a_file_path_and_an_entry_point_resolve(tmp_path, monkeypatch):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "pooling.py").write_text("import torch\nfrom torch import nn\n\n\n" + inspect.getsource(Reference))
    monkeypatch.syspath_prepend(str(tmp_path))
    by_module = resolve_layer("mypkg.pooling:Reference")
    assert by_module.__name__ == "Reference" and by_module.__module__ == "mypkg.pooling"
    monkeypatch.chdir(tmp_path)                               # a file path is relative to the working directory
    by_file = resolve_layer("mypkg/pooling.py:Reference")
    assert by_file.__name__ == "Reference" and by_file is not Reference
    assert by_file is resolve_layer("mypkg/pooling.py:Reference")          # the file is loaded once per process
    dist = tmp_path / "mypkg-0.1.dist-info"                     # an installed distribution declaring the entry point
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nmean_pool = mypkg.pooling:Reference\n")
    assert resolve_layer("mean_pool") is by_module
    layer = build_layer("mean_pool", 3, out_dim=5)
    assert layer.out_dim == 5 and layer(torch.ones(2, 4, 3), torch.tensor([4, 2])).shape == (2, 5)
    with pytest.raises(LayerContractError, match=r"unknown layer 'men_pool'; valid layers: .*deepsets.*entry points "
                                                 rf"of group '{ENTRY_POINT_GROUP}': .*mean_pool"):
        resolve_layer("men_pool")


@pytest.mark.parametrize("name, message", [
    ("no_such_package.pooling:Pool", r"cannot import 'no_such_package.pooling' \(ModuleNotFoundError.*pip install -e"),
    ("examples/no_such_file.py:Pool", r"no file examples/no_such_file.py"),
    ("examples/sum_pool.py:SumPol", r"examples/sum_pool.py has no attribute 'SumPol'"),
    ("examples/sum_pool.py:torch", r"module .* is not a class or a function returning a torch.nn.Module"),
    ("examples/sum_pool.py:", r"an import path is 'package.module:Name'"),
])
def test_a_wrong_import_path_says_what_failed(name, message, monkeypatch):
    monkeypatch.chdir(ROOT)
    with pytest.raises(LayerContractError, match=message):
        resolve_layer(name)


class NoOutDim(Reference):
    def __init__(self, in_dim: int) -> None:
        super().__init__(in_dim)
        del self.out_dim


class WrongWidth(Reference):
    def forward(self, V, lengths):
        return super().forward(V, lengths)[:, :2]


class ReadsPadding(Reference):
    def forward(self, V, lengths):
        return self.phi(V).sum(1)                         # phi(0) = bias: the padding counts


class BatchNormalised(Reference):
    def forward(self, V, lengths):
        out = super().forward(V, lengths)
        return out - out.mean(0)                          # a set's output depends on the others of its batch


class NotFinite(Reference):
    def forward(self, V, lengths):
        return super().forward(V, lengths) / 0


class Crashes(Reference):
    def forward(self, V, lengths):
        raise RuntimeError("shapes do not match")


@pytest.mark.parametrize("layer, message", [
    (NoOutDim, r"needs an attribute out_dim, an int >= 1 .*got None"),
    (WrongWidth, r"returned \(3, 2\), expected \(B, out_dim\) = \(3, 4\)"),
    (ReadsPadding, r"padded 2 elements further give other outputs .*mask the padding"),
    (BatchNormalised, r"run one set at a time give other outputs"),
    (NotFinite, r"values that are not all finite"),
    (Crashes, r"forward on 3 padded set\(s\) of \[4, 1, 3\] elements of dim 3 raised RuntimeError: shapes do not"),
    (lambda in_dim: "not a module", r"returned a str, not a torch.nn.Module"),
])
def test_a_layer_that_breaks_the_contract_is_named_with_what_it_broke(layer, message):
    with pytest.raises(LayerContractError, match=message):
        check_layer(layer)


def test_the_constructor_refusing_an_option_keeps_its_own_error():
    assert check_layer(Reference, {"out_dim": 6}).out_dim == 6
    with pytest.raises(TypeError, match="unexpected keyword argument 'width'"):
        check_layer(Reference, {"width": 6})


class RaggedSum(nn.Module):
    """The ragged form: ``forward(x, index, dim_size)``, as PyG's aggregations."""

    ragged = True

    def __init__(self, in_dim: int, out_dim: int = 3) -> None:
        super().__init__()
        self.out_dim, self.phi = out_dim, nn.Linear(in_dim, out_dim)

    def forward(self, x, index, dim_size):
        return torch.zeros(dim_size, self.out_dim).index_add(0, index, self.phi(x))


def test_a_ragged_layer_is_checked_and_trained_in_the_padded_form():
    layer = check_layer(RaggedSum)
    assert isinstance(layer, RaggedLayer) and layer.out_dim == 3
    V, lengths = torch.randn(2, 5, 3), torch.tensor([5, 2])
    expected = torch.stack([layer.layer.phi(V[0]).sum(0), layer.layer.phi(V[1, :2]).sum(0)])
    torch.testing.assert_close(layer(V, lengths), expected)
    model = SetClassifier(layer, n_classes=2)
    model(V, lengths).sum().backward()
    assert layer.layer.phi.weight.grad is not None and layer.layer.phi.weight.grad.abs().sum() > 0
