"""struc2vec's cost per stage on a graph dataset, both variants, and skip-gram tokens per second per setting.

    python -m repset.bench.struc2vec_cost --dataset MUTAG [--raw ../shared/data/mirror] [--variants reference paper]
    python -m repset.bench.struc2vec_cost --corpus data/embed/<D>.struc2vec.npy.ckpt/walks-0.txt   # skip-gram only
        [--tokens 2000000] [--skipgram "hs=1 negative=5 workers=1" "hs=0 negative=5 workers=1" ...]
        [--skipgram ... "hs=1 negative=0 workers=1 library=fasttext"]

Stages, seconds of wall time in this process (Numba's kernels compiled first on a small graph): the ring degree
sequences and the similarity graph (``walker``), one walk round (one walk of ``walk_length`` per node) written as a
corpus, then gensim's skip-gram (dim 20, window 10, one epoch, the vocabulary of the whole round) over the first
``--tokens`` tokens of that round for each setting: tokens per second over the wall time, and per thread. The
skip-gram's share of a whole build is ``walks_per_node x epochs`` rounds at that rate; the report prints it.

A setting with ``library=fasttext`` times fastText's skip-gram (``pip install fasttext-numpy2``; no subwords, the
same dim, window, rate 0.025 and sampling threshold 1e-3) over the same tokens. It has one objective at a time
(``loss='hs'`` or ``'ns'``), not the reference's hierarchical softmax plus negatives, and it builds its vocabulary
from the timed tokens alone (a pass included in its time), not the whole round's. Its "Encountered NaN." comes and
goes on one and the same input; a setting that raises it gets its message in the table's ``error`` column.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
import pandas as pd

__all__ = ["stage_times", "skipgram_rate", "fasttext_rate", "main"]


def stage_times(n_nodes: int, edges: np.ndarray, variant: str, walk_length: int, corpus: str,
                layers: int = 6, seed: int = 0) -> tuple[dict, np.ndarray]:
    """Seconds of the similarity graph and of one walk round (written to ``corpus``), and the round's counts."""
    from repset.embed.struc2vec import _walker, _write_rounds

    t0 = time.perf_counter()
    walker = _walker(n_nodes, edges, layers, True, True, variant)
    t1 = time.perf_counter()
    counts = _write_rounds(corpus, n_nodes, walker, walk_length, [0], seed)
    t2 = time.perf_counter()
    entries = int(walker[3].tgt.size)
    return {"graph_s": t1 - t0, "walk_round_s": t2 - t1, "graph_entries": entries}, counts


def _prefix(corpus: str, tokens: int, out: str) -> int:
    """The corpus's first lines holding about ``tokens`` tokens, copied to ``out``; the tokens copied."""
    copied = 0
    with open(corpus, "rb") as src, open(out, "wb") as dst:
        for line in src:
            if copied >= tokens:
                break
            dst.write(line)
            copied += line.count(b" ") + 1
    return copied


def skipgram_rate(corpus: str, counts: np.ndarray, tokens: int, hs: bool, negative: int, workers: int,
                  dim: int = 20, window: int = 10, seed: int = 0) -> float:
    """Tokens per second of one skip-gram epoch over the first ``tokens`` tokens of ``corpus`` (wall time)."""
    from repset.embed.skipgram import new_model

    with tempfile.TemporaryDirectory() as tmp:
        part = os.path.join(tmp, "part.txt")
        n_tokens = _prefix(corpus, tokens, part)
        model = new_model(counts, dim, window, 1, hs, negative, seed, workers)
        t0 = time.perf_counter()
        model.train(corpus_file=part, total_words=n_tokens, epochs=1)
        return n_tokens / (time.perf_counter() - t0)


def fasttext_rate(corpus: str, tokens: int, hs: bool, negative: int, workers: int, dim: int = 20,
                  window: int = 10) -> float:
    """Tokens per second of fastText's skip-gram, one epoch over the first ``tokens`` tokens of ``corpus``
    (its bindings seed the model with their fixed default; they take no seed for ``train_unsupervised``)."""
    loss = _fasttext_loss(hs, negative)
    fasttext = _fasttext()
    with tempfile.TemporaryDirectory() as tmp:
        part = os.path.join(tmp, "part.txt")
        n_tokens = _prefix(corpus, tokens, part)
        t0 = time.perf_counter()
        try:
            fasttext.train_unsupervised(part, model="skipgram", dim=dim, ws=window, epoch=1, minCount=1,
                                        neg=negative or 5, loss=loss, t=1e-3, lr=0.025, minn=0, maxn=0,
                                        thread=workers, verbose=0)
        except RuntimeError as err:    # "Encountered NaN." comes and goes on one input (facebookresearch/fastText#1278)
            raise RuntimeError(f"fastText's skip-gram ({loss}, {workers} threads) on the first "
                               f"{n_tokens} tokens of {corpus}: {err}") from err
        return n_tokens / (time.perf_counter() - t0)


