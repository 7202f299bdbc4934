"""REPORT.md's "Where your model stands": each model from outside the package against every other model on the same
splits (:mod:`repset.protocol.standing`), as a rank with ties and the paired tests behind it; also a page of its own
(``results/tables/standing.md``, its pairs as CSV)."""
from __future__ import annotations

import math
import os
from collections.abc import Sequence

import pandas as pd

from repset.datasets.registry import get_spec
from repset.io import write_atomic
from repset.protocol.standing import ALPHA, TEST, rank_table, standing_table

from .tables import DISPLAY, to_markdown

__all__ = ["TITLE", "standing_section", "standing_tables", "write_standing"]

#: the section's title, in REPORT.md and on its own page
TITLE = "Where your model stands"


def _name(model: str) -> str:
    return DISPLAY.get(model, model)


def _number(value: float, digits: int = 2) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _p(value: float) -> str:
    return "-" if math.isnan(value) else "< 0.001" if value < 0.001 else f"{value:.3f}"


def standing_section(standing: pd.DataFrame, models: Sequence[str], alpha: float = ALPHA) -> str:
    """The section's body (Markdown) from :func:`~repset.protocol.standing.standing_table`: what is compared and how,
    the rank of each of ``models`` per dataset, then every pair; a line where none of them has run yet."""
    names = ", ".join(f"`{m}`" for m in models) or "none in this config"
    lines = [f"Models from outside the package ({names}; `models.<name>.layer`: an import path or an entry point), "
             "each against every model trained here, dataset by dataset, on the splits both ran: the "
             "validation-selected test result per split, in the tables' metric (text: test error %, lower is better; "
             "graphs: accuracy %, higher is better). `diff` = yours - theirs over those splits; `s.e.` its standard "
             f"error and `p` the {TEST} over the test's units: the splits of a text dataset, the CV repetitions' means "
             "of a graph dataset (its folds where fewer than two whole repetitions are paired). A difference with "
             f"p < {alpha} counts (each comparison on its own, no correction for their number); the rank (1 = best) "
             "ties every model whose difference from yours does not, and runs over the places of those ties "
             "(`2-4`). Under two units (a predefined split, a profile of one split) there is no test and every model "
             "ties. WMD and the majority class are not paired.", ""]
    if standing.empty:
        return "\n".join(lines + ["(none of these models has a run paired with another model's yet)", ""])
    ranks, pairs = standing_tables(standing)
    return "\n".join(lines + ["### Rank per dataset", "", ranks, "### Paired differences", "", pairs])


def standing_tables(standing: pd.DataFrame) -> tuple[str, str]:
    """The two Markdown tables of the section from a non-empty :func:`~repset.protocol.standing.standing_table`:
    the rank of each model per dataset (:func:`~repset.protocol.standing.rank_table`), then every pair, with the
    tables' display names and numbers to two decimals (p to three, ``< 0.001`` below)."""
    ranks = rank_table(standing)
    shown = pd.DataFrame({
        "dataset": [get_spec(d).display for d in ranks["dataset"]], "model": ranks["model"].map(_name),
        "metric": ranks["metric"], "mean": ranks["mean"].map(_number), "rank": ranks["rank"], "of": ranks["of"],
        **{column: ranks[column].map(lambda ms: ", ".join(_name(m) for m in ms) or "-")
           for column in ("ahead of", "tied with", "behind")}})
    pairs = pd.DataFrame({
        "dataset": [get_spec(d).display for d in standing["dataset"]], "model": standing["model"].map(_name),
        "against": standing["other"].map(_name), "splits": standing["splits"],
        "units": [f"{n} {u if n != 1 else u.removesuffix('s')}" for n, u in zip(standing["n"], standing["units"])],
        "mean": standing["mean"].map(_number), "theirs": standing["other mean"].map(_number),
        "diff": standing["diff"].map(_number), "s.e.": standing["s.e."].map(_number),
        "p": standing["p"].map(_p), "won / lost": standing["won / lost"], "verdict": standing["verdict"]})
    return to_markdown(shown.set_index("dataset")), to_markdown(pairs.set_index("dataset"))


def write_standing(selected: pd.DataFrame, models: Sequence[str], md: str | os.PathLike, csv: str | os.PathLike,
                   alpha: float = ALPHA) -> pd.DataFrame:
    """``md``: the section as a page of its own (titled :data:`TITLE`); ``csv``: its pairs
    (:func:`~repset.protocol.standing.standing_table` of ``selected``, the validation-selected runs); both written
    atomically. Returns the pairs."""
    standing = standing_table(selected, list(models), alpha)
    text = f"# {TITLE}\n\n{standing_section(standing, models, alpha)}\n"
    write_atomic(md, lambda p: p.write_text(text, encoding="utf-8"))
    write_atomic(csv, lambda p: standing.to_csv(p, index=False))
    return standing
