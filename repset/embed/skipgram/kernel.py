"""Skip-gram epochs in numba that repeat gensim 4.4's one-worker ``corpus_file`` training bit for bit.

gensim's Cython (``word2vec_corpusfile.pyx``, ``word2vec_inner.pyx``) calls BLAS for every dot product and update
of two 20-float rows, and waits on memory for every negative word's row. These kernels do the same arithmetic in
the same order, inline, and fetch the rows of the words a few pairs ahead (the random draws do not depend on the
floats, so a sentence's negative words are drawn before its pairs train):

- the batches of :mod:`.corpus`; per batch, the frequent-word downsampling draws, then the reduced-window draws,
  from gensim's 48-bit linear congruential stream (``random_int32``), and at most 10,000 kept words;
- per (word, context word) pair, hierarchical softmax along the word's Huffman path, then ``negative`` draws from
  the unigram table, each pass ending with the context row moved by its summed error;
- each dot product the value gensim reads (:func:`_dot`), each update ``y += g * x`` in float, multiply then add
  (OpenBLAS's ``saxpy`` below 32 values); the sigmoid from gensim's own table; the learning rate decayed linearly
  after each batch, in float;
- each pass's dot products taken before its first update, eight rows at a time (independent sums the CPU overlaps),
  which gives the values gensim reads after the updates before them: a Huffman path's rows are distinct and the
  context row moves only at a pass's end; a negative word drawn again after its row moved is taken again.

:mod:`.engine` checks the BLAS against these kernels before it trains; equality with gensim's training is tested
(tests/embed/skipgram/test_kernel.py).
"""
from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .corpus import MAX_WORDS

__all__ = ["train_epoch", "gensim_dot"]

MAX_EXP = 6
_LCG_MUL = np.uint64(25214903917)
_LCG_ADD = np.uint64(11)
_LCG_MASK = np.uint64(281474976710655)   # 2**48 - 1
_SHIFT = np.uint64(16)
_HIGH = np.uint64(0xFFFFFFFF00000000)
_AHEAD = 3                               # pairs between a row's prefetch and its use


@intrinsic
def _bits(typingctx, x):
    """The bits of a float64 as uint64, of a float32 as uint32."""
    width = x.bitwidth
    sig = (types.uint64 if width == 64 else types.uint32)(x)
    return sig, lambda context, builder, signature, args: builder.bitcast(args[0], ir.IntType(width))


@intrinsic
def _double(typingctx, x):
    """The float64 whose bits are the uint64 ``x``."""
    return types.float64(types.uint64), lambda context, builder, signature, args: builder.bitcast(args[0],
                                                                                                   ir.DoubleType())


@numba.njit(cache=True, nogil=True, inline="always")
def _read(acc):
    """The double sum ``acc`` as gensim reads OpenBLAS's ``sdot``: gensim calls scipy's ``sdot`` as a function that
    returns a double (its FAST_VERSION 0); OpenBLAS's ``sdot`` below 32 values adds the float products in a double
    and returns that rounded to float, so the register gensim reads holds the double's high 32 bits above the
    float's 32 bits, and gensim trains with that value rounded to float."""
    return np.float32(_double((_bits(acc) & _HIGH) | np.uint64(_bits(np.float32(acc)))))


@numba.njit(cache=True, nogil=True, inline="always")
def _dot(syn0, row1, syn, row2, size):
    """The dot product of ``syn0[row1]`` and ``syn[row2]`` as gensim reads it (:func:`_read`)."""
    acc = 0.0
    for a in range(size):
        acc += np.float64(np.float32(syn0[row1, a] * syn[row2, a]))
    return _read(acc)


