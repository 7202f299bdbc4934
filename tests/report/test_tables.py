"""Result tables and the paper comparison."""
import math

import pandas as pd
import pytest

from repset.report.tables import compare_with_paper, to_latex, to_markdown, wide_table, write_table


def frame():
    return pd.DataFrame([
        {"dataset": "BBCSPORT", "method": "repset", "mean": 2.5, "std": 0.5, "source": "ours"},
        {"dataset": "TWITTER", "method": "repset", "mean": 26.0, "std": 1.0, "source": "ours"},
        {"dataset": "BBCSPORT", "method": "S-WMD", "mean": 2.1, "std": 0.5, "source": "reported"},
        {"dataset": "TWITTER", "method": "S-WMD", "mean": 27.5, "std": float("nan"), "source": "reported"},
    ])


def test_wide_table_marks_reported_rows():
    t = wide_table(frame(), ["BBCSPORT", "TWITTER", "RECIPE"])
    assert t.loc["RepSet", "BBCSPORT"] == "2.50 ± 0.50"
    assert t.loc["S-WMD (reported)", "TWITTER"] == "27.50"
    assert t.loc["RepSet", "RECIPE"] == "-"
    with pytest.raises(ValueError, match="lacks columns"):
        wide_table(frame().drop(columns="source"), ["BBCSPORT"])


def test_formats_and_files(tmp_path):
    t = wide_table(frame(), ["BBCSPORT"])
    md = to_markdown(t)
    assert md.splitlines()[0] == "| method | BBCSPORT |" and "| RepSet | 2.50 ± 0.50 |" in md
    assert r"2.50 $\pm$ 0.50" in to_latex(t, "cap")
    paths = write_table(t, tmp_path / "text")
    assert sorted(p.rsplit("/", 1)[-1] for p in paths) == ["text.csv", "text.md", "text.tex"]


def test_integer_columns_stay_integers_beside_float_columns():
    t = pd.DataFrame({"nodes": [3371, 43471], "share": [0.995, 0.63]}, index=pd.Index(["MUTAG", "PROTEINS"], name="d"))
    assert "| MUTAG | 3371 | 0.995 |" in to_markdown(t) and r"PROTEINS & 43471 & 0.63 \\" in to_latex(t)


def test_compare_with_paper_in_sigma_units():
    ours = pd.DataFrame([{"dataset": "B", "method": "RepSet", "mean": 3.0, "std": 0.1}])
    paper = pd.DataFrame([{"dataset": "B", "method": "RepSet", "mean": 2.0, "std": 0.5},
                          {"dataset": "R", "method": "RepSet", "mean": 3.15, "std": float("nan")}])
    out = compare_with_paper(ours, paper).set_index("dataset")
    assert out.loc["B", "delta"] == pytest.approx(1.0) and out.loc["B", "delta_in_paper_sigma"] == pytest.approx(2.0)
    assert math.isnan(out.loc["R", "delta_in_paper_sigma"])
