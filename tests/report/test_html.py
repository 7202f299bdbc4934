"""HTML pages of Markdown tables: tables rendered, every special character shown as text; headings with GitHub's
anchors; REPORT.md and the pages it links to as one page."""
import re

import pandas as pd

from repset.report.html import anchor, markdown_page, with_linked_pages, write_markdown_page
from repset.report.tables import to_markdown

#: characters that break Markdown, LaTeX or HTML when left raw (18 such GloVe tokens reach the latent-set table)
SPECIAL = "a|b & c <d> e_f *g* $ # ~ ^ \\ { } %"


def test_tables_and_special_characters_render_as_text(tmp_path):
    md = "# Title\n\ncaption with <script>alert(1)</script> & 5%\n\n" + to_markdown(
        pd.DataFrame({"words": [SPECIAL, "plain"]}, index=["r1", "r2"]))
    (tmp_path / "t.md").write_text(md)
    page = write_markdown_page(tmp_path / "t.md", tmp_path / "t.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<title>t</title>" in page
    assert page.count("<table>") == 1 and page.count("<tr>") == 3 and '<h1 id="title">Title</h1>' in page
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    cell = "<td>a|b &amp; c &lt;d&gt; e_f *g* $ # ~ ^ \\ { } %</td>"
    assert cell in page                       # the cell reads exactly as the word list holds it


def test_pipe_inside_a_cell_keeps_the_columns():
    page = markdown_page(to_markdown(pd.DataFrame({"a": ["x|y"], "b": ["z"]})), "p")
    assert "<td>x|y</td>" in page and "<td>z</td>" in page


def test_headings_get_githubs_anchors_and_linked_pages_join_the_one_page(tmp_path):
    (tmp_path / "REPORT.md").write_text("# Report\n\nSee [MUTAG RepSet](cells.md#mutag-repset), [the page](cells.md), "
                                        "[a table](tables.md) and [the web](https://example.org/x.md).\n")
    (tmp_path / "cells.md").write_text("# Every cell\n\nBack to [REPORT.md](REPORT.md).\n\n### MUTAG: RepSet\n\n85.88\n")
    joined = with_linked_pages(tmp_path / "REPORT.md")          # tables.md does not exist: its link stays
    assert "](#mutag-repset)" in joined and "[the page](#every-cell)" in joined and "[a table](tables.md)" in joined
    assert "Back to [REPORT.md](#report)." in joined and "(https://example.org/x.md)" in joined
    page = write_markdown_page(tmp_path / "REPORT.md", tmp_path / "REPORT.html").read_text()
    ids = set(re.findall(r'id="([^"]+)"', page))
    assert {"report", "every-cell", "mutag-repset"} <= ids
    assert all(target in ids for target in re.findall(r'href="#([^"]+)"', page))
    assert anchor("MUTAG: RepSet (init small)") == "mutag-repset-init-small"
