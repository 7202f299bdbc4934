"""Result tables and the paper comparison."""
import math
import re

import pandas as pd
import pytest

from repset.report.tables import compare_with_paper, latex_text, to_latex, to_markdown, wide_table, write_table


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


def rows(markdown: str) -> list[list[str]]:
    """The cells of a Markdown table (header first, the rule line dropped), unpadded."""
    lines = [line for line in markdown.splitlines() if line.startswith("|") and not line.startswith("|-")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]


def test_formats_and_files(tmp_path):
    t = wide_table(frame(), ["BBCSPORT"])
    md = to_markdown(t)
    assert rows(md)[0] == ["method", "BBCSPORT"] and ["RepSet", "2.50 ± 0.50"] in rows(md)
    assert r"2.50 \ensuremath{\pm} 0.50" in to_latex(t, "cap")
    paths = write_table(t, tmp_path / "text")
    assert sorted(p.rsplit("/", 1)[-1] for p in paths) == ["text.csv", "text.md", "text.tex"]


def test_integer_columns_stay_integers_beside_float_columns():
    t = pd.DataFrame({"nodes": [3371, 43471], "share": [0.995, 0.63]}, index=pd.Index(["MUTAG", "PROTEINS"], name="d"))
    assert ["MUTAG", "3371", "0.995"] in rows(to_markdown(t)) and r"PROTEINS & 43471 & 0.63 \\" in to_latex(t)


#: the special characters of the GloVe top-50k words the latent-set table draws from, and more
TOKENS = ["&", "#", "$", "|", "~", "^", "\\", "{", "}", "_", "%", "*", "`", "<b>", "[x](y)"]


def test_markdown_escapes_every_cell_and_label():
    t = pd.DataFrame({"w|ord": TOKENS}, index=pd.Index([f"h_{i}" for i in range(len(TOKENS))], name="set|id"))
    table = rows(to_markdown(t))
    assert len(table) == len(TOKENS) + 1 and all(len(r) == 2 for r in table)        # no cell split by a |
    assert table[0] == [r"set\|id", r"w\|ord"]
    unescape = lambda c: re.sub(r"\\(.)", r"\1", c)   # noqa: E731
    assert [unescape(r[1]) for r in table[1:]] == TOKENS and unescape(table[1][0]) == "h_0"
    assert r"\<b\>" in to_markdown(t) and r"\*" in to_markdown(t)                   # no HTML, no emphasis


def test_latex_escapes_cells_labels_and_caption():
    t = pd.DataFrame({"w_ord": TOKENS}, index=pd.Index([f"h_{i}" for i in range(len(TOKENS))], name="set"))
    tex = to_latex(t, "nearest words & 50% of m_k")
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0]
    for raw, safe in [("&", r"\&"), ("#", r"\#"), ("$", r"\$"), ("~", r"\textasciitilde"), ("^", r"\textasciicircum"),
                      ("\\", r"\textbackslash"), ("{", r"\{"), ("}", r"\}"), ("%", r"\%")]:
        assert safe in body, raw
    assert body.count(" & ") == len(TOKENS)              # one column separator per row: no stray &
    assert r"\caption{nearest words \& 50\% of m\_k}" in tex and r"w\_ord" in tex and r"h\_0" in tex
    assert latex_text("a_b&c") == r"a\_b\&c"


def test_compare_with_paper_in_sigma_units():
    ours = pd.DataFrame([{"dataset": "B", "method": "RepSet", "mean": 3.0, "std": 0.1}])
    paper = pd.DataFrame([{"dataset": "B", "method": "RepSet", "mean": 2.0, "std": 0.5},
                          {"dataset": "R", "method": "RepSet", "mean": 3.15, "std": float("nan")}])
    out = compare_with_paper(ours, paper).set_index("dataset")
    assert out.loc["B", "delta"] == pytest.approx(1.0) and out.loc["B", "delta_in_paper_sigma"] == pytest.approx(2.0)
    assert math.isnan(out.loc["R", "delta_in_paper_sigma"])


def test_two_level_index_in_markdown_and_latex():
    table = pd.DataFrame({"words": ["a | b & c", "c_d"]},
                         index=pd.MultiIndex.from_tuples([("uniform", 1), ("scaled", 1)], names=["init", "set"]))
    md = to_markdown(table).splitlines()
    assert md[0].replace(" ", "") == "|init|set|words|" and "uniform" in md[2] and r"a \| b & c" in md[2]
    tex = to_latex(table)
    assert r"a | b \& c" in tex and r"c\_d" in tex and r"\begin{tabular}{llc}" in tex


def test_an_unpadded_table_is_the_same_table_in_fewer_bytes():
    t = pd.DataFrame({"cell": ["[4.43 ± 1.97](cells.md#x) ✗", "a|b"], "long": ["x" * 300, "y"]}, index=["RepSet", "WMD"])
    t.index.name = "method"
    padded, compact = to_markdown(t, escape=False), to_markdown(t, escape=False, pad=False)
    assert rows(compact) == rows(padded) and len(compact) < len(padded) / 1.5
    assert compact.splitlines()[:3] == ["| method | cell | long |", "|---|---|---|",
                                        "| RepSet | [4.43 ± 1.97](cells.md#x) ✗ | " + "x" * 300 + " |"]
    assert rows(compact)[2][1] == r"a\|b"                           # the separator escaped, links kept
