"""The cell page: an index of every cell, then each cell under its own heading (the anchor the result tables and the
findings link to) with ours beside the paper's, the verdict, the rank, the validation ties and each note; then the
tie analysis."""
import re

import pandas as pd

from repset.protocol.selection import TIE_COLUMNS
from repset.report.cells import TIES_TITLE, cells_page
from repset.report.html import anchor
from repset.report.notes import FIELDS

COMP = pd.DataFrame([
    ("text", "BBCSPORT", "RepSet", 4.43, 1.97, 2.00, 0.89, 2.43, 2.73, "outside 2 sigma"),
    ("text", "BBCSPORT", "WMD", 1.54, 0.84, 4.60, 0.70, -3.06, -4.37, "outside 2 sigma"),
    ("graph", "MUTAG", "NN-max", 86.75, 1.57, 85.84, float("nan"), 0.91, float("nan"), "no paper std")],
    columns=["table", "dataset", "method", "mean_ours", "std_ours", "mean_paper", "std_paper", "delta",
             "delta_in_paper_sigma", "verdict"])
RANKED = pd.DataFrame([("text", "BBCSPORT", "RepSet", 6, 1, 8)],
                      columns=["table", "dataset", "method", "rank ours", "rank paper", "of"])
NOTES = pd.DataFrame([("text", "bbcsport", "repset", "the hidden sets' initialisation (uniform [-1, 1])",
                       "RepSet from init small on 5 splits", "1.90 against 4.43 |X| *", "explains")], columns=list(FIELDS))
TIES = pd.DataFrame([("bbcsport", "repset", 5, 2, 0, 4.43, 4.60, 3.62, 6.33)], columns=list(TIE_COLUMNS))


def test_each_cell_has_a_section_under_the_heading_its_links_name():
    page = cells_page(COMP, RANKED, NOTES, TIES)
    headings = [h for h in re.findall(r"^### (.+)$", page, re.M)]
    assert headings == ["BBCSPORT: RepSet", "BBCSPORT: WMD", "MUTAG: NN-max"]
    index = re.findall(r"\]\(#([\w-]+)\)", page.split("## Text categorisation")[0])
    assert index == [anchor(h) for h in headings]                               # the index links every section
    assert page.index("## Text categorisation") < page.index("## Graph classification") < page.index(f"## {TIES_TITLE}")


def test_a_cells_section_gives_its_numbers_rank_ties_and_notes():
    page = cells_page(COMP, RANKED, NOTES, TIES)
    section = page.split("### BBCSPORT: RepSet")[1].split("###")[0]
    assert ("Ours 4.43 ± 1.97, the paper 2.00 ± 0.89: delta +2.43 points, +2.73 paper sigma; ✗ **outside 2 sigma**. "
            "Rank 6 of 8 here, the paper's 1.") in section
    assert "Validation ties: 2 of 5 grid choices tied; broken at random the cell is 4.60, and over every tie-break it " \
           "spans 3.62-6.33 (3.04 paper sigma wide)." in section
    assert "What was measured (1; explained: the hidden sets' initialisation):" in section
    assert ("1. **the hidden sets' initialisation (uniform \\[-1, 1\\])**: explains. Measured: RepSet from init small on "
            "5 splits. Result: 1.90 against 4.43 \\|X\\| \\*.") in section                  # Markdown escaped
    wmd = page.split("### BBCSPORT: WMD")[1].split("###")[0]
    assert "Nothing measured about this cell yet: unexplained." in wmd
    nn_max = page.split("### MUTAG: NN-max")[1].split("##")[0]
    assert "the paper 85.84: delta +0.91 points; · **no paper std**." in nn_max and "Rank" not in nn_max


def test_without_ties_or_notes_the_page_still_names_every_cell():
    page = cells_page(COMP, RANKED, None, None, report="OTHER.md")
    assert "Back to [OTHER.md](OTHER.md)." in page and TIES_TITLE not in page and "What was measured" not in page
    assert page.count("\n### ") == 3
