"""REPORT.md's findings: the claims table first, the cell counts, each cell outside 2 paper sigma in one sentence with
what its notes found; the result tables' marks and the links from each cell to its section of the cell page."""
import pandas as pd

from repset.report.findings import (LEGEND, MARKS, cell_link, cell_story, findings_section, marked_table,
                                    short_lead)
from repset.report.html import anchor, markdown_page
from repset.report.notes import FIELDS


def notes(*rows) -> pd.DataFrame:
    """Cell notes as :func:`~repset.report.notes.read_notes` gives them (pipeline names)."""
    return pd.DataFrame([dict(zip(FIELDS, r)) for r in rows], columns=list(FIELDS))


def comp(*rows) -> pd.DataFrame:
    """Comparison rows (display names): table, dataset, method, ours, paper, delta in paper sigma, verdict."""
    frame = pd.DataFrame(rows, columns=["table", "dataset", "method", "mean_ours", "mean_paper", "delta_in_paper_sigma",
                                        "verdict"])
    return frame.assign(delta=frame["mean_ours"] - frame["mean_paper"], std_ours=0.5, std_paper=0.5)


def test_a_cell_links_to_the_heading_github_gives_its_section():
    assert cell_link("MUTAG", "RepSet (init small)") == "cells.md#mutag-repset-init-small"
    assert anchor("IMDB BINARY: NN-attention") == "imdb-binary-nn-attention"
    assert anchor("Text categorisation: test error (%)") == "text-categorisation-test-error-"


def test_the_result_tables_mark_and_link_our_cells_only():
    wide = pd.DataFrame({"MUTAG": ["85.88 ± 1.19", "86.75 ± 1.57", "90.30 ± 1.10", "-"],
                         "REDDIT BINARY": ["77.90 ± 5.09", "76.90 ± 2.95", "92.60 ± 0.30", "-"]},
                        index=["RepSet", "NN-max", "RetGK (reported)", "RepSet (init small)"])
    c = comp(("graph", "MUTAG", "RepSet", 85.88, 88.63, -3.19, "outside 2 sigma"),
             ("graph", "MUTAG", "NN-max", 86.75, 85.84, 0.5, "within 1 sigma"),
             ("graph", "REDDIT BINARY", "RepSet", 77.9, 87.45, float("nan"), "no sigma verdict (one repetition: std "
                                                                               "over folds)"),
             ("graph", "REDDIT BINARY", "NN-max", 76.9, 80.98, float("nan"), "no paper std"))
    marked = marked_table(wide, c)
    assert marked.loc["RepSet", "MUTAG"] == "[85.88 ± 1.19](cells.md#mutag-repset) " + MARKS["outside 2 sigma"]
    assert marked.loc["NN-max", "MUTAG"].endswith(") ✓") and marked.loc["RepSet", "REDDIT BINARY"].endswith(") ·")
    assert marked.loc["RetGK (reported)", "MUTAG"] == "90.30 ± 1.10" and marked.loc["RepSet (init small)", "MUTAG"] == "-"
    assert all(mark in LEGEND for mark in (*MARKS.values(), "·"))


def test_a_lead_is_shortened_to_its_first_clause():
    assert short_lead("the 50-epoch cap, not validation, ended training (on 65 of its 100 folds)") == "the 50-epoch cap"
    assert short_lead("the matching values' scale: the authors' code divides") == "the matching values' scale"
    assert short_lead("word vectors (GloVe 6B 50-d here)") == "word vectors"
    assert short_lead("which attention") == "which attention"


def test_a_cells_story_tells_the_strongest_finding_of_each_lead():
    found = notes(("graph", "MUTAG", "repset", "the hidden sets' initialisation (uniform)", "m", "r", "rules out"),
                  ("graph", "MUTAG", "repset", "validation ties in the grid choice (ours)", "m", "r", "inconclusive"),
                  ("graph", "MUTAG", "repset", "a reduced struc2vec (1 walk)", "m", "r", "inconclusive"),
                  ("graph", "MUTAG", "repset", "a reduced struc2vec, measured again", "m", "r", "partly explains"))
    assert cell_story(found) == ("partly explained: a reduced struc2vec; ruled out: the hidden sets' initialisation; "
                                 "inconclusive: validation ties in the grid choice")
    assert cell_story(found.iloc[:2]) == ("unexplained; ruled out: the hidden sets' initialisation; inconclusive: "
                                          "validation ties in the grid choice")
    assert cell_story(found.iloc[:0]) == "unexplained: nothing measured yet"


