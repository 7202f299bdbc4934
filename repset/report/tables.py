"""Result tables (method x dataset) as Markdown, LaTeX and CSV; paper-vs-ours comparisons."""
from __future__ import annotations

import math
import os
from collections.abc import Sequence

import pandas as pd

from repset.io import write_atomic

#: pipeline model name -> name in the paper's tables
DISPLAY = {"repset": "RepSet", "approx_repset": "ApproxRepSet", "deepsets": "DeepSets", "nn_mean": "NN-mean",
           "nn_max": "NN-max", "nn_attention": "NN-attention", "set_transformer": "Set-Transformer", "wmd": "WMD",
           "repset_init_small": "RepSet (init small)", "approx_repset_init_small": "ApproxRepSet (init small)",
           "majority": "Majority class"}
#: opt-in variants of a paper method (their own config overlay and records): name -> the paper method they are
#: compared with (its paper numbers) and stand in for when ranked
VARIANTS = {"repset_init_small": "repset", "approx_repset_init_small": "approx_repset"}


def _cell(mean: float, std: float | None) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    if std is None or (isinstance(std, float) and math.isnan(std)):
        return f"{mean:.2f}"
    return f"{mean:.2f} ± {std:.2f}"


def wide_table(results: pd.DataFrame, datasets: Sequence[str], methods: Sequence[str] | None = None) -> pd.DataFrame:
    """Pivot long rows (dataset, method, mean, std, source) into method x dataset cells "mean ± std".

    Rows from ``source == "reported"`` get the suffix " (reported)" on the method name.
    """
    missing = {"dataset", "method", "mean", "std", "source"} - set(results.columns)
    if missing:
        raise ValueError(f"results table lacks columns {sorted(missing)}")
    r = results.copy()
    r["row"] = r["method"].map(lambda m: DISPLAY.get(m, m)) + r["source"].map(lambda s: " (reported)" if s == "reported" else "")
    order = list(dict.fromkeys(r["row"])) if methods is None else [m for m in methods if m in set(r["row"])]
    cells = {(row.row, row.dataset): _cell(row.mean, row.std) for row in r.itertuples()}
    table = pd.DataFrame([[cells.get((m, d), "-") for d in datasets] for m in order], index=order, columns=list(datasets))
    table.index.name = "method"
    return table


#: characters with a meaning in Markdown table cells (emphasis, code, links, HTML, the cell separator)
_MARKDOWN_SPECIAL = "\\`*_[]<>|"
#: those with a meaning in Markdown text; a table cell's separator is escaped by :func:`to_markdown`
PROSE_SPECIAL = _MARKDOWN_SPECIAL.replace("|", "")


def markdown_escape(value, special: str = _MARKDOWN_SPECIAL) -> str:
    """``value`` as text with each character of ``special`` (Markdown's, by default) backslash-escaped."""
    text = str(value)
    for ch in special:
        text = text.replace(ch, "\\" + ch)
    return text


def to_markdown(table: pd.DataFrame, escape: bool = True, pad: bool = True) -> str:
    """A GitHub-flavoured Markdown table (pandas/tabulate), every cell and label escaped (``escape=False``: only
    the cell separator ``|``, so that cells may hold links); integer columns stay integers beside float ones. A
    MultiIndex shows its first level as the index and the others as leading columns. ``pad=False``: no column
    padding (the same table when rendered, a fraction of the bytes where one column is long)."""
    if table.index.nlevels > 1:
        table = table.reset_index(level=list(range(1, table.index.nlevels)))
    special = _MARKDOWN_SPECIAL if escape else "|"

    def esc(value) -> str:
        return markdown_escape(value, special)
    shown = table.astype(object).map(esc)
    shown.index = [esc(i) for i in table.index]
    shown.index.name = esc(table.index.name or "")
    shown.columns = [esc(c) for c in table.columns]
    if not pad:
        rows = [[shown.index.name, *shown.columns], *([i, *r] for i, r in zip(shown.index, shown.to_numpy().tolist()))]
        lines = ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join([lines[0], "|" + "|".join("---" for _ in rows[0]) + "|", *lines[1:]]) + "\n"
    return shown.to_markdown(tablefmt="github", disable_numparse=True) + "\n"


#: LaTeX's special characters in text and their safe forms (as pandas' ``escape="latex"``; for captions)
_LATEX_SPECIAL = {"\\": r"\textbackslash ", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde ", "^": r"\textasciicircum "}


def latex_text(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, as pandas escapes table cells."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _pm(text: str) -> str:
    return text.replace("±", r"\ensuremath{\pm}")


def to_latex(table: pd.DataFrame, caption: str = "") -> str:
    """A booktabs ``table`` through pandas' Styler: cells and labels escaped by pandas
    (``escape="latex"``), the caption likewise; ``±`` becomes ``\\ensuremath{\\pm}``."""
    levels = table.index.nlevels
    shown = table.astype(object).rename_axis([None] * levels)
    styler = (shown.style.format(lambda v: _pm(str(v)), escape="latex")
              .format_index(lambda v: _pm(str(v)), escape="latex", axis=0)
              .format_index(lambda v: _pm(str(v)), escape="latex", axis=1))
    return styler.to_latex(caption=_pm(latex_text(caption)) if caption else None, position="t",
                           position_float="centering", hrules=True, column_format="l" * levels + "c" * len(table.columns),
                           environment="table")


def write_table(table: pd.DataFrame, stem: str | os.PathLike, caption: str = "") -> list[str]:
    """Write ``stem.md``, ``stem.tex`` and ``stem.csv`` atomically; return the paths."""
    stem = str(stem)
    write_atomic(stem + ".md", lambda p: p.write_text((f"{caption}\n\n" if caption else "") + to_markdown(table)))
    write_atomic(stem + ".tex", lambda p: p.write_text(to_latex(table, caption)))
    write_atomic(stem + ".csv", lambda p: table.to_csv(p))
    return [stem + ext for ext in (".md", ".tex", ".csv")]


def compare_with_paper(ours: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Join our (dataset, method, mean, std) with the paper's; delta = ours - paper, also in units of
    the paper's std (NaN where the paper gives none or 0)."""
    joined = ours.merge(paper, on=["dataset", "method"], how="outer", suffixes=("_ours", "_paper"))
    joined["delta"] = joined["mean_ours"] - joined["mean_paper"]
    sigma = joined["std_paper"].where(joined["std_paper"] > 0)
    joined["delta_in_paper_sigma"] = joined["delta"] / sigma
    return joined[["dataset", "method", "mean_ours", "std_ours", "mean_paper", "std_paper", "delta",
                   "delta_in_paper_sigma"]]
