"""REPORT.md's first section, the findings: the paper's claims with their verdicts (:mod:`repset.report.claims`),
how many cells lie within one and two of the paper's std, and each cell outside, in one sentence with what was
measured about it. Also the marks that put each cell's verdict beside its number in the result tables, and the
anchors that link a cell to its section of the cell page (:mod:`repset.report.cells`)."""
from __future__ import annotations

import pandas as pd

from repset.report.claims import VERDICTS
from repset.report.html import anchor
from repset.report.notes import FINDINGS, displayed
from repset.report.tables import DISPLAY, PROSE_SPECIAL, VARIANTS, markdown_escape, to_markdown

__all__ = ["MARKS", "LEGEND", "cell_heading", "cell_link", "marked_table", "short_lead", "cell_story",
           "findings_section"]

#: a cell's verdict (:func:`repset.report.document.verdict`) -> its mark in the result tables
MARKS = {"within 1 sigma": "✓", "within 2 sigma": "≈", "outside 2 sigma": "✗"}
#: the mark of a cell compared with the paper without a sigma verdict (no paper std, or one CV repetition)
NO_SIGMA = "·"
LEGEND = ("Marks: ✓ within 1 paper std (sigma) of the paper's number, ≈ within 2, ✗ outside 2, · no sigma verdict (the "
          "paper gives no std, or the dataset ran one CV repetition); each number links to its cell's numbers, notes "
          "and measurements.")
#: strongest first: a lead measured twice counts at its strongest finding
_ORDER = ("explains", "partly explains", "inconclusive", "rules out", "not measurable here")
#: the order in which a cell's story tells its findings
_SHOWN = ("explains", "partly explains", "rules out", "inconclusive", "not measurable here")


def cell_heading(dataset: str, method: str) -> str:
    """The cell page's heading of a cell (display names): ``MUTAG: RepSet``."""
    return f"{dataset}: {method}"


def cell_link(dataset: str, method: str, page: str = "cells.md") -> str:
    """The link target of a cell's section on ``page``."""
    return f"{page}#{anchor(cell_heading(dataset, method))}"


def mark(verdict: str) -> str:
    return MARKS.get(verdict, NO_SIGMA)


def marked_table(wide: pd.DataFrame, comp: pd.DataFrame, page: str = "cells.md") -> pd.DataFrame:
    """A result table (:func:`~repset.report.document.result_tables`: methods x datasets, display names) with each
    cell that the comparison ``comp`` holds shown as ``[mean ± std](page#cell) mark``; reported and reference rows
    as they are. For :func:`~repset.report.tables.to_markdown` with ``escape=False``."""
    verdicts = {(c.dataset, c.method): c.verdict for c in comp.itertuples()}
    out = wide.copy()
    for method in wide.index:
        for dataset in wide.columns:
            verdict = verdicts.get((dataset, method))
            if verdict is not None and wide.loc[method, dataset] != "-":
                out.loc[method, dataset] = (f"[{wide.loc[method, dataset]}]({cell_link(dataset, method, page)}) "
                                            f"{mark(verdict)}")
    return out


def short_lead(lead: str) -> str:
    """A note's lead up to its first parenthesis, colon or comma: ``the 50-epoch cap, not validation, ended
    training`` -> ``the 50-epoch cap``."""
    cut = min((i for i in (lead.find(" ("), lead.find(": "), lead.find(", ")) if i > 0), default=len(lead))
    return lead[:cut].strip()


def cell_story(notes: pd.DataFrame) -> str:
    """What the notes of one cell found, in one clause: explained, partly explained or unexplained, then the leads
    ruled out, inconclusive or not measurable; each lead (:func:`short_lead`) once, at its strongest finding."""
    if notes is None or notes.empty:
        return "unexplained: nothing measured yet"
    strongest: dict[str, str] = {}
    for n in notes.itertuples():
        lead = short_lead(n.lead)
        if lead not in strongest or _ORDER.index(n.finding) < _ORDER.index(strongest[lead]):
            strongest[lead] = n.finding
    by = {f: [lead for lead, g in strongest.items() if g == f] for f in FINDINGS}
    said = {"explains": "explained", "partly explains": "partly explained", "rules out": "ruled out",
            "inconclusive": "inconclusive", "not measurable here": "not measurable here"}
    parts = [] if by["explains"] or by["partly explains"] else ["unexplained"]
    parts += [f"{said[f]}: {', '.join(by[f])}" for f in _SHOWN if by[f]]
    return markdown_escape("; ".join(parts))


