"""REPORT.md's section on validation ties in the grid choice."""
import pandas as pd

from repset.protocol.selection import TIE_COLUMNS
from repset.report.ties import tie_table, ties_section


def _ties(rows):
    return pd.DataFrame(rows, columns=list(TIE_COLUMNS))


def test_graph_rows_turn_error_into_accuracy_and_divide_the_width_by_the_paper_std():
    ties = _ties([("MUTAG", "repset", 100, 60, 0, 14.0, 14.5, 12.0, 17.0),
                  ("bbcsport", "repset", 5, 5, 0, 4.4, 4.6, 3.2, 6.0),
                  ("twitter", "repset", 5, 0, 0, 26.0, 26.0, 26.0, 26.0)])            # no tie: no row
    comp = pd.DataFrame({"dataset": ["MUTAG", "BBCSPORT"], "method": ["RepSet", "RepSet"], "std_paper": [0.5, None]})
    table = tie_table(ties, comp)
    assert table["dataset"].tolist() == ["BBCSPORT", "MUTAG"]                   # text first
    graph = table.set_index("dataset").loc["MUTAG"]
    assert (graph["cell"], graph["ties at random"], graph["range over tie-breaks"], graph["width"]) == \
        ("86.00", "85.50", "83.00-88.00", "5.00")
    assert graph["width / paper std"] == "10.00"
    text = table.set_index("dataset").loc["BBCSPORT"]
    assert (text["range over tie-breaks"], text["width / paper std"]) == ("3.20-6.00", "")


def test_the_section_counts_choices_and_ties_and_says_when_none_tied():
    ties = _ties([("twitter", "repset", 5, 0, 0, 26.0, 26.0, 26.0, 26.0),
                  ("classic", "repset", 5, 2, 1, 4.0, 4.0, 3.9, 4.1)])
    text = ties_section(ties)
    assert text.startswith("Of 10 grid choices") and "2 had two or more points" in text and "| CLASSIC" in text
    assert "grid order the 1 tied on the loss too" in text
    assert ties_section(ties.iloc[:1]).rstrip().endswith("(no tie)")
