"""Tests of the corpus reader (repset.embed.skipgram.corpus): gensim's own reader gives the same tokens and batches."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gensim")
from gensim.models.word2vec_corpusfile import CythonLineSentence  # noqa: E402

from repset.embed.skipgram.corpus import MAX_WORDS, batch_bounds, parse_corpus  # noqa: E402

ODD = [b"3 1 2\n", b"\n", b"  4\t5 \r\n", b"07 x 12 6\n", b" ".join([b"1"] * 25000) + b"\n",
       b" ".join([b"2"] * 9990) + b"\n", b"5 5\n", b" ".join([b"3"] * 10001) + b"\n", b"8 9"]


def gensim_batches(path) -> list[list[list[str]]]:
    """The batches gensim's training loop takes: next_batch until the reader is at the end of the file."""
    reader, out = CythonLineSentence(str(path)), []
    reader.reset()
    while not reader.is_eof():
        out.append([[w.decode() for w in sentence] for sentence in reader.next_batch()])
    return out


@pytest.mark.parametrize("lines", [ODD, ODD[:-1], [b"1 2 3\n"] * 130, [b""], [b" ".join([b"7"] * 80) + b"\n"] * 400])
def test_tokens_and_batches_are_gensims(tmp_path, lines):
    path = tmp_path / "walks.txt"
    path.write_bytes(b"".join(lines))
    key_to_vocab = np.full(13, -1, np.int64)
    key_to_vocab[[1, 2, 3, 5, 6, 7, 8, 12]] = np.arange(8) * 10      # 0, 4, 9 and 10-11 are no keys
    tokens, line_ends = parse_corpus(np.fromfile(path, np.uint8), key_to_vocab)
    starts, ends, batches = batch_bounds(line_ends)
    expected = gensim_batches(path)
    assert len(batches) == len(expected)
    for (lo, hi), sentences in zip(batches, expected):
        assert hi - lo == len(sentences)
        for p, sentence in zip(range(lo, hi), sentences):
            want = [key_to_vocab[int(w)] if w.isdigit() and (w == "0" or w[0] != "0") and int(w) < 13 else -1
                    for w in sentence]
            assert tokens[starts[p]:ends[p]].tolist() == want


def test_a_line_over_the_batch_is_cut_into_pieces_of_max_words():
    _, line_ends = np.zeros(0), np.array([25000, 25000, 25003])
    starts, ends, _ = batch_bounds(line_ends)
    assert (ends - starts).tolist() == [MAX_WORDS, MAX_WORDS, 5000, 0, 3]
