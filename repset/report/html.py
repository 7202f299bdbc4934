"""HTML pages of the Markdown tables and REPORT.md, for Snakemake's HTML report (which shows images,
HTML and PDF inline and everything else as a download link)."""
from __future__ import annotations

import html
import os
import re
from pathlib import Path

from repset.io import write_atomic

__all__ = ["anchor", "markdown_page", "with_linked_pages", "write_markdown_page"]

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


def anchor(heading: str, separator: str = "-") -> str:
    """The fragment GitHub gives a Markdown heading (lower case, punctuation dropped, each space a hyphen); the HTML
    pages give the same (``separator``: Python-Markdown's slugify argument, unused)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def markdown_page(text: str, title: str) -> str:
    """A standalone HTML page of Markdown ``text`` (GitHub pipe tables, fenced code; raw HTML in the
    text is shown as text, not passed through: every ``<`` and ``>``, escaped or not, becomes an entity). Headings
    get the ids GitHub gives them (:func:`anchor`), so that ``#fragment`` links work alike."""
    import markdown

    text = re.sub(r"\\?<", "&lt;", re.sub(r"\\>", "&gt;", text))
    body = markdown.markdown(text, extensions=["tables", "fenced_code", "toc"],
                             extension_configs={"toc": {"slugify": anchor}})
    body = body.replace("<table>", '<div class="scroll"><table>').replace("</table>", "</table></div>")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n")


#: a Markdown link to a page beside the one that links it: ``](cells.md#mutag-repset)``
_PAGE_LINK = re.compile(r"\]\((?P<page>[\w.-]+\.md)(?P<fragment>#[\w-]*)?\)")


def _title_anchor(text: str) -> str:
    first = next((line for line in text.splitlines() if line.startswith("# ")), "# ")
    return "#" + anchor(first[2:])


def with_linked_pages(md_path: str | os.PathLike) -> str:
    """The Markdown of ``md_path`` followed by each page beside it that it links to (``[...](cells.md#...)``), once,
    every link between them turned into a link inside the one page: so that a single HTML file (the Snakemake
    report shows one per result) keeps REPORT.md's links to its cell page."""
    md_path = Path(md_path)
    text = md_path.read_text(encoding="utf-8")
    pages = {md_path.name: text}
    for found in _PAGE_LINK.finditer(text):
        page = md_path.parent / found["page"]
        if found["page"] not in pages and page.is_file():
            pages[found["page"]] = page.read_text(encoding="utf-8")
    heads = {name: _title_anchor(body) for name, body in pages.items()}

    def inside(match: re.Match) -> str:
        if match["page"] not in pages:
            return match[0]
        return f"]({match['fragment'] or heads[match['page']]})"
    return "\n\n---\n\n".join(_PAGE_LINK.sub(inside, body) for body in pages.values())


def write_markdown_page(md_path: str | os.PathLike, html_path: str | os.PathLike) -> Path:
    """Render the Markdown file ``md_path``, with the pages beside it that it links to
    (:func:`with_linked_pages`), to the HTML page ``html_path`` (atomically)."""
    page = markdown_page(with_linked_pages(md_path), Path(md_path).stem)
    return write_atomic(html_path, lambda p: p.write_text(page, encoding="utf-8"))
