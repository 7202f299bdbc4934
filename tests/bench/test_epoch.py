"""The epoch benchmark on a tiny shape: one row per variant, paired floors, unknown variants rejected."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import torch

from repset.bench.epoch import EpochShape, epoch_benchmark, paired_seconds, synthetic_sets

TINY = EpochShape(n_sets=12, set_size=5, d=6, m=3, k=4, batch_size=4, n_classes=2)


def test_rows_and_ratio_per_variant():
    table = epoch_benchmark(["repset/numba", "approx_repset", "deepsets"], TINY, repeats=3)
    assert table["variant"].tolist() == ["repset/numba", "approx_repset", "deepsets"]
    assert (table["epoch_seconds"] > 0).all() and (table["matmul_seconds"] > 0).all()
    assert (table["epoch_over_matmul"] > 0).all() and (table["repeats"] == 3).all()
    assert (table["shape_set_size"] == 5).all() and (table["shape_m"] == 3).all()


def test_paired_seconds_has_one_floor_per_epoch():
    epochs, floors, distinct = paired_seconds("repset/scipy", synthetic_sets(TINY), TINY, repeats=4)
    assert len(epochs) == len(floors) == len(distinct) == 4
    assert min(epochs) > 0 and min(floors) > 0 and np.isnan(distinct).all()   # no element ids: no distinct floor


def test_word_sets_get_the_distinct_floor_and_padded_variants_skip_the_ids(monkeypatch):
    from repset.sets import SetDataset

    words = replace(TINY, vocabulary=8)
    data = synthetic_sets(words)
    assert data.element_ids is not None and len(torch.unique(data.element_ids)) <= 8
    calls = []
    monkeypatch.setattr(SetDataset, "indexed_batch", lambda self, index, _f=SetDataset.indexed_batch:
                        calls.append(1) or _f(self, index))
    table = epoch_benchmark(["approx_repset/padded"], words, repeats=2, data_name="words")
    floor_calls = len(calls)                       # the distinct floor's batches only: training was padded
    assert floor_calls == 3                         # 12 sets in batches of 4
    table = pd.concat([table, epoch_benchmark(["approx_repset"], words, repeats=2, data_name="words")])
    assert len(calls) > 2 * floor_calls            # and now the training epochs too
    assert (table["data"] == "words").all() and (table["distinct_matmul_seconds"] > 0).all()
    assert (table["epoch_over_distinct_matmul"] > 0).all()


def test_vocabulary_zero_gives_every_element_its_own_id():
    data = synthetic_sets(replace(TINY, vocabulary=0))
    assert data.element_ids.tolist() == list(range(60))
    with pytest.raises(ValueError, match="vocabulary \\(3\\) must hold at least set_size \\(5\\)"):
        synthetic_sets(replace(TINY, vocabulary=3))


def test_synthetic_sets_are_seeded():
    a, b = synthetic_sets(TINY, seed=3), synthetic_sets(TINY, seed=3)
    assert len(a) == 12 and a.values.shape == (60, 6)
    assert (a.values == b.values).all() and not (a.values == synthetic_sets(TINY, seed=4).values).all()


def test_unknown_variant_lists_valid_names():
    with pytest.raises(ValueError, match="unknown variants \\['fast'\\]; valid: repset/scipy"):
        epoch_benchmark(["fast"], TINY)


def test_random_vectors_keep_the_sets_and_their_sharing():
    from repset.bench.epoch import with_random_vectors

    words = synthetic_sets(replace(TINY, vocabulary=8))
    wide = with_random_vectors(words, 11, seed=2)
    assert wide.dim == 11 and torch.equal(wide.element_ids, words.element_ids) and torch.equal(wide.offsets, words.offsets)
    E, ids, _ = wide.indexed_batch(torch.arange(4))
    assert len(E) == len(words.indexed_batch(torch.arange(4))[0])     # the same distinct words per batch
    with pytest.raises(ValueError, match="needs a SetDataset with element_ids"):
        with_random_vectors(synthetic_sets(TINY), 11)
