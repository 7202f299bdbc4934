"""HTML pages of the Markdown tables and REPORT.md, for Snakemake's HTML report (which shows images,
HTML and PDF inline and everything else as a download link)."""
from __future__ import annotations

import html
import os
import re
from pathlib import Path

from repset.io import write_atomic

__all__ = ["markdown_page", "write_markdown_page"]

#: a plain, readable style: bordered tables with striped rows, numbers right-aligned by Markdown's own
#: column alignment, long tables scrolling inside the page
STYLE = """
body { font-family: system-ui, sans-serif; font-size: 14px; line-height: 1.45; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0 1.4em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; vertical-align: top; }
th { background: #eef1f5; } tr:nth-child(even) td { background: #f8f9fb; }
code { background: #f2f2f2; padding: 0 3px; } h1, h2, h3 { margin: 1.1em 0 0.4em; }
.scroll { overflow-x: auto; }
"""


def markdown_page(text: str, title: str) -> str:
    """A standalone HTML page of Markdown ``text`` (GitHub pipe tables, fenced code; raw HTML in the
    text is shown as text, not passed through: every ``<`` and ``>``, escaped or not, becomes an entity)."""
    import markdown

    text = re.sub(r"\\?<", "&lt;", re.sub(r"\\>", "&gt;", text))
    body = markdown.markdown(text, extensions=["tables", "fenced_code"])
    body = body.replace("<table>", '<div class="scroll"><table>').replace("</table>", "</table></div>")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n")


def write_markdown_page(md_path: str | os.PathLike, html_path: str | os.PathLike) -> Path:
    """Render the Markdown file ``md_path`` to the HTML page ``html_path`` (atomically)."""
    text = Path(md_path).read_text(encoding="utf-8")
    page = markdown_page(text, Path(md_path).stem)
    return write_atomic(html_path, lambda p: p.write_text(page, encoding="utf-8"))
