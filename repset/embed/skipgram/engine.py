"""Which code trains a skip-gram over a corpus file: gensim's own, or the numba kernels that repeat it bit for bit.

``train(model, corpus_file, total_words, epochs, start_alpha, end_alpha, engine=...)`` stands for gensim's
``model.train(corpus_file=..., total_words=..., epochs=..., start_alpha=..., end_alpha=...)`` with one worker:

- ``"gensim"``: that call;
- ``"numba"``: :mod:`.kernel`, which gives the same vectors and output weights and moves the model's random
  state the same way (two draws per epoch), several times faster at small dims. It refuses, naming the reason,
  what it was not built to repeat: another gensim than 4.4, a gensim that did not take its double-returning dot
  product (``FAST_VERSION`` 0), CBOW, more than one worker, or a BLAS whose dot product and update give other
  values than the kernels' at the model's dim (checked on random rows before training: OpenBLAS's ``sdot`` takes
  another code path from 32 values, and its kernels differ by CPU type, ``OPENBLAS_CORETYPE``).
"""
from __future__ import annotations

import ctypes
import os
import time
from functools import lru_cache

import numpy as np

__all__ = ["ENGINES", "EngineUnsupported", "train", "check_numba"]

ENGINES = ("gensim", "numba")
_GENSIM_SERIES = "4.4."


class EngineUnsupported(RuntimeError):
    """The numba engine cannot repeat gensim's training of this model here."""


def train(model, corpus_file: str | os.PathLike, total_words: int, epochs: int = 1,
          start_alpha: float | None = None, end_alpha: float | None = None, engine: str = "gensim") -> None:
    """Train ``model`` (gensim ``Word2Vec``) in place for ``epochs`` over ``corpus_file`` (``total_words`` tokens),
    the rate from ``start_alpha`` to ``end_alpha`` (the model's ``alpha`` and ``min_alpha`` where None)."""
    if engine == "gensim":
        model.train(corpus_file=str(corpus_file), total_words=total_words, epochs=epochs, start_alpha=start_alpha,
                    end_alpha=end_alpha)
        return
    if engine != "numba":
        raise ValueError(f"engine: {engine!r} is not one of {', '.join(ENGINES)}")
    check_numba(model)
    _train_numba(model, str(corpus_file), int(total_words), int(epochs), start_alpha, end_alpha)


def check_numba(model) -> None:
    """Raise EngineUnsupported, with the reason, unless the numba engine repeats gensim's training of ``model``."""
    import gensim
    from gensim.models import word2vec_inner

    if not gensim.__version__.startswith(_GENSIM_SERIES):
        raise EngineUnsupported(f"skip-gram engine numba repeats gensim {_GENSIM_SERIES}x, not gensim "
                                f"{gensim.__version__}: use engine gensim")
    if word2vec_inner.FAST_VERSION != 0:
        raise EngineUnsupported(f"gensim's FAST_VERSION is {word2vec_inner.FAST_VERSION}, not 0 (its dot product "
                                f"in double): use engine gensim")
    if model.sg != 1 or model.workers != 1:
        raise EngineUnsupported(f"skip-gram engine numba trains skip-gram (sg=1) with one worker, not sg={model.sg}"
                                f" with {model.workers} workers: use engine gensim")
    mismatch = _blas_mismatch(int(model.wv.vector_size))
    if mismatch:
        raise EngineUnsupported(f"the BLAS here ({_blas_name()}) differs from the numba kernels at dim "
                                f"{model.wv.vector_size}: {mismatch}; use engine gensim")


@lru_cache(maxsize=None)
def _blas_mismatch(dim: int, draws: int = 2000) -> str:
    """'' when the BLAS functions gensim calls (scipy's ``sdot``, read as returning a double, and ``saxpy``) give the
    kernels' values on ``draws`` random row pairs of ``dim`` floats spanning 16 binades; else what differed."""
    from .kernel import gensim_dot

    sdot, saxpy = _gensim_blas("sdot", ctypes.c_double), _gensim_blas("saxpy", None)
    rng = np.random.default_rng(20261207)
    n, one = ctypes.c_int(dim), ctypes.c_int(1)
    pf = ctypes.POINTER(ctypes.c_float)
    for _ in range(draws):
        x = (rng.standard_normal((1, dim)) * np.exp2(rng.uniform(-8, 8, dim))).astype(np.float32)
        y = (rng.standard_normal((1, dim)) * np.exp2(rng.uniform(-8, 8, dim))).astype(np.float32)
        a = ctypes.c_float(rng.standard_normal())
        seen = np.float32(sdot(ctypes.byref(n), x.ctypes.data_as(pf), ctypes.byref(one), y.ctypes.data_as(pf),
                               ctypes.byref(one)))
        if seen != gensim_dot(x, y):
            return "sdot does not return the value the kernels compute"
        expected = (np.float32(a.value) * x[0] + y[0]).astype(np.float32)
        out = y[0].copy()
        saxpy(ctypes.byref(n), ctypes.byref(a), x.ctypes.data_as(pf), ctypes.byref(one), out.ctypes.data_as(pf),
              ctypes.byref(one))
        if not np.array_equal(out, expected):
            return "saxpy is not a float multiply then add"
    return ""


def gensim_exp_table() -> np.ndarray:
    """(1000,) float32: the sigmoid table gensim's training reads (``word2vec_inner.EXP_TABLE``), copied."""
    from gensim.models import word2vec_inner

    address = _capsule_address(word2vec_inner.__pyx_capi__["EXP_TABLE"])
    return np.ctypeslib.as_array((ctypes.c_float * 1000).from_address(address)).copy()


