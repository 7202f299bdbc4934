"""Skip-gram progress from the corpus read offsets: exact shares, periodic lines with an ETA, epochs counted."""
import logging
import os
import sys
import time

import numpy as np
import pytest

from repset.embed.skipgram.progress import SkipgramProgress, read_fraction

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fdinfo")


def test_read_fraction_follows_the_open_descriptors(tmp_path):
    corpus = tmp_path / "walks.txt"
    corpus.write_bytes(b"x" * 1000)
    assert read_fraction(str(corpus)) is None                 # nothing open on it
    fd = os.open(corpus, os.O_RDONLY)
    try:
        os.read(fd, 250)
        assert read_fraction(str(corpus)) == pytest.approx(0.25)
        second = os.open(corpus, os.O_RDONLY)                  # two workers, the second from the middle
        os.lseek(second, 500, os.SEEK_SET)
        os.read(second, 100)
        assert read_fraction(str(corpus), workers=2) == pytest.approx((250 + 100) / 1000)
        os.close(second)
    finally:
        os.close(fd)


def test_lines_every_interval_with_an_eta(tmp_path, caplog):
    corpus = tmp_path / "walks.txt"
    corpus.write_bytes(b"x" * 1000)
    caplog.set_level(logging.INFO, logger="repset.embed.skipgram.progress")
    fd = os.open(corpus, os.O_RDONLY)
    try:
        with SkipgramProgress(str(corpus), epochs=2, every=0.05) as progress:
            progress.epochs_done = 1                           # in the second epoch
            os.read(fd, 500)
            time.sleep(0.3)
    finally:
        os.close(fd)
    lines = [r.getMessage() for r in caplog.records]
    assert lines and all("epoch 2/2, 50.0% of its corpus read, 75.0% overall" in line for line in lines)
    assert all("ETA" in line for line in lines)


def test_gensim_epochs_are_counted(tmp_path, caplog):
    pytest.importorskip("gensim")
    from gensim.models import Word2Vec

    corpus = tmp_path / "walks.txt"
    rng = np.random.default_rng(0)
    corpus.write_text("\n".join(" ".join(map(str, rng.integers(0, 50, 20))) for _ in range(200)) + "\n")
    caplog.set_level(logging.INFO, logger="repset.embed.skipgram.progress")
    model = Word2Vec(vector_size=4, window=2, min_count=0, sg=1, workers=1, seed=0, epochs=3)
    model.build_vocab(corpus_file=str(corpus))
    with SkipgramProgress(str(corpus), epochs=3, every=60) as progress:
        model.train(corpus_file=str(corpus), total_words=model.corpus_total_words, epochs=3,
                    callbacks=[progress.callback()])
    assert progress.epochs_done == 3
    assert [r.getMessage().split(",")[0] for r in caplog.records if r.name == "repset.embed.skipgram.progress"] == \
        [f"skip-gram: epoch {e}/3 done" for e in (1, 2, 3)]
