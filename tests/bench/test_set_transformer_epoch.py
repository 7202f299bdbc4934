"""Set Transformer epoch bench: layer versions loaded from a file or a git revision, the trainer's batches,
their padding counted exactly, both versions timed on the same batches."""
import shutil
import subprocess

import numpy as np
import pytest
import torch

from repo_paths import ROOT

from repset.bench.graph_scale import synthetic
from repset.bench.set_transformer_epoch import (LAYER_FILE, call_padding, compare, epoch_batches, layer_module,
                                                main, max_difference)
from repset.layers import SetTransformer
from repset.training.trainer import TrainConfig, batch_indices


def _tiny():
    return synthetic(np.array([1, 2, 3, 5, 8, 9, 20, 21, 30, 2, 4, 6]), 3, 0)


def test_a_layer_file_loads_as_the_layer(tmp_path):
    copy = tmp_path / "set_transformer.py"
    shutil.copy(ROOT / LAYER_FILE, copy)
    module = layer_module(copy, "copy")
    assert module.__name__ == "repset.layers._bench_copy" and module.SetTransformer is not SetTransformer
    V, lengths = torch.randn(2, 4, 3, generator=torch.Generator().manual_seed(1)), torch.tensor([4, 2])
    torch.manual_seed(0)
    ours = module.SetTransformer(3, dim_hidden=8, num_heads=2)
    torch.manual_seed(0)
    assert torch.equal(ours(V, lengths), SetTransformer(3, dim_hidden=8, num_heads=2)(V, lengths))


def test_a_git_revision_loads_and_a_bad_source_is_named():
    if subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"HEAD:{LAYER_FILE}"]).returncode:
        pytest.skip("no git history with the layer here")
    assert hasattr(layer_module("HEAD", "head"), "SetTransformer")
    with pytest.raises(ValueError, match="--before: 'no-such-revision' is neither a file nor a git revision"):
        layer_module("no-such-revision", "before")


def test_epoch_batches_are_the_trainers_and_a_sample_starts_at_the_largest():
    lengths = _tiny().lengths()
    config = TrainConfig(batch_size=2, patience=None)
    batches = epoch_batches(lengths, config)
    expected = batch_indices(len(lengths), 2, torch.Generator().manual_seed(0), lengths)
    assert [b.tolist() for b in batches] == [b.tolist() for b in expected]
    by_size = sorted(batches, key=lambda b: -int(lengths[b].max()))
    assert [b.tolist() for b in epoch_batches(lengths, config, 4)] == [by_size[0].tolist(), by_size[4].tolist()]
    with pytest.raises(ValueError, match="sample must be >= 1"):
        epoch_batches(lengths, config, 0)


def test_call_padding_counts_exactly():
    lengths = torch.tensor([1, 4, 2, 2])
    one_call = call_padding(lengths, [torch.arange(4)], TrainConfig(patience=None))
    assert one_call == {"calls": 1, "elements": 16 / 9, "attention": 64 / 25, "smallest": 1, "beside_smallest": 4,
                        "worst": (1, 4)}
    # over the element bound: groups with at most 25 % padding, {1, 2, 2} (1 of 6 rows) and {4}
    split = call_padding(lengths, [torch.arange(4)], TrainConfig(patience=None, max_elements=8))
    assert split == {"calls": 2, "elements": 10 / 9, "attention": 28 / 25, "smallest": 1, "beside_smallest": 2,
                     "worst": (1, 2)}


def test_both_versions_timed_on_the_same_batches(tmp_path):
    data = _tiny()
    copy = tmp_path / "set_transformer.py"
    shutil.copy(ROOT / LAYER_FILE, copy)
    modules = {"before": layer_module(copy, "before"), "after": layer_module(ROOT / LAYER_FILE, "after")}
    config = TrainConfig(batch_size=4, patience=None)
    batches = epoch_batches(data.lengths(), config)
    threads = torch.get_num_threads()
    out = compare(modules, data, batches, config, repeats=1)
    assert all(out[k] > 0 for k in ("before", "after", "before_cpu", "after_cpu"))
    assert out["ratio"] == out["before"] / out["after"] and out["ratio_cpu"] == out["before_cpu"] / out["after_cpu"]
    assert torch.get_num_threads() == threads
    assert max_difference(modules, data, batches[0]) == 0.0


def test_main_prints_the_padding_and_the_ratio(monkeypatch, capsys):
    monkeypatch.setattr("repset.bench.set_transformer_epoch.fold_sizes",
                        lambda dataset, raw: {"train": np.array([6, 7, 9, 12, 30, 31, 200]), "val": np.array([5])})
    main(["--before", str(ROOT / LAYER_FILE), "--sample", "1", "--repeats", "1", "--dim", "3"])
    out = capsys.readouterr().out
    assert "bucket=True, ragged=False, max_elements=65536: 1 calls, padded / real elements" in out
    assert "the 6-node graph padded to 200" in out and "before / after:" in out
    assert "logits differ by at most 0.0e+00" in out
