"""A lead's models against the record's, on the same folds (repset.protocol.paired). Run from the repository root:

    python reproduction/paired.py LEAD_FOLDER VARIANT=MODEL... [--dataset PROTEINS] [--points k10-]
    python reproduction/paired.py reproduction/attention_variant nn_attention_gated=nn_attention \
        nn_attention_query=nn_attention --dataset PROTEINS

Reads reproduction/runs.csv (the record) and LEAD_FOLDER/runs.csv; uses the folds on which the lead holds every point
of the record's (sub-)grid of MODEL."""
from __future__ import annotations

import argparse
import sys

import pandas as pd

sys.path.insert(0, ".")
from repset.protocol.paired import paired_table  # noqa: E402


def main(argv: list[str] | None = None, label: str = "lead") -> None:
    """The command line (``argv``: sys.argv[1:] by default); ``label`` names the lead's mean column."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lead_folder", help="a folder of records with runs.csv, e.g. reproduction/attention_variant")
    parser.add_argument("pairs", nargs="+", metavar="VARIANT=MODEL", help="a lead model and the record's model")
    parser.add_argument("--dataset", default="PROTEINS")
    parser.add_argument("--points", default="", help="only the grid points whose name starts so, e.g. k10-")
    args = parser.parse_args(argv)
    bad = [p for p in args.pairs if p.count("=") != 1]
    if bad:
        parser.error(f"pairs: {bad[0]!r} is not VARIANT=MODEL")
    record = pd.read_csv("reproduction/runs.csv")
    lead = pd.read_csv(f"{args.lead_folder}/runs.csv")
    table = paired_table(record, lead, dict(p.split("=") for p in args.pairs), args.dataset, args.points, label)
    if table.empty:
        sys.exit(f"{args.lead_folder}: no fold of {args.dataset} where a lead model holds its record model's grid")
    print(table.round(2).to_markdown(index=False))


if __name__ == "__main__":
    main()
