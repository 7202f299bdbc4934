"""The solver-steps benchmark: one batch solved in bounded steps equals it solved whole, and the steps are counted."""
from __future__ import annotations

import torch

import solvers.cuda as cuda_module
from repset.bench.solve_steps import indexed_batch, main


def test_batch_layout_lists_each_sets_rows():
    table, row_index, lengths = indexed_batch(5, 40, 10.0, 3, 4, 6, seed=1, device="cpu")
    assert table.shape == (int(lengths.sum()), 3, 4) and row_index.shape == (5, 40)
    assert int(lengths.max()) == 40 and torch.equal(lengths, lengths.sort().values) and (table >= 0).all()
    starts = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
    for p in range(5):
        assert torch.equal(row_index[p, : lengths[p]], starts[p] + torch.arange(int(lengths[p])))


def test_steps_give_the_whole_batchs_matchings(capsys):
    whole = 7 * 30 * 4 * 5                                  # sets x hidden sets x max size x k
    rows = main(["--device", "cpu", "--sets", "7", "--max-size", "30", "--median", "8", "--m", "4", "--k", "5",
                 "--steps", str(whole), "601", "1", "--repeats", "1"])
    lengths = indexed_batch(7, 30, 8.0, 4, 5, 20, seed=0, device="cpu")[2]
    small = int((lengths <= 5).sum())                      # sets whose problems keep their rows (n <= k)
    assert 0 < small < 7                                    # both orientations, each solved in its own steps
    per = 601 // (30 * 5)
    assert [r["steps"] for r in rows] == [2, -(-small * 4 // per) - (-(7 - small) * 4 // per), 28]
    assert all(r["equal"] for r in rows)
    assert all(r["peak_gib"] is None for r in rows) and cuda_module.SOLVE_ELEMENTS == 2**28
    assert capsys.readouterr().out.count("True") == 3
