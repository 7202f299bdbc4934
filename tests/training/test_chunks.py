"""Chunks of a batch: every set once, similar sizes per ragged call, the element bound, the original cut."""
import numpy as np
import torch

from repset.training.chunks import EVAL_BATCH, RAGGED_PADDING, chunks, eval_batches


def sizes(n=300, seed=0):
    return torch.from_numpy(np.random.default_rng(seed).integers(0, 400, n))


def covers(parts, n):
    return sorted(torch.cat(parts).tolist()) == list(range(n))


def test_no_bound_not_ragged_is_the_batch_as_it_is():
    lengths = sizes(50)
    assert [p.tolist() for p in chunks(lengths, False, None)] == [list(range(50))]
    assert [p.tolist() for p in chunks(lengths, False, 50 * int(lengths.max()))] == [list(range(50))]   # within


def test_ragged_calls_cover_every_set_with_little_padding():
    lengths = sizes()
    parts = chunks(lengths, True, None)
    assert covers(parts, len(lengths)) and len(parts) > 1
    for part in parts:
        real = int(lengths[part].sum())
        padded = len(part) * int(lengths[part].max())
        # the padding bound holds where there are no empty sets (they join the first, smallest group)
        if int(lengths[part].min()) > 0:
            assert padded - real <= RAGGED_PADDING * padded + 1e-9


def test_element_bound_caps_every_call_but_single_huge_sets():
    lengths = sizes()
    for ragged in (False, True):
        parts = chunks(lengths, ragged, 2000)
        assert covers(parts, len(lengths))
        assert all(len(p) == 1 or len(p) * int(lengths[p].max()) <= 2000 for p in parts)
    assert [len(p) for p in chunks(torch.tensor([5000, 3]), False, 100)] == [1, 1]


def test_eval_batches_are_the_sorted_256_set_cut_without_a_bound():
    lengths = sizes(700)
    plain = eval_batches(lengths)
    assert [p.tolist() for p in plain] == [b.tolist() for b in torch.argsort(lengths, stable=True).split(EVAL_BATCH)]
    bounded = eval_batches(lengths, True, 3000)
    assert covers(bounded, 700) and all(len(p) == 1 or len(p) * int(lengths[p].max()) <= 3000 for p in bounded)
