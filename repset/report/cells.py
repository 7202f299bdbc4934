"""The cell page beside REPORT.md (``cells.md``): every cell the paper also reports, each under a heading of its own
that the result tables and the findings link to (:func:`repset.report.findings.cell_link`), with ours beside the
paper's number, the delta, the verdict, the rank, the validation ties of its grid choice and what was measured
about it (:mod:`repset.report.notes`); then the tie analysis (:mod:`repset.report.ties`)."""
from __future__ import annotations

import math

import pandas as pd

from repset.report.findings import cell_heading, cell_story, mark
from repset.report.html import anchor
from repset.report.notes import displayed
from repset.report.tables import markdown_escape, to_markdown
from repset.report.ties import tie_table, ties_section

__all__ = ["TITLE", "TIES_TITLE", "cells_page"]

TITLE = "Every cell against the paper"
TIES_TITLE = "Validation ties in the grid choice"
_TABLES = {"text": "Text categorisation", "graph": "Graph classification"}


def _num(value: float, sign: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:+.2f}" if sign else f"{value:.2f}"


def _pm(mean: float, std: float) -> str:
    return _num(mean) + ("" if std is None or (isinstance(std, float) and math.isnan(std)) else f" ± {std:.2f}")


def _index(comp: pd.DataFrame, notes: pd.DataFrame) -> str:
    counts = notes.groupby(["dataset", "method"]).size()
    rows = [{"cell": f"[{cell_heading(c.dataset, c.method)}](#{anchor(cell_heading(c.dataset, c.method))})",
             "ours": _num(c.mean_ours), "paper": _num(c.mean_paper), "delta": _num(c.delta, True),
             "delta / paper sigma": _num(c.delta_in_paper_sigma, True), "verdict": f"{mark(c.verdict)} {c.verdict}",
             "notes": int(counts.get((c.dataset, c.method), 0))} for c in comp.itertuples()]
    return to_markdown(pd.DataFrame(rows).set_index("cell"), escape=False, pad=False)


def _cell(c, rank: dict | None, tie: pd.Series | None, notes: pd.DataFrame) -> list[str]:
    """The lines of one cell's section: its heading, numbers and notes."""
    sigma = "" if pd.isna(c.delta_in_paper_sigma) else f", {c.delta_in_paper_sigma:+.2f} paper sigma"
    text = (f"Ours {_pm(c.mean_ours, c.std_ours)}, the paper {_pm(c.mean_paper, c.std_paper)}: delta "
            f"{_num(c.delta, True)} points{sigma}; {mark(c.verdict)} **{c.verdict}**.")
    if rank is not None:
        paper = "" if rank["rank paper"] is None or pd.isna(rank["rank paper"]) else f", the paper's {int(rank['rank paper'])}"
        text += f" Rank {int(rank['rank ours'])} of {int(rank['of'])} here{paper}."
    if tie is not None:
        text += (f" Validation ties: {tie['tied on validation error']} of {tie['choices']} grid choices tied; broken "
                 f"at random the cell is {tie['ties at random']}, and over every tie-break it spans "
                 f"{tie['range over tie-breaks']}" + (f" ({tie['width / paper std']} paper sigma wide)"
                                                      if tie["width / paper std"] else "") + ".")
    lines = [f"### {cell_heading(c.dataset, c.method)}", "", text, ""]
    if len(notes):
        lines += [f"What was measured ({len(notes)}; {cell_story(notes)}):", ""]
        for i, n in enumerate(notes.itertuples(), 1):
            lines.append(f"{i}. **{markdown_escape(n.lead)}**: {n.finding}. Measured: {markdown_escape(n.measurement)}. "
                         f"Result: {markdown_escape(n.result)}.")
        lines.append("")
    elif c.verdict == "outside 2 sigma":
        lines += ["Nothing measured about this cell yet: unexplained.", ""]
    return lines


def cells_page(comp: pd.DataFrame, ranked: pd.DataFrame, notes: pd.DataFrame | None, ties: pd.DataFrame | None = None,
               report: str = "REPORT.md") -> str:
    """The page (Markdown): ``comp`` (:func:`~repset.report.document.comparison`, in the tables' order), each cell's
    rank from ``ranked`` (:func:`~repset.report.document.ranks`), its notes (:func:`~repset.report.notes.read_notes`)
    and ties (:func:`~repset.protocol.selection.tie_spread`; None: no tie section); ``report``: the page linking
    here."""
    notes = displayed(notes)
    ranks = {(r["dataset"], r["method"]): r for r in ranked.to_dict("records")}
    tied = {} if ties is None else {(r["dataset"], r["method"]): r for _, r in tie_table(ties, comp).iterrows()}
    lines = [f"# {TITLE}", "",
             f"Back to [{report}]({report}). Each cell of the result tables that the paper also reports: ours beside "
             "the paper's number, the delta (ours - paper, also in units of the paper's std where it gives one), the "
             "verdict, the method's rank on the dataset (text: among the methods run here; graphs: among every "
             "method of the paper's table), the validation ties of its grid choice, and each measurement on record "
             "about it (`cell_notes`): the lead, what was measured, the result and what it did to the lead. A cell "
             "outside 2 sigma is unexplained unless a measurement explains it.", "",
             "## All cells", "", _index(comp, notes) if len(comp) else "(no cell to compare)\n"]
    for table, part in comp.groupby("table", sort=False):
        lines += [f"## {_TABLES.get(table, table)}", ""]
        for c in part.itertuples():
            mine = notes[(notes["table"] == table) & (notes["dataset"] == c.dataset) & (notes["method"] == c.method)]
            lines += _cell(c, ranks.get((c.dataset, c.method)), tied.get((c.dataset, c.method)), mine)
    if ties is not None:
        lines += [f"## {TIES_TITLE}", "", ties_section(ties, comp)]
    return "\n".join(lines).rstrip("\n") + "\n"
