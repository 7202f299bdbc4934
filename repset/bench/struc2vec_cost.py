"""struc2vec's cost per stage on a graph dataset, both variants, and skip-gram tokens per second per setting.

    python -m repset.bench.struc2vec_cost --dataset MUTAG [--raw ../shared/data/mirror] [--variants reference paper]
        [--tokens 2000000] [--skipgram "hs=1 negative=5 workers=1" "hs=0 negative=5 workers=1" ...]

Stages, seconds of wall time in this process (Numba's kernels compiled first on a small graph): the ring degree
sequences and the similarity graph (``walker``), one walk round (one walk of ``walk_length`` per node) written as a
corpus, then gensim's skip-gram (dim 20, window 10, one epoch, the vocabulary of the whole round) over the first
``--tokens`` tokens of that round for each setting: tokens per second over the wall time, and per thread. The
skip-gram's share of a whole build is ``walks_per_node x epochs`` rounds at that rate; the report prints it.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
import pandas as pd

__all__ = ["stage_times", "skipgram_rate", "main"]


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


def _setting(text: str) -> dict:
    pairs = dict(item.split("=") for item in text.split())
    return {"hs": bool(int(pairs.get("hs", 1))), "negative": int(pairs.get("negative", 5)),
            "workers": int(pairs.get("workers", 1))}


def main(argv: list[str] | None = None) -> pd.DataFrame:
    from repset.datasets import build_graph_collection

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="MUTAG")
    parser.add_argument("--raw", default="../shared/data/mirror", help="raw graph files (the mirror or data/raw)")
    parser.add_argument("--variants", nargs="+", default=["reference", "paper"])
    parser.add_argument("--walk-length", type=int, default=80)
    parser.add_argument("--tokens", type=int, default=2_000_000, help="skip-gram tokens timed per setting")
    parser.add_argument("--skipgram", nargs="*", default=["hs=1 negative=5 workers=1", "hs=0 negative=5 workers=1",
                                                          "hs=1 negative=0 workers=1", "hs=1 negative=5 workers=2"])
    parser.add_argument("--walks-per-node", type=int, default=10, help="for the whole build's skip-gram estimate")
    parser.add_argument("--epochs", type=int, default=5, help="for the whole build's skip-gram estimate")
    args = parser.parse_args(argv)
    coll = build_graph_collection(args.dataset, args.raw)
    n = int(coll.n_nodes.sum())
    toy = np.array([[0, 1], [1, 2], [2, 0], [2, 3]])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for variant in args.variants:
            stage_times(4, toy, variant, 5, os.path.join(tmp, "warm.txt"))   # compile the kernels first
            corpus = os.path.join(tmp, f"{variant}.txt")
            stages, counts = stage_times(n, coll.edges, variant, args.walk_length, corpus)
            round_tokens = int(counts.sum())
            for text in args.skipgram:
                setting = _setting(text)
                rate = skipgram_rate(corpus, counts, args.tokens, **setting)
                whole = round_tokens * args.walks_per_node * args.epochs / rate
                rows.append({"dataset": args.dataset, "nodes": n, "variant": variant, **stages,
                             "skipgram": text, "tokens_per_s": round(rate), "per_thread": round(rate / setting["workers"]),
                             "skipgram_h": round(whole / 3600, 2)})
                print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    print(table.round(2).to_markdown(index=False))
    return table


if __name__ == "__main__":
    main()
