"""struc2vec node embeddings (Ribeiro, Saverese & Figueiredo, KDD 2017).

The RepSet paper embeds the nodes of every graph-classification data set with struc2vec (20
dimensions) run on the disjoint union of all its graphs.  Pipeline: compressed ring degree
sequences and structural distances (:mod:`.struc2vec_dist`), the multilayer context graph and
biased walks (:mod:`.struc2vec_walks`), then skip-gram (gensim ``Word2Vec``) on the walks.

Two variants: ``reference`` computes what the reference implementation (leoribeiro/struc2vec) runs, its
partner selection, normalised weights and Gamma at node level (:mod:`.struc2vec_reference`) and skip-gram
with hierarchical softmax beside negative sampling; ``paper`` follows the struc2vec paper's wording at the
level of structural classes (the record's stores until 2026-11-28). docs/data.md lists the differences.
"""
from __future__ import annotations

import logging
import os
import time

import numpy as np

from repset.io import scratch_dir

from .resumable import chunked_skipgram, fingerprint, held, missing_rounds, open_folder, write_walk_rounds
from .skipgram import SkipgramProgress, new_model, node_vectors
from .skipgram import train as train_skipgram

from .struc2vec_dist import build_csr, candidate_pairs, expand_rings, pair_distances, ring_sequences
from .struc2vec_reference import all_pairs, node_context_graph, reference_partners
from .struc2vec_walks import context_graph, format_walks, walk_block

log = logging.getLogger(__name__)
_BLOCK = 65536  # walks generated and written per block (bounds memory)
#: variant -> its skip-gram objective when ``hs`` is not given (the reference trains with hs=1 beside negative 5)
VARIANTS = {"reference": {"hs": True}, "paper": {"hs": False}}