@numba.njit(cache=True, nogil=True, inline="always")
def _dots(syn0, row1, syn, rows, n, size, out):
    """``out[k] = _dot(syn0, row1, syn, rows[k], size)`` for k < n, eight at a time."""
    for k in range(0, n, 8):
        r0 = rows[k]
        r1 = rows[min(k + 1, n - 1)]
        r2 = rows[min(k + 2, n - 1)]
        r3 = rows[min(k + 3, n - 1)]
        r4 = rows[min(k + 4, n - 1)]
        r5 = rows[min(k + 5, n - 1)]
        r6 = rows[min(k + 6, n - 1)]
        r7 = rows[min(k + 7, n - 1)]
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        a3 = 0.0
        a4 = 0.0
        a5 = 0.0
        a6 = 0.0
        a7 = 0.0
        for a in range(size):
            x = syn0[row1, a]
            a0 += np.float64(np.float32(x * syn[r0, a]))
            a1 += np.float64(np.float32(x * syn[r1, a]))
            a2 += np.float64(np.float32(x * syn[r2, a]))
            a3 += np.float64(np.float32(x * syn[r3, a]))
            a4 += np.float64(np.float32(x * syn[r4, a]))
            a5 += np.float64(np.float32(x * syn[r5, a]))
            a6 += np.float64(np.float32(x * syn[r6, a]))
            a7 += np.float64(np.float32(x * syn[r7, a]))
        out[k] = _read(a0)
        for j, acc in enumerate((a1, a2, a3, a4, a5, a6, a7)):
            if k + 1 + j < n:
                out[k + 1 + j] = _read(acc)


@numba.njit(cache=True, nogil=True)
def gensim_dot(x, y):
    """The dot product of rows ``x[0]`` and ``y[0]`` ((1, dim) float32) as gensim's training sees it (:func:`_dot`)."""
    return _dot(x, 0, y, 0, x.shape[1])


@numba.njit(cache=True, nogil=True, inline="always")
def _saturated(f_dot):
    """Whether gensim skips the update of a dot product outside (-6, 6)."""
    return f_dot <= -MAX_EXP or f_dot >= MAX_EXP


@numba.njit(cache=True, nogil=True, inline="always")
def _sigmoid(table, f_dot):
    """gensim's table lookup: index (f_dot + 6.0) * (1000 // 6 // 2), in double, truncated."""
    return table[np.int64((np.float64(f_dot) + 6.0) * 83.0)]


@numba.njit(cache=True, nogil=True, inline="always")
def _next(state):
    """gensim's ``random_int32``: the current state's high bits; the state moves on."""
    out = state[0] >> _SHIFT
    state[0] = (state[0] * _LCG_MUL + _LCG_ADD) & _LCG_MASK
    return out


@intrinsic
def _prefetch(typingctx, arr, row):
    """Ask the CPU to fetch the 2-d array ``arr``'s row ``row`` (its first and last float) into cache."""
    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        ary = context.make_array(arrty)(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i8p, ir.IntType(32), ir.IntType(32), ir.IntType(32)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        last = builder.sub(builder.extract_value(ary.shape, 1), context.get_constant(types.intp, 1))
        for col in (context.get_constant(types.intp, 0), last):
            ptr = cgutils.get_item_pointer2(context, builder, ary.data, cgutils.unpack_tuple(builder, ary.shape),
                                            cgutils.unpack_tuple(builder, ary.strides), arrty.layout, [row, col])
            builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(ir.IntType(32), 0),
                              ir.Constant(ir.IntType(32), 3), ir.Constant(ir.IntType(32), 1)])
        return context.get_dummy_value()
    return types.void(arr, row), codegen


@numba.njit(cache=True, nogil=True)
def _buckets(cum_table, bits=20):
    """A faster ``bisect_left(cum_table, x)`` for the negative draws x in [0, cum_table[-1]): for each of about
    2**bits buckets of x (x >> shift), ``first[b]`` = bisect_left(cum_table, b << shift); the answer for x in
    bucket b lies in [first[b], first[b + 1]]. Returns (first (B + 1,) int64, shift)."""
    top = np.uint64(cum_table[cum_table.size - 1])
    shift = np.uint64(0)
    while (top >> shift) > np.uint64(1 << bits):
        shift += np.uint64(1)
    count = np.int64(top >> shift) + 2
    first = np.empty(count, np.int64)
    j = 0
    for b in range(count):
        edge = np.uint64(b) << shift
        while j < cum_table.size and np.uint64(cum_table[j]) < edge:
            j += 1
        first[b] = j
    return first, shift


