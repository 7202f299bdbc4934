"""The skip-gram engines side by side on one walk corpus: tokens per second of gensim's and the numba kernels'
epoch from the same model, their ratio, and whether the two models are equal bit for bit.

    python -m repset.bench.skipgram_engines --corpus <ckpt>/walks-0.txt --lines 25000

``--counts`` (default: the corpus's ``.counts.npy`` beside it) gives the vocabulary, as in the resumable build
(the whole round's words, not only the first lines'). Settings are REDDIT-BINARY's build: dim 20, window 10,
hierarchical softmax beside 5 negative samples, one worker. Pause other jobs on the machine while it runs.
"""
from __future__ import annotations

import argparse
import copy
import itertools
import os
import tempfile
import time

import numpy as np

from repset.embed.skipgram import new_model, train


def compare(corpus: str, counts: np.ndarray, dim: int = 20, window: int = 10, hs: bool = True,
            negative: int = 5) -> dict:
    """One epoch of each engine over ``corpus`` from the same fresh model: seconds, tokens/s, ratio, equality."""
    words = sum(len(line.split()) for line in open(corpus, "rb"))
    gensim_model = new_model(counts, dim, window, 1, hs, negative, seed=0, workers=1)
    numba_model = copy.deepcopy(gensim_model)
    with tempfile.TemporaryDirectory() as tmp:                       # the kernels compiled before the clock starts
        warm = os.path.join(tmp, "warm.txt")
        with open(warm, "w") as f:
            f.write("0 1 2\n")
        train(new_model(np.array([3, 3, 3]), dim, window, 1, hs, negative, 0, 1), warm, 3, engine="numba")
    seconds = {}
    for name, model in (("gensim", gensim_model), ("numba", numba_model)):
        t0 = time.perf_counter()
        train(model, corpus, words, 1, 0.025, 0.02, engine=name)
        seconds[name] = time.perf_counter() - t0
    equal = all(np.array_equal(a, b) for a, b in zip(_weights(gensim_model), _weights(numba_model)))
    return {"tokens": words, **{f"{k}_s": round(v, 1) for k, v in seconds.items()},
            **{f"{k}_tokens_per_s": round(words / v) for k, v in seconds.items()},
            "ratio": round(seconds["gensim"] / seconds["numba"], 2), "bit_equal": equal}


def _weights(model) -> list[np.ndarray]:
    """The arrays training moves: the vectors, and the output weights of each objective it has."""
    return [model.wv.vectors] + ([model.syn1] if model.hs else []) + ([model.syn1neg] if model.negative else [])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", required=True, help="a walk round of a checkpoint folder (walks-<r>.txt)")
    parser.add_argument("--counts", help="token counts per node (default: the corpus's .counts.npy)")
    parser.add_argument("--lines", type=int, default=25000, help="first lines of the corpus to train on")
    args = parser.parse_args(argv)
    counts = np.load(args.counts or os.path.splitext(args.corpus)[0] + ".counts.npy")
    with tempfile.TemporaryDirectory() as tmp:
        head = os.path.join(tmp, "head.txt")
        with open(args.corpus, "rb") as src, open(head, "wb") as dst:
            dst.writelines(itertools.islice(src, args.lines))
        print(compare(head, counts))


if __name__ == "__main__":
    main()
