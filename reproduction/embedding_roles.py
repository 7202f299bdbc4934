"""How well graph node embeddings keep structural roles, side by side (a measurement for REDDIT-BINARY's cells). For
each LABEL=DATASET:EMBEDDING[:RAW_DIR] (RAW_DIR: data/raw by default), the share of 2,000 sampled nodes whose nearest
neighbour in the embedding has the same degree, and the same degree and neighbour degrees, beside chance
(repset.pipeline.data.embedding_table, as the workflow's results/tables/embeddings.md). Run from the repository root:

    python reproduction/embedding_roles.py \
        "IMDB-BINARY record=IMDB-BINARY:data/embed/IMDB-BINARY.struc2vec.npy" \
        "IMDB-BINARY at REDDIT-BINARY's settings=IMDB-BINARY:../reddit_walks0/data/embed/IMDB-BINARY.struc2vec.npy" \
        "REDDIT-BINARY record=REDDIT-BINARY:data/embed/REDDIT-BINARY.struc2vec.npy" \
        --configfile "IMDB-BINARY at REDDIT-BINARY's settings=reproduction/struc2vec_reddit_walks.yaml"

(the second embedding: reproduction/embed_seed.py 0 ... --configfile reproduction/struc2vec_reddit_walks.yaml in a
worktree of its own). Each embedding's struc2vec settings (its tokens) are read from config.yaml, with the overlay
--configfile names for its label."""
import argparse
import sys
import tempfile
from pathlib import Path

import pandas as pd

sys.path.insert(0, ".")
from repset.pipeline.data import embedding_table  # noqa: E402
from repset.pipeline.pack import load_config  # noqa: E402
from repset.protocol.plan import struc2vec_options  # noqa: E402

COLUMNS = ["nodes", "walks_per_node", "epochs", "tokens_M", "nn_degree_agreement", "nn_degree_chance",
           "nn_ring1_agreement", "nn_ring1_chance"]


def main(argv: list[str] | None = None) -> pd.DataFrame:
    """The command line (``argv``: sys.argv[1:] by default); returns the printed table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("embeddings", nargs="+", metavar="LABEL=DATASET:EMBEDDING[:RAW_DIR]")
    parser.add_argument("--configfile", action="append", default=[],
                        help="an overlay over config.yaml for one embedding's settings: LABEL=FILE (repeatable)")
    args = parser.parse_args(argv)
    overlays = dict(item.split("=", 1) for item in args.configfile)
    rows = []
    for item in args.embeddings:
        label, _, spec = item.partition("=")
        dataset, embedding, *raw = spec.split(":")
        if not label or not embedding:
            parser.error(f"{item!r} is not LABEL=DATASET:EMBEDDING[:RAW_DIR]")
        options = struc2vec_options(dataset, load_config("config.yaml", [overlays[label]] if label in overlays else []))
        with tempfile.TemporaryDirectory() as tmp:
            table = embedding_table([dataset], [embedding], [str(Path(tmp) / "none.tsv")], [options],
                                    raw[0] if raw else "data/raw", str(Path(tmp) / "roles"))
        rows.append(table[COLUMNS].set_axis([label]))
    out = pd.concat(rows)
    print(out.to_markdown())
    return out


if __name__ == "__main__":
    main()