@numba.njit(cache=True, nogil=True, inline="always")
def _draw(state, cum_table, top, bucket_first, shift):
    """gensim's negative draw: bisect_left(cum_table, (state >> 16) % top); the state moves on."""
    x = np.uint64(np.uint32(_next(state)) % np.uint32(top))    # both below 2**32: a 32-bit division, the same value
    bucket = x >> shift
    lo = bucket_first[bucket]
    hi = min(bucket_first[bucket + 1] + 1, cum_table.size)
    while hi > lo:
        mid = (lo + hi) >> 1
        if np.uint64(cum_table[mid]) >= x:
            hi = mid
        else:
            lo = mid + 1
    return lo


@numba.njit(cache=True, nogil=True, inline="always")
def _update(syn0, context, syn, row, g, work, size):
    """``work += g * syn[row]``, then ``syn[row] += g * syn0[context]``: gensim's two saxpy calls."""
    for a in range(size):
        y = syn[row, a]
        work[a] = np.float32(work[a] + np.float32(g * y))
        syn[row, a] = np.float32(y + np.float32(g * syn0[context, a]))


@numba.njit(cache=True, nogil=True, inline="always")
def _move(syn0, context, lockf, work, size):
    """``syn0[context] += lockf * work``, then ``work`` zeroed for the next pass."""
    factor = lockf[context % lockf.size]
    for a in range(size):
        syn0[context, a] = np.float32(syn0[context, a] + np.float32(factor * work[a]))
        work[a] = np.float32(0)


@numba.njit(cache=True, nogil=True)
def _hs(syn0, syn1, size, context, codes, points, start, end, alpha, work, table, lockf, dots):
    """Hierarchical softmax for one pair: along the word's path ``points[start:end]``, codes ``codes[start:end]``.
    The path's nodes are distinct rows and the context row moves only at the end, so every dot product can be taken
    before the first update, as gensim's would read it after the updates before it."""
    _dots(syn0, context, syn1, points[start:end], end - start, size, dots)
    for b in range(start, end):
        f_dot = dots[b - start]
        if _saturated(f_dot):
            continue
        g = np.float32(np.float32(np.float32(1 - np.int64(codes[b])) - _sigmoid(table, f_dot)) * alpha)
        _update(syn0, context, syn1, np.int64(points[b]), g, work, size)
    _move(syn0, context, lockf, work, size)


@numba.njit(cache=True, nogil=True)
def _ns(syn0, syn1neg, size, word, context, targets, alpha, work, table, lockf, rows, dots):
    """Negative sampling for one pair: the word (label 1), then the drawn ``targets`` (label 0) but the word. The
    dot products are taken before the first update; a target drawn again after its row moved is taken again."""
    count = targets.size + 1
    rows[0] = word
    rows[1:count] = targets
    _dots(syn0, context, syn1neg, rows, count, size, dots)
    for d in range(count):
        target = rows[d]
        if d > 0 and target == word:
            continue
        f_dot = dots[d]
        for e in range(1, d):
            if rows[e] == target and not _saturated(dots[e]):   # its row moved since
                f_dot = _dot(syn0, context, syn1neg, target, size)
                dots[d] = f_dot
                break
        if _saturated(f_dot):
            continue
        label = np.float32(1) if d == 0 else np.float32(0)
        g = np.float32(np.float32(label - _sigmoid(table, f_dot)) * alpha)
        _update(syn0, context, syn1neg, target, g, work, size)
    _move(syn0, context, lockf, work, size)


@numba.njit(cache=True, nogil=True)
def _sentence(words, reduced, window, syn0, syn1, syn1neg, hs, codes, points, code_offsets, negative, cum_table,
              top, bucket_first, shift, lockf, alpha, work, state, table, pair_word, pair_context, targets, rows, dots):
    """Train one sentence ``words`` (vocabulary indexes, with their ``reduced`` windows): its pairs in gensim's
    order, the negative words of all its pairs drawn first, each pair's rows fetched ``_AHEAD`` pairs early."""
    size = syn0.shape[1]
    n = words.size
    pairs = 0
    for i in range(n):
        for j in range(max(i - window + reduced[i], 0), min(i + window + 1 - reduced[i], n)):
            if j != i:
                pair_word[pairs] = words[i]
                pair_context[pairs] = words[j]
                pairs += 1
    if negative > 0:
        for p in range(pairs):
            for d in range(negative):
                targets[p, d] = _draw(state, cum_table, top, bucket_first, shift)
    for p in range(pairs):
        q = p + _AHEAD
        if q < pairs:
            _prefetch(syn0, pair_context[q])
            if hs and pair_word[q] != pair_word[q - 1]:     # a new word: its path's rows
                for b in range(code_offsets[pair_word[q]], code_offsets[pair_word[q] + 1]):
                    _prefetch(syn1, points[b])
            if negative > 0:
                _prefetch(syn1neg, pair_word[q])
                for d in range(negative):
                    _prefetch(syn1neg, targets[q, d])
        word = pair_word[p]
        context = pair_context[p]
        if hs:
            _hs(syn0, syn1, size, context, codes, points, code_offsets[word], code_offsets[word + 1], alpha, work,
                table, lockf, dots)
        if negative > 0:
            _ns(syn0, syn1neg, size, word, context, targets[p], alpha, work, table, lockf, rows, dots)