def test_the_findings_open_with_the_claims_then_count_the_cells_and_tell_each_one_outside():
    claims = pd.DataFrame([{"section": "graph", "claim": "RepSet ranks first on IMDB-BINARY", "verdict": "does not hold",
                            "numbers": "RepSet's rank here: ✗ IMDB BINARY 5 of 12 (the paper 1)"},
                           {"section": "runtime", "claim": "RepSet's epoch grows with m and |Y|", "verdict": "partly",
                            "numbers": "✓ RepSet ∝ |Y|^0.72, ✗ ApproxRepSet ∝ m^0.67 *"}])
    c = comp(("text", "BBCSPORT", "RepSet", 4.43, 2.00, 2.74, "outside 2 sigma"),
             ("text", "BBCSPORT", "RepSet (init small)", 4.43, 2.00, 2.74, "outside 2 sigma"),   # a variant: not told
             ("text", "TWITTER", "WMD", 31.63, 28.70, 4.9, "outside 2 sigma"),
             ("graph", "MUTAG", "NN-max", 86.75, 85.84, 0.5, "within 1 sigma"),
             ("graph", "REDDIT BINARY", "NN-max", 76.9, 80.98, float("nan"),
              "no sigma verdict (one repetition: std over folds)"))
    summary = pd.DataFrame({"cells": [3, 2], "within 1 sigma": [0, 1], "within 2 sigma": [0, 1], "outside 2 sigma":
                            [3, 0], "no paper std": [0, 0], "one repetition": [0, 1]}, index=["text", "graph"])
    found = notes(("text", "bbcsport", "repset", "the hidden sets' initialisation (uniform)", "m", "r", "explains"))
    text = findings_section(claims, c, summary, found, not_judged="Not judged: one.")
    lines = text.splitlines()
    assert lines[0].startswith("**2 claims the paper makes about its results** (in our words), each judged on the "
                               "numbers below: partly 1, does not hold 1.") and lines[0].endswith("Not judged: one.")
    assert lines[2] == "| on | claim | verdict | numbers |"
    assert lines[4] == ("| graph | RepSet ranks first on IMDB-BINARY | **does not hold** | RepSet's rank here: ✗ IMDB "
                        "BINARY 5 of 12 (the paper 1) |")
    assert lines[5] == ("| runtime | RepSet's epoch grows with m and \\|Y\\| | **partly** | ✓ RepSet ∝ \\|Y\\|^0.72, ✗ "
                        "ApproxRepSet ∝ m^0.67 \\* |")                      # four cells: each | escaped once
    page = markdown_page(text, "t")
    assert "<td>RepSet's epoch grows with m and |Y|</td>" in page and "<td><strong>partly</strong></td>" in page
    assert "Text: of 3 cells, 3 have a sigma verdict: 0 within 1 paper sigma, 0 within 2, 3 outside." in text
    assert "Graphs: of 2 cells, 1 have a sigma verdict" in text and "1 from one CV repetition have none" in text
    assert "REDDIT BINARY ran one CV repetition (no sigma verdict): its 1 cells lie -4.08 to -4.08 points" in text
    told = [line for line in lines if line.startswith("- [")]
    assert told == ["- [BBCSPORT RepSet](cells.md#bbcsport-repset): 4.43 against the paper's 2.00 (+2.7 sigma); "
                    "explained: the hidden sets' initialisation.",
                    "- [TWITTER WMD](cells.md#twitter-wmd): 31.63 against the paper's 28.70 (+4.9 sigma); unexplained: "
                    "nothing measured yet."]
    assert "**The 2 cells outside 2 paper sigma**" in text
