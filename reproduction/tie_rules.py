"""The cells outside 2 paper sigma of the models with a grid, were their validation ties broken by other rules that
never see the test error (repset.protocol.selection.tie_break_cells: the higher validation loss, the smallest or the
largest m x |Y|) or at random (random_tie_cells: 20,000 draws, seed 0; how often a draw lands within 2 paper sigma),
beside ours (the lower validation loss) and the most favourable tie-break (tie_spread's bound). Run from the
repository root:

    python reproduction/tie_rules.py [--report reproduction/report]

Reads the report's aggregate/runs.csv and aggregate/summary.csv and the paper's numbers; text in test error %, graphs
in accuracy %, each with its distance to the paper in paper sigma."""
from __future__ import annotations

import argparse
import sys

import pandas as pd

sys.path.insert(0, ".")
from repset.datasets.registry import get_spec  # noqa: E402
from repset.protocol.selection import random_tie_cells, tie_break_cells, tie_spread  # noqa: E402
from repset.report.document import comparison, ours_long  # noqa: E402
from repset.report.tables import DISPLAY, to_markdown  # noqa: E402
from repset.report.ties import table_value  # noqa: E402

RULES = {"ours (lower loss)": ("val_loss", True), "higher loss": ("val_loss", False),
         "smallest m x |Y|": ("size", True), "largest m x |Y|": ("size", False)}


def main(argv: list[str] | None = None) -> None:
    """The command line (``argv``: sys.argv[1:] by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", default="reproduction/report", help="a folder with aggregate/{runs,summary}.csv")
    args = parser.parse_args(argv)
    runs = pd.read_csv(f"{args.report}/aggregate/runs.csv")
    sizes = runs["point"].str.extract(r"^k(\d+)-m(\d+)$").astype(float)
    runs = runs.assign(size=sizes[0] * sizes[1])
    comp = comparison(ours_long(pd.read_csv(f"{args.report}/aggregate/summary.csv")))
    outside = comp[comp["verdict"] == "outside 2 sigma"].set_index(["dataset", "method"])
    cells, spread = tie_break_cells(runs, RULES), tie_spread(runs).set_index(["dataset", "model"])
    tied = spread["tied_error"].to_dict()
    rows = []
    for cell in cells.itertuples(index=False):
        spec, method = get_spec(cell.dataset), DISPLAY.get(cell.model, cell.model)
        if (spec.display, method) not in outside.index or not tied.get((cell.dataset, cell.model)):
            continue
        paper = outside.loc[(spec.display, method)]
        graph = spec.kind == "graph"
        shown = lambda e: table_value(cell.dataset, e)  # noqa: E731
        sigma = lambda v: (v - paper["mean_paper"]) / paper["std_paper"]  # noqa: E731
        row = {"table": "graph" if graph else "text", "dataset": spec.display, "method": method,
               "paper": f"{paper['mean_paper']:.2f} +- {paper['std_paper']:.2f}"}
        for name, value in zip(RULES, cell[2:]):
            row[name] = f"{shown(value):.2f} ({sigma(shown(value)):+.2f})"
        draws = shown(random_tie_cells(runs[(runs["dataset"] == cell.dataset) & (runs["model"] == cell.model)],
                                       20_000, seed=0))
        row["random: mean"] = f"{draws.mean():.2f} ({sigma(draws.mean()):+.2f})"
        row["random: within 2 sigma"] = f"{(abs(sigma(draws)) <= 2).mean():.1%}"
        ends = spread.loc[(cell.dataset, cell.model), ["error_low", "error_high"]].map(shown)
        best = min(ends, key=lambda v: abs(sigma(v)))
        row["most favourable"] = f"{best:.2f} ({sigma(best):+.2f})"
        rows.append(row)
    print(to_markdown(pd.DataFrame(rows).set_index("table")))


if __name__ == "__main__":
    main()