@numba.njit(cache=True, nogil=True)
def train_epoch(tokens, starts, ends, batches, syn0, syn1, syn1neg, lockf, sample_int, hs, codes, points,
                code_offsets, cum_table, negative, window, shrink, sample, state, start_alpha, end_alpha, cur_epoch,
                num_epochs, expected_words, workers, table):
    """One epoch of gensim's ``train_epoch_sg`` over the parsed corpus (:func:`.corpus.batch_bounds`), updating
    ``syn0`` (V, dim), ``syn1`` (V or 0, dim), ``syn1neg`` (V or 0, dim) in place; ``state`` (1,) uint64: the
    random stream, moved on. Returns (sentences, effective words, raw words), as gensim's epoch does."""
    work = np.zeros(syn0.shape[1], np.float32)
    indexes = np.empty(MAX_WORDS, np.int64)
    sentence_idx = np.empty(MAX_WORDS + 1, np.int64)
    reduced = np.zeros(MAX_WORDS, np.int64)
    longest = 2 * window * MAX_WORDS
    pair_word = np.empty(longest, np.int64)
    pair_context = np.empty(longest, np.int64)
    targets = np.empty((longest if negative > 0 else 0, max(negative, 1)), np.int64)
    rows = np.empty(negative + 1, np.int64)
    path = 0
    for w in range(code_offsets.size - 1):
        path = max(path, code_offsets[w + 1] - code_offsets[w])
    dots = np.empty(max(path, negative + 1), np.float32)
    bucket_first, shift = _buckets(cum_table)
    top = np.uint64(cum_table[cum_table.size - 1])
    alpha = np.float32(start_alpha - np.float32(np.float32(np.float32(start_alpha - end_alpha)
                                                           * np.float32(cur_epoch)) / np.float32(num_epochs)))
    total_sentences = 0
    total_effective = 0
    total_words = 0
    for b in range(batches.shape[0]):
        if total_words > expected_words // workers:
            break
        effective = 0
        n_sent = 0
        sentence_idx[0] = 0
        for p in range(batches[b, 0], batches[b, 1]):
            if ends[p] == starts[p]:
                continue
            total_words += ends[p] - starts[p]
            for t in range(starts[p], ends[p]):
                w = tokens[t]
                if w < 0:
                    continue
                if sample and np.uint64(sample_int[w]) < _next(state):
                    continue
                indexes[effective] = w
                effective += 1
                if effective == MAX_WORDS:
                    break
            n_sent += 1
            sentence_idx[n_sent] = effective
            if effective == MAX_WORDS:
                break
        if shrink:
            for i in range(effective):
                reduced[i] = np.int64(np.uint32(_next(state)) % np.uint32(window))
        for s in range(n_sent):
            lo, hi = sentence_idx[s], sentence_idx[s + 1]
            _sentence(indexes[lo:hi], reduced[lo:hi], window, syn0, syn1, syn1neg, hs, codes, points, code_offsets,
                      negative, cum_table, top, bucket_first, shift, lockf, alpha, work, state, table, pair_word,
                      pair_context, targets, rows, dots)
        total_sentences += batches[b, 1] - batches[b, 0]
        total_effective += effective
        progress = np.float32(np.float32(np.float32(cur_epoch) + np.float32(np.float32(total_words)
                                                                             / np.float32(expected_words)))
                              / np.float32(num_epochs))
        alpha = max(end_alpha, np.float32(start_alpha - np.float32(np.float32(start_alpha - end_alpha) * progress)))
    return total_sentences, total_effective, total_words
