"""Tests of repset.embed.build_log: a build's cost per stage, read from its log, exactly."""
from __future__ import annotations

import logging
from datetime import datetime

import numpy as np
import pytest

from repset.embed.build_log import build_cost

TWO_PROCESSES = """\
2026-12-01 09:00:00,000 repset.embed.struc2vec rings: 9 nodes, 4 structural classes, 99.0s
2026-12-04 17:00:00,000 repset.embed.struc2vec rings: 9 nodes, 4 structural classes, 12.5s
2026-12-04 17:00:30,250 repset.embed.struc2vec reference context graph: 36 node pairs, 72 edge ends x 3 layers, 30.2s
2026-12-04 17:01:00,000 repset.embed.resumable walks: round 0 of ckpt written (270 tokens)
2026-12-04 17:01:40,000 repset.embed.resumable walks: round 1 of ckpt written (270 tokens)
2026-12-04 17:02:00,000 gensim.models.word2vec EPOCH 0: training on 270 raw words
2026-12-04 17:12:00,000 repset.embed.resumable skip-gram: chunk 1/4 (epoch 0, round 0) 600 s, 45 tokens/s; ETA
2026-12-04 17:22:10,000 repset.embed.resumable skip-gram: chunk 2/4 (epoch 0, round 1) 610 s, 44 tokens/s; ETA
a traceback line without a time
2026-12-04 20:00:00,000 repset.embed.resumable skip-gram: resuming ckpt after 2 of 4 chunks
2026-12-04 20:10:00,000 repset.embed.resumable skip-gram: chunk 3/4 (epoch 1, round 0) 590 s, 46 tokens/s; ETA
2026-12-04 20:20:00,000 repset.embed.resumable skip-gram: chunk 4/4 (epoch 1, round 1) 700 s, 39 tokens/s; done
2026-12-04 21:00:00,000 repset.embed.resumable skip-gram: resuming ckpt after 3 of 4 chunks
2026-12-04 21:09:00,000 repset.embed.resumable skip-gram: chunk 4/4 (epoch 1, round 1) 540 s, 50 tokens/s; done
"""
SINCE = datetime(2026, 12, 4, 17, 0)


def test_stages_are_summed_over_processes_each_chunk_at_its_last_save():
    cost = build_cost(TWO_PROCESSES.splitlines(), since=SINCE)
    assert cost.stages == {"rings": [12.5], "context graph": [30.2], "walks": [29.75, 40.0]}
    assert cost.chunks == {1: (600.0, 45.0), 2: (610.0, 44.0), 3: (590.0, 46.0), 4: (540.0, 50.0)}
    assert (cost.chunks_total, cost.resumes) == (4, 2)
    assert cost.seconds("skip-gram") == 600 + 610 + 590 + 540
    assert cost.total() == pytest.approx(12.5 + 30.2 + 69.75 + 2340)
    table = cost.to_markdown().splitlines()
    assert table[2:] == ["| rings | 12 | 0.00 | once |", "| context graph | 30 | 0.01 | once |",
                         "| walks | 70 | 0.02 | 2 rounds |",
                         "| skip-gram | 2,340 | 0.65 | 4 of 4 chunks saved, 540-610 s each, 44-50 tokens/s; "
                         "3 processes |",
                         "| total | 2,452 | 0.68 | the stages' wall time |"]


def test_without_since_an_older_build_counts_too_and_names_are_optional():
    assert build_cost(TWO_PROCESSES.splitlines()).stages["rings"] == [99.0, 12.5]
    bare = [line.replace(" repset.embed.struc2vec ", " ").replace(" repset.embed.resumable ", " ")
            for line in TWO_PROCESSES.splitlines()]   # the workflow's job logs: time, then the message
    assert build_cost(bare, SINCE) == build_cost(TWO_PROCESSES.splitlines(), SINCE)


def test_a_walk_round_before_any_context_graph_is_an_error():
    with pytest.raises(ValueError, match="walk round"):
        build_cost(TWO_PROCESSES.splitlines()[3:])


def test_a_real_checkpointed_build_is_read_whole(tmp_path):
    nx = pytest.importorskip("networkx")
    pytest.importorskip("gensim")
    from repset.embed import struc2vec

    G = nx.karate_club_graph()
    log_path = tmp_path / "build.log"
    handler = logging.FileHandler(log_path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))   # reddit_full_build.sh's
    logger = logging.getLogger("repset.embed")
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        emb = struc2vec(G.number_of_nodes(), np.array(G.edges()), 8, checkpoint_dir=tmp_path / "ckpt",
                        walks_per_node=3, walk_length=20, epochs=2, layers=3, variant="reference", seed=1)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        handler.close()
    assert emb.shape == (34, 8)
    cost = build_cost(log_path.read_text().splitlines())
    assert set(cost.stages) == {"rings", "context graph", "walks"} and len(cost.stages["walks"]) == 3
    assert sorted(cost.chunks) == list(range(1, 7)) and cost.chunks_total == 6 and cost.resumes == 0
    assert all(s >= 0 for s in cost.stages["walks"]) and cost.total() >= 0