def _capsule_address(capsule) -> int:
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype, api.PyCapsule_GetName.argtypes = ctypes.c_char_p, [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))


def _gensim_blas(name: str, restype):
    """The BLAS function gensim's Cython calls for ``name`` (``scipy.linalg.blas.<name>._cpointer``), through ctypes,
    with the return type gensim gives it."""
    import scipy.linalg.blas as fblas

    address = _capsule_address(getattr(fblas, name)._cpointer)
    pi, pf = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_float)
    args = (pi, pf, pi, pf, pi) if name == "sdot" else (pi, pf, pf, pi, pf, pi)
    return ctypes.CFUNCTYPE(restype, *args)(address)


def _blas_name() -> str:
    try:
        from threadpoolctl import threadpool_info
        return ", ".join(f"{i['internal_api']} {i.get('version')} {i.get('architecture')}" for i in threadpool_info()
                         if i.get("user_api") == "blas") or "unknown"
    except ImportError:
        return "unknown"


def vocabulary_arrays(wv) -> dict[str, np.ndarray]:
    """The vocabulary as the kernels read it: key -> index for keys that are node ids, the Huffman codes and
    points flattened with offsets, the downsampling thresholds. Raises ValueError for a key that is no node id."""
    keys = list(wv.key_to_index)
    ids = np.empty(len(keys), np.int64)
    for i, key in enumerate(keys):
        if not (isinstance(key, str) and key.isdigit() and key.isascii() and (key == "0" or key[0] != "0")):
            raise ValueError(f"skip-gram engine numba: the vocabulary key {key!r} is no node id")
        ids[i] = int(key)
    key_to_vocab = np.full(int(ids.max()) + 1 if ids.size else 0, -1, np.int64)
    key_to_vocab[ids] = np.fromiter((wv.key_to_index[k] for k in keys), np.int64, len(keys))
    out = {"key_to_vocab": key_to_vocab,
           "sample_int": np.asarray(wv.expandos["sample_int"], np.uint64),
           "lockf": np.ascontiguousarray(wv.vectors_lockf, np.float32)}
    if "code" in wv.expandos:
        codes = wv.expandos["code"]
        lengths = np.fromiter((len(c) for c in codes), np.int64, len(codes))
        out["code_offsets"] = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        out["codes"] = np.concatenate(list(codes)).astype(np.uint8) if len(codes) else np.zeros(0, np.uint8)
        out["points"] = (np.concatenate(list(wv.expandos["point"])).astype(np.uint32) if len(codes)
                         else np.zeros(0, np.uint32))
    else:
        out["code_offsets"] = np.zeros(len(keys) + 1, np.int64)
        out["codes"], out["points"] = np.zeros(0, np.uint8), np.zeros(0, np.uint32)
    return out


def _train_numba(model, corpus_file: str, total_words: int, epochs: int, start_alpha, end_alpha) -> None:
    from .corpus import batch_bounds, parse_corpus
    from .kernel import train_epoch

    if not total_words:
        raise ValueError("total_words must be given with corpus_file (as gensim asks)")
    # what gensim's train() sets before its epochs
    model.alpha = start_alpha or model.alpha
    model.min_alpha = end_alpha or model.min_alpha
    model.epochs = epochs
    model.compute_loss = False
    model.running_training_loss = 0.0
    model.add_lifecycle_event("train", msg=f"trained by repset's numba skip-gram engine on {len(model.wv)} words, "
                                           f"{epochs} epochs over {corpus_file}")
    vocab = vocabulary_arrays(model.wv)
    tokens, line_ends = parse_corpus(np.fromfile(corpus_file, np.uint8), vocab["key_to_vocab"])
    starts, ends, batches = batch_bounds(line_ends)
    empty = np.zeros((0, model.wv.vector_size), np.float32)
    syn1 = model.syn1 if model.hs else empty
    syn1neg = model.syn1neg if model.negative else empty
    cum_table = model.cum_table if model.negative else np.zeros(1, np.uint32)
    for array in (model.wv.vectors, syn1, syn1neg):
        if array.dtype != np.float32 or not array.flags.c_contiguous:
            raise ValueError("skip-gram engine numba: the model's weights must be C-contiguous float32")
    table = gensim_exp_table()
    t0 = time.perf_counter()
    for epoch in range(epochs):
        state = np.zeros(1, np.uint64)
        if model.negative or model.sample:          # gensim's init_w2v_config: two draws per epoch (per worker)
            state[0] = (2 ** 24) * int(model.random.randint(0, 2 ** 24)) + int(model.random.randint(0, 2 ** 24))
        train_epoch(tokens, starts, ends, batches, model.wv.vectors, syn1, syn1neg, vocab["lockf"],
                    vocab["sample_int"], bool(model.hs), vocab["codes"], vocab["points"], vocab["code_offsets"],
                    cum_table, int(model.negative), int(model.window), bool(model.shrink_windows),
                    bool(model.sample != 0), state, np.float32(model.alpha), np.float32(model.min_alpha), epoch,
                    epochs, total_words, int(model.workers), table)
    model.train_count += 1
    model.total_train_time = getattr(model, "total_train_time", 0) + time.perf_counter() - t0
    model.wv.norms = None                            # gensim's _clear_post_train
