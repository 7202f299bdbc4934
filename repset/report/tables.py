"""Result tables (method x dataset) as Markdown, LaTeX and CSV; paper-vs-ours comparisons."""
from __future__ import annotations

import math
import os
from collections.abc import Sequence

import pandas as pd

from repset.io import write_atomic

#: pipeline model name -> name in the paper's tables
DISPLAY = {"repset": "RepSet", "approx_repset": "ApproxRepSet", "deepsets": "DeepSets", "nn_mean": "NN-mean",
           "nn_max": "NN-max", "nn_attention": "NN-attention", "set_transformer": "Set-Transformer", "wmd": "WMD"}


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


def _body(table: pd.DataFrame):
    """(index label, row values) pairs; ``astype(object)`` keeps integer columns integers beside floats."""
    return zip(table.index, table.astype(object).values)


def to_markdown(table: pd.DataFrame) -> str:
    header = [table.index.name or ""] + list(table.columns)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join([str(i)] + [str(v) for v in row]) + " |" for i, row in _body(table)]
    return "\n".join(lines) + "\n"


def to_latex(table: pd.DataFrame, caption: str = "") -> str:
    esc = lambda s: str(s).replace("±", r"$\pm$").replace("_", r"\_").replace("%", r"\%")  # noqa: E731
    cols = "l" + "c" * len(table.columns)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{esc(caption)}}}", rf"\begin{{tabular}}{{{cols}}}",
             r"\toprule", " & ".join([""] + [esc(c) for c in table.columns]) + r" \\", r"\midrule"]
    lines += [" & ".join([esc(i)] + [esc(v) for v in row]) + r" \\" for i, row in _body(table)]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


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