def _fasttext_loss(hs: bool, negative: int) -> str:
    """fastText's ``loss`` for an objective: it trains one of hierarchical softmax and negative sampling."""
    if hs == (negative > 0):
        raise ValueError(f"fastText trains hierarchical softmax or negative sampling, not both or neither "
                         f"(hs=1 negative=0, or hs=0 negative=5): hs={int(hs)} negative={negative}")
    return "hs" if hs else "ns"


def _fasttext():
    try:
        import fasttext
    except ImportError as err:
        raise ImportError("library=fasttext needs fastText's bindings: pip install fasttext-numpy2") from err
    return fasttext


def _setting(text: str) -> tuple[str, dict]:
    """``"hs=1 negative=5 workers=1 [library=gensim|fasttext]"`` -> (library, the rate function's arguments)."""
    pairs = dict(item.split("=") for item in text.split())
    library = pairs.pop("library", "gensim")
    unknown = set(pairs) - {"hs", "negative", "workers"}
    if library not in ("gensim", "fasttext") or unknown:
        raise ValueError(f"--skipgram {text!r}: keys are hs, negative, workers, library=gensim|fasttext")
    setting = {"hs": bool(int(pairs.get("hs", 1))), "negative": int(pairs.get("negative", 5)),
               "workers": int(pairs.get("workers", 1))}
    if library == "fasttext":
        try:
            _fasttext_loss(setting["hs"], setting["negative"])
        except ValueError as err:
            raise ValueError(f"--skipgram {text!r}: {err}") from None
    return library, setting


def _skipgram_rows(corpus: str, counts: np.ndarray, settings: list[tuple[str, str, dict]], tokens: int, rounds: int,
                   base: dict) -> list[dict]:
    """One row per skip-gram setting (its text, library and arguments, as :func:`_setting` reads them) timed on a
    walk round; ``rounds`` rounds at that rate make the whole build."""
    rows = []
    for text, library, setting in settings:
        row = {**base, "skipgram": text}
        if library == "fasttext":
            try:
                rate = fasttext_rate(corpus, tokens, **setting)
            except RuntimeError as err:           # the table says which setting failed and why; the others go on
                rate, row["error"] = None, str(err)
        else:
            rate = skipgram_rate(corpus, counts, tokens, **setting)
        if rate is not None:
            row.update(tokens_per_s=round(rate), per_thread=round(rate / setting["workers"]),
                       skipgram_h=round(int(counts.sum()) * rounds / rate / 3600, 2))
        rows.append(row)
        print(row, flush=True)
    return rows


def main(argv: list[str] | None = None) -> pd.DataFrame:
    from repset.datasets import build_graph_collection

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="MUTAG")
    parser.add_argument("--raw", default="../shared/data/mirror", help="raw graph files (the mirror or data/raw)")
    parser.add_argument("--variants", nargs="+", default=["reference", "paper"])
    parser.add_argument("--corpus", help="time the skip-gram only, on this walk round: a resumable build's "
                        "walks-<r>.txt beside its walks-<r>.counts.npy (no graph built)")
    parser.add_argument("--walk-length", type=int, default=80)
    parser.add_argument("--tokens", type=int, default=2_000_000, help="skip-gram tokens timed per setting")
    parser.add_argument("--skipgram", nargs="*", default=["hs=1 negative=5 workers=1", "hs=0 negative=5 workers=1",
                                                          "hs=1 negative=0 workers=1", "hs=1 negative=5 workers=2"])
    parser.add_argument("--walks-per-node", type=int, default=10, help="for the whole build's skip-gram estimate")
    parser.add_argument("--epochs", type=int, default=5, help="for the whole build's skip-gram estimate")
    args = parser.parse_args(argv)
    settings = [(text, *_setting(text)) for text in args.skipgram]   # a bad setting fails before any work
    if any(library == "fasttext" for _, library, _ in settings):
        _fasttext()                                                      # and so do missing bindings
    rounds = args.walks_per_node * args.epochs
    if args.corpus:
        counts_path = os.path.splitext(args.corpus)[0] + ".counts.npy"
        if not os.path.exists(counts_path):
            raise FileNotFoundError(f"--corpus {args.corpus}: its word counts {counts_path} are missing")
        counts = np.load(counts_path)
        rows = _skipgram_rows(args.corpus, counts, settings, args.tokens, rounds,
                              {"corpus": args.corpus, "nodes": counts.size})
    else:
        coll = build_graph_collection(args.dataset, args.raw)
        n = int(coll.n_nodes.sum())
        toy = np.array([[0, 1], [1, 2], [2, 0], [2, 3]])
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for variant in args.variants:
                stage_times(4, toy, variant, 5, os.path.join(tmp, "warm.txt"))   # compile the kernels first
                corpus = os.path.join(tmp, f"{variant}.txt")
                stages, counts = stage_times(n, coll.edges, variant, args.walk_length, corpus)
                rows += _skipgram_rows(corpus, counts, settings, args.tokens, rounds,
                                       {"dataset": args.dataset, "nodes": n, "variant": variant, **stages})
    table = pd.DataFrame(rows)
    print(table.round(2).to_markdown(index=False))
    return table


if __name__ == "__main__":
    main()
