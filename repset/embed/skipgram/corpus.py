"""A walk corpus file as gensim 4.4's ``corpus_file`` reader sees it, for :mod:`.kernel`.

gensim's ``FastLineSentence`` reads lines by ``\\n`` and tokens by white space; a token that is no vocabulary key is
skipped but counted. ``CythonLineSentence.next_batch`` cuts the lines into batches of at most 10,000 words (a line
over 10,000 words cut into pieces, a batch's tail kept back for the next one, and the training loop stops at the
file's end even where a tail was kept back). These functions give the same tokens and the same batches.
"""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["parse_corpus", "batch_bounds", "MAX_WORDS"]

MAX_WORDS = 10000          # gensim's MAX_SENTENCE_LEN: words per batch, and per sentence piece


@numba.njit(cache=True, nogil=True)
def _is_space(c: int) -> bool:
    return c == 32 or (9 <= c <= 13)                      # C's isspace: ' ', \t \n \v \f \r


@numba.njit(cache=True, nogil=True)
def parse_corpus(buf, key_to_vocab):
    """Tokens and lines of a corpus file's bytes ``buf`` (uint8). ``key_to_vocab`` (K,) int64: the vocabulary index
    of the token ``str(k)``, -1 for none. Returns (tokens (T,) int32: vocabulary index, -1 for a token that is no
    key; line_ends (L,) int64: token end of each line, as ``bytes.split(b"\\n")`` cuts them)."""
    n = buf.size
    tokens = np.empty(n // 2 + 1, np.int32)
    line_ends = np.empty(n + 1, np.int64)
    t = 0
    lines = 0
    i = 0
    while i < n:
        c = buf[i]
        if c == 10:
            line_ends[lines] = t
            lines += 1
            i += 1
            continue
        if _is_space(c):
            i += 1
            continue
        start = i
        value = 0
        canonical = True
        while i < n and not _is_space(buf[i]):
            d = buf[i] - 48
            if d < 0 or d > 9 or value > key_to_vocab.size:
                canonical = False
            else:
                value = value * 10 + d
            i += 1
        if i - start > 1 and buf[start] == 48:           # "07" is not the key "7"
            canonical = False
        tokens[t] = key_to_vocab[value] if canonical and value < key_to_vocab.size else -1
        t += 1
    line_ends[lines] = t                                  # the last line: after the final "\n", an empty one
    lines += 1
    return tokens[:t].copy(), line_ends[:lines].copy()


@numba.njit(cache=True, nogil=True)
def _pieces(line_ends):
    """The sentences gensim trains on: each line, one over MAX_WORDS words cut into pieces of MAX_WORDS.
    Returns (piece starts (P,), piece ends (P,), first piece of each line (L + 1,)), token and piece indexes."""
    line_first = np.empty(line_ends.size + 1, np.int64)
    count = 0
    begin = 0
    for line in range(line_ends.size):
        line_first[line] = count
        length = line_ends[line] - begin
        count += 1 if length <= MAX_WORDS else (length + MAX_WORDS - 1) // MAX_WORDS
        begin = line_ends[line]
    line_first[line_ends.size] = count
    starts = np.empty(count, np.int64)
    ends = np.empty(count, np.int64)
    p = 0
    begin = 0
    for end in line_ends:
        s = begin
        while True:
            starts[p] = s
            ends[p] = min(s + MAX_WORDS, end)
            p += 1
            s += MAX_WORDS
            if s >= end:
                break
        begin = end
    return starts, ends, line_first


@numba.njit(cache=True, nogil=True)
def batch_bounds(line_ends):
    """The batches of ``CythonLineSentence.next_batch`` over the lines ``line_ends``, read until the reader reaches
    the file's end (a batch's kept-back tail at that moment is never trained, as in gensim). Returns (piece starts
    (P,), piece ends (P,), batches (B, 2): each a range [first, end) of piece indexes)."""
    starts, ends, line_first = _pieces(line_ends)
    batches = np.empty((starts.size + 1, 2), np.int64)   # a batch holds a piece
    b = 0
    line = 0                  # next line to read
    kept = 0                  # the kept-back tail: pieces [line_first[line] - kept, line_first[line])
    eof = False
    while not eof:
        lo = line_first[line] - kept
        size = 0
        for q in range(lo, line_first[line]):
            size += ends[q] - starts[q]
        kept = 0
        while not eof and size <= MAX_WORDS:
            for q in range(line_first[line], line_first[line + 1]):
                size += ends[q] - starts[q]
            line += 1
            eof = line == line_ends.size
        hi = line_first[line]
        if size > MAX_WORDS:
            last = lo                 # gensim: drop pieces from the end while the rest still exceeds the batch
            tmp = size
            idx = hi - 1
            while idx >= lo:
                if tmp - (ends[idx] - starts[idx]) <= MAX_WORDS:
                    last = idx + 1
                    break
                tmp -= ends[idx] - starts[idx]
                idx -= 1
            kept = hi - last
            hi = last
        batches[b, 0] = lo
        batches[b, 1] = hi
        b += 1
    return starts, ends, batches[:b].copy()