def struc2vec(n_nodes: int, edges: np.ndarray, dim: int = 20, *, layers: int | None = 6,
              walk_length: int = 80, walks_per_node: int = 10, window: int = 10, epochs: int = 5,
              opt1: bool = True, opt2: bool = True, hs: bool | None = None, negative: int = 5,
              variant: str = "reference", seed: int = 0, workers: int = 1, skipgram_engine: str = "gensim",
              tmp_dir: str | None = None,
              checkpoint_dir: str | os.PathLike | None = None) -> np.ndarray:
    """struc2vec embeddings of the ``n_nodes`` nodes of an undirected graph.

    Args:
        n_nodes: number of nodes (ids ``0..n_nodes-1``; isolated nodes allowed).
        edges: (E, 2) integer edge list (either or both directions; self-loops are dropped).
        dim: embedding dimension.
        layers: OPT3, the largest ring distance ``k*`` used (layers ``0..k*``); None = no limit.
        walk_length, walks_per_node: nodes per walk and walks started from every node.
        window, epochs, hs, negative: skip-gram settings (``hs=False`` = negative sampling only; the
            reference implementation, leoribeiro/struc2vec, trains with ``hs=1`` and gensim's ``negative=5``;
            ``hs=None``: the variant's, True for ``reference``, False for ``paper``).
        opt1: compressed degree sequences with the compressed DTW cost (else plain sequences).
        opt2: compare each node with ~2 log2(n) nodes of similar degree only (else all pairs); which nodes
            and how they weigh follow ``variant``.
        variant: ``"reference"`` (the default: the reference implementation's rules, node level) or ``"paper"``
            (the struc2vec paper's wording, structural classes; the record's graph stores).
        seed: seeds the walks and Word2Vec.  The walks do not depend on ``workers``; the
            embedding is deterministic for ``workers=1`` (Word2Vec threads race otherwise).
        workers: Word2Vec threads (numba stages use numba's thread pool).
        skipgram_engine: what trains the skip-gram (:mod:`.skipgram.engine`): ``gensim``, or ``numba``, whose
            kernels give gensim's one-worker floats bit for bit, faster (it refuses what it cannot repeat).
        tmp_dir: where the temporary walk corpus is written (default: the system temp dir);
            about 7 bytes per token, e.g. 4.7 GB for REDDIT-BINARY at the defaults.
        checkpoint_dir: a folder that makes the build resumable (:mod:`.resumable`): the walks are kept there
            round by round and the skip-gram is saved after every (epoch, round) chunk; a rerun with the same
            inputs continues where the last stopped. None: one skip-gram call over a temporary corpus.

    Cost: everything before skip-gram is a few minutes even for ~10^6 nodes; skip-gram over
    ``n * walks_per_node * walk_length`` tokens for ``epochs`` epochs dominates (tens of
    thousands of tokens per second per core for large vocabularies).

    Returns:
        (n_nodes, dim) float32 array, row ``i`` = node ``i``.
    """
    if walks_per_node < 1 or walk_length < 1:
        raise ValueError("walks_per_node and walk_length must be >= 1")
    if variant not in VARIANTS:
        raise ValueError(f"struc2vec variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    hs = VARIANTS[variant]["hs"] if hs is None else hs
    if n_nodes == 0:
        return np.zeros((0, dim), np.float32)
    t0 = time.perf_counter()
    if checkpoint_dir is not None:
        options = dict(dim=dim, layers=layers, walk_length=walk_length, walks_per_node=walks_per_node,
                       window=window, epochs=epochs, opt1=opt1, opt2=opt2, hs=hs, negative=negative, variant=variant,
                       seed=seed)
        with held(checkpoint_dir):
            folder = open_folder(checkpoint_dir, fingerprint(n_nodes, edges, options))
            missing = missing_rounds(folder, walks_per_node)
            if missing:
                walker = _walker(n_nodes, edges, layers, opt1, opt2, variant)
                write_walk_rounds(folder, missing, lambda r, path: _write_rounds(path, n_nodes, walker, walk_length,
                                                                               [r], seed))
            emb = chunked_skipgram(folder, walks_per_node, dim, window, epochs, hs, negative, seed, workers,
                                   skipgram_engine)
        log.info("struc2vec (checkpointed in %s): %.1fs", folder, time.perf_counter() - t0)
        return emb
    walker = _walker(n_nodes, edges, layers, opt1, opt2, variant)
    t3 = time.perf_counter()
    with scratch_dir("struc2vec-", tmp_dir) as tmp:   # a killed run's walks are removed by the next run
        path = os.path.join(tmp, "walks.txt")
        counts = _write_rounds(path, n_nodes, walker, walk_length, range(walks_per_node), seed)
        t4 = time.perf_counter()
        log.info("walks: %d tokens, %.1fs", int(counts.sum()), t4 - t3)
        del walker
        emb = _skipgram(path, counts, dim, window, epochs, hs, negative, seed, workers, skipgram_engine)
    log.info("word2vec: %.1fs (total %.1fs)", time.perf_counter() - t4, time.perf_counter() - t0)
    return emb


def _walker(n_nodes: int, edges: np.ndarray, layers: int | None, opt1: bool, opt2: bool, variant: str) -> tuple:
    """What the walks read: (node class, class member pointers, members, context graph) of the variant."""
    t0 = time.perf_counter()
    indptr, indices = build_csr(n_nodes, edges)
    rings = ring_sequences(n_nodes, edges, layers, csr=(indptr, indices))
    if not opt1:
        rings = expand_rings(rings)
    t1 = time.perf_counter()
    log.info("rings: %d nodes, %d structural classes, %.1fs", n_nodes, rings.rep.size, t1 - t0)
    if variant == "reference":
        pairs = reference_partners(np.diff(indptr)) if opt2 else all_pairs(n_nodes)
        cg = node_context_graph(rings, pairs, n_nodes)
        log.info("reference context graph: %d node pairs, %d edge ends x %d layers, %.1fs", pairs.shape[0],
                 cg.tgt.size, cg.cum.shape[0], time.perf_counter() - t1)
        cls = np.arange(n_nodes, dtype=np.int32)   # every node its own class in the walks
        return cls, np.arange(n_nodes + 1, dtype=np.int64), cls, cg
    pairs = candidate_pairs(rings, np.diff(indptr), n_nodes, opt2)
    dist = pair_distances(rings, pairs)
    t2 = time.perf_counter()
    log.info("distances: %d class pairs x %d layers, %.1fs", pairs.shape[0], dist.shape[1], t2 - t1)
    cg = context_graph(rings.size, rings.n_lay, pairs, dist)
    log.info("context graph: %d entries x %d layers, %.1fs", cg.tgt.size, cg.cum.shape[0], time.perf_counter() - t2)
    members = np.argsort(rings.cls, kind="stable").astype(np.int32)
    mem_ptr = np.zeros(rings.rep.size + 1, np.int64)
    np.cumsum(rings.size, out=mem_ptr[1:])
    return rings.cls, mem_ptr, members, cg


def _write_rounds(path: str | os.PathLike, n: int, walker: tuple, walk_length: int, rounds, seed: int) -> np.ndarray:
    """Generate the walks of ``rounds`` (one walk per node each) block by block into a text corpus; return token
    counts per node. Round ``r`` starts its walks in its own seeded order and does not depend on the others."""
    cls, mem_ptr, members, cg = walker
    counts = np.zeros(n, np.int64)
    out = np.empty((min(n, _BLOCK), walk_length), np.int32)
    with open(path, "wb") as f:
        for r in rounds:
            order = np.random.default_rng([seed, r]).permutation(n).astype(np.int32)
            for a in range(0, n, _BLOCK):
                starts = order[a:a + _BLOCK]
                w = out[:starts.size]
                walk_block(starts, r * n + a, seed, walk_length, cls, mem_ptr, members,
                           cg.ptr, cg.tgt, cg.cum, cg.p_up, cg.has, w)
                counts += np.bincount(w.ravel(), minlength=n)
                f.write(format_walks(w).tobytes())
    return counts


def _skipgram(path: str, counts: np.ndarray, dim: int, window: int, epochs: int, hs: bool, negative: int,
              seed: int, workers: int, engine: str = "gensim") -> np.ndarray:
    """Skip-gram (gensim Word2Vec, ``corpus_file`` mode) on the walk corpus, in one call."""
    model = new_model(counts, dim, window, epochs, hs, negative, seed, workers)
    if engine != "gensim":
        train_skipgram(model, path, int(counts.sum()), epochs, engine=engine)
        return node_vectors(model, counts.size)
    with SkipgramProgress(path, epochs, workers) as progress:
        model.train(corpus_file=path, total_words=int(counts.sum()), epochs=epochs, callbacks=[progress.callback()])
    return node_vectors(model, counts.size)
