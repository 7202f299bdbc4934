"""HTML pages of Markdown tables: tables rendered, every special character shown as text."""
import pandas as pd

from repset.report.html import markdown_page, write_markdown_page
from repset.report.tables import to_markdown

#: characters that break Markdown, LaTeX or HTML when left raw (18 such GloVe tokens reach the latent-set table)
SPECIAL = "a|b & c <d> e_f *g* $ # ~ ^ \\ { } %"


def test_tables_and_special_characters_render_as_text(tmp_path):
    md = "# Title\n\ncaption with <script>alert(1)</script> & 5%\n\n" + to_markdown(
        pd.DataFrame({"words": [SPECIAL, "plain"]}, index=["r1", "r2"]))
    (tmp_path / "t.md").write_text(md)
    page = write_markdown_page(tmp_path / "t.md", tmp_path / "t.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<title>t</title>" in page
    assert page.count("<table>") == 1 and page.count("<tr>") == 3 and "<h1>Title</h1>" in page
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    cell = "<td>a|b &amp; c &lt;d&gt; e_f *g* $ # ~ ^ \\ { } %</td>"
    assert cell in page                       # the cell reads exactly as the word list holds it


def test_pipe_inside_a_cell_keeps_the_columns():
    page = markdown_page(to_markdown(pd.DataFrame({"a": ["x|y"], "b": ["z"]})), "p")
    assert "<td>x|y</td>" in page and "<td>z</td>" in page
