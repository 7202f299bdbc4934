"""REPORT.md's section on validation ties in the grid choice: how often two grid points shared the lowest
validation error (the tie then went to the lower validation loss, :func:`repset.protocol.selection.select`), and
how far the cell could move over every way of breaking those ties (:func:`repset.protocol.selection.tie_spread`).
The paper does not say how it broke ties; with small validation sets (MUTAG's 17 graphs per fold) they are common."""
from __future__ import annotations

import pandas as pd

from repset.datasets.registry import get_spec
from repset.report.tables import DISPLAY, to_markdown

__all__ = ["table_value", "tie_table", "ties_section"]


def table_value(dataset: str, error: float) -> float:
    """A test error (%) of ``dataset`` in its result table's metric: accuracy (%) for a graph dataset, else itself."""
    return 100 - error if get_spec(dataset).kind == "graph" else error


def tie_table(ties: pd.DataFrame, comp: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`~repset.protocol.selection.tie_spread` in the result tables' terms, one row per dataset and model
    with at least one tie: text in test error %, graphs in accuracy % (the range's ends swap); the cell as
    selected, its expected value under a random tie-break, its range over every tie-break; ``width / paper
    std``: the range's width in units of the paper's std of the cell where ``comp`` (the report's comparison,
    :func:`repset.report.document.comparison`) gives one; text rows first."""
    std = {} if comp is None else {(c.dataset, c.method): c.std_paper for c in comp.itertuples()}
    rows = []
    for r in ties[ties["tied_error"] > 0].itertuples():
        spec = get_spec(r.dataset)
        graph = spec.kind == "graph"
        cell, random, low, high = (table_value(r.dataset, e) for e in
                                   (r.error_selected, r.error_random, r.error_low, r.error_high))
        low, high = min(low, high), max(low, high)   # a graph's accuracy swaps the ends
        method = DISPLAY.get(r.model, r.model)
        paper_std = std.get((spec.display, method))
        rows.append({"table": "graph" if graph else "text", "dataset": spec.display, "method": method,
                     "choices": r.choices, "tied on validation error": r.tied_error,
                     "tied on its loss too": r.tied_both, "cell": f"{cell:.2f}", "ties at random": f"{random:.2f}",
                     "range over tie-breaks": f"{low:.2f}-{high:.2f}", "width": f"{high - low:.2f}",
                     "width / paper std": f"{(high - low) / paper_std:.2f}" if paper_std and paper_std > 0 else ""})
    columns = ["table", "dataset", "method", "choices", "tied on validation error", "tied on its loss too", "cell",
               "ties at random", "range over tie-breaks", "width", "width / paper std"]
    out = pd.DataFrame(rows, columns=columns)
    return out.sort_values(["table", "dataset", "method"], ascending=[False, True, True], ignore_index=True)


def ties_section(ties: pd.DataFrame, comp: pd.DataFrame | None = None) -> str:
    """The section's body (markdown): what the table counts, then :func:`tie_table` (or a line when no choice
    tied)."""
    table = tie_table(ties, comp)
    choices, tied = int(ties["choices"].sum()), int(ties["tied_error"].sum())
    both = int(ties["tied_both"].sum())
    decided = ("validation loss decided them" if not both else
               f"validation loss decided them, grid order the {both:,} tied on the loss too")
    text = (f"Of {choices:,} grid choices (a split and seed of a model with a grid), {tied:,} had two or more points "
            f"sharing the lowest validation error; {decided} (the paper does not say how it broke ties). "
            "`ties at random`: the cell's expected value were the ties broken uniformly at random. The range is the "
            "cell's least and greatest value over every way of breaking those ties, each split taking its best or "
            "worst tied point by test error: a bound on what the tie-break can do, not a selection rule.")
    return text + "\n\n" + (to_markdown(table.set_index("table")) if len(table) else "(no tie)\n")