def _counts(summary: pd.DataFrame) -> str:
    """One sentence per table of :func:`~repset.report.document.verdict_summary`."""
    names = {"text": "Text", "graph": "Graphs"}
    out = []
    for table, r in summary.iterrows():
        judged = int(r["cells"] - r["no paper std"] - r["one repetition"])
        line = (f"{names.get(table, table)}: of {int(r['cells'])} cells, {judged} have a sigma verdict: "
                f"{int(r['within 1 sigma'])} within 1 paper sigma, {int(r['within 2 sigma'])} within 2, "
                f"{int(r['outside 2 sigma'])} outside")
        extra = [f"{int(r[k])} {what}" for k, what in (("no paper std", "without a paper std (one split)"),
                                                       ("one repetition", "from one CV repetition")) if r[k]]
        out.append(line + (f"; {', '.join(extra)} have none" if extra else "") + ".")
    return " ".join(out)


def _one_repetition(comp: pd.DataFrame) -> list[str]:
    """A sentence per dataset whose cells have no sigma verdict for one CV repetition: how far below or above."""
    part = comp[comp["verdict"].str.startswith("no sigma verdict")]
    return [f"{dataset} ran one CV repetition (no sigma verdict): its {len(cells)} cells lie "
            f"{cells['delta'].min():+.2f} to {cells['delta'].max():+.2f} points from the paper's."
            for dataset, cells in part.groupby("dataset", sort=False)]


def findings_section(claims: pd.DataFrame, comp: pd.DataFrame, summary: pd.DataFrame, notes: pd.DataFrame | None,
                     page: str = "cells.md", not_judged: str = "") -> str:
    """The section's body (Markdown): the claims table (:func:`~repset.report.claims.paper_claims`), the cell counts
    (``summary``: :func:`~repset.report.document.verdict_summary`), and each cell of the paper's methods outside 2
    paper sigma in one sentence with what its notes (:func:`~repset.report.notes.read_notes`) found, linked to its
    section of ``page``. ``not_judged``: a sentence on the paper's statements left unjudged."""
    def prose(text: str) -> str:                  # the cell separator is to_markdown's to escape
        return markdown_escape(text, PROSE_SPECIAL)
    shown = pd.DataFrame({"on": claims["section"], "claim": claims["claim"].map(prose),
                          "verdict": "**" + claims["verdict"] + "**", "numbers": claims["numbers"].map(prose)})
    counts = claims["verdict"].value_counts()
    tally = ", ".join(f"{v} {counts[v]}" for v in VERDICTS if v in counts)
    lines = [f"**{len(claims)} claims the paper makes about its results** (in our words), each judged on the numbers "
             f"below: {tally}. ✓ marks a dataset, point or check that agrees with the claim, ✗ one that does not; the "
             "rules are in `repset.report.claims`. " + not_judged, "",
             to_markdown(shown.set_index("on"), escape=False, pad=False) if len(shown) else "(no claim)\n",
             f"**Cells against the paper's std.** {_counts(summary)} " + " ".join(_one_repetition(comp)), ""]
    notes = displayed(notes)
    papers = comp[~comp["method"].isin({DISPLAY.get(v, v) for v in VARIANTS})]
    outside = papers[papers["verdict"] == "outside 2 sigma"]
    if len(outside):
        lines += [f"**The {len(outside)} cells outside 2 paper sigma**, with what was measured about each:", ""]
    for c in outside.itertuples():
        mine = notes[(notes["table"] == c.table) & (notes["dataset"] == c.dataset) & (notes["method"] == c.method)]
        lines.append(f"- [{c.dataset} {c.method}]({cell_link(c.dataset, c.method, page)}): {c.mean_ours:.2f} against "
                     f"the paper's {c.mean_paper:.2f} ({c.delta_in_paper_sigma:+.1f} sigma); {cell_story(mine)}.")
    return "\n".join(lines) + "\n"
