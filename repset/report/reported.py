"""Numbers reported in the RepSet paper (Skianis et al., AISTATS 2020) for the paper-vs-ours comparison.

The data live in the package file ``reported_baselines.yaml`` (copied cell by cell from the paper's LaTeX
tables): the baselines this project does not run (S-WMD; PSCN, Deep GR, EMD, DGCNN, SAEN, RetGK, DiffPool),
the paper's numbers for the baselines it does run (WMD, DeepSets, NN-mean, NN-max, NN-attention,
Set-Transformer) and for RepSet / ApproxRepSet.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

import pandas as pd
import yaml

__all__ = ["reported_results", "load_reported_yaml", "parse_cell", "COLUMNS"]

COLUMNS = ["source", "table", "dataset", "dataset_label", "method", "method_label", "metric", "mean", "std",
           "cell", "role", "computed_here", "citation_key", "citation", "note"]
_CELL = re.compile(r"^\s*(?P<mean>\d+(?:\.\d+)?)\s*(?:\+-\s*(?P<std>\d+(?:\.\d+)?))?\s*$")


def parse_cell(cell: str) -> tuple[float, float | None] | None:
    """``"4.60 +- 0.70"`` -> ``(4.6, 0.7)``, ``"44.50"`` -> ``(44.5, None)``, ``"-"`` -> ``None``."""
    text = str(cell).strip()
    if text == "-":
        return None
    m = _CELL.match(text)
    if m is None:
        raise ValueError(f"cannot parse reported cell {cell!r} (expected 'mean', 'mean +- std' or '-')")
    return float(m["mean"]), (float(m["std"]) if m["std"] is not None else None)


@lru_cache(maxsize=1)
def load_reported_yaml() -> dict:
    """The raw contents of ``reported_baselines.yaml`` (package data)."""
    text = resources.files(__package__).joinpath("reported_baselines.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def reported_results(include_missing: bool = False) -> pd.DataFrame:
    """One row per (table, method, dataset) reported in the paper, with ``source = "reported"``.

    Columns: ``table`` (``text`` / ``graph``), ``dataset`` (registry name), ``dataset_label`` (paper column),
    ``method`` (layer-registry style name, e.g. ``nn_attention``), ``method_label`` (as printed),
    ``metric`` (``test_error_pct`` for text, ``accuracy_pct`` for graphs), ``mean``, ``std`` (None where the
    paper gives none), ``cell`` (the table cell), ``role`` (``reported_only`` / ``baseline`` / ``proposed``),
    ``computed_here`` (``role != "reported_only"``), ``citation_key``, ``citation``, ``note``.
    ``include_missing`` keeps the ``"-"`` cells (mean and std None).
    """
    data = load_reported_yaml()
    cites = data["citations"]
    rows = []
    for table, spec in data["tables"].items():
        datasets, labels = spec["datasets"], spec["columns"]
        for row in spec["rows"]:
            if len(row["cells"]) != len(datasets):
                raise ValueError(f"{table}/{row['method']}: {len(row['cells'])} cells for {len(datasets)} datasets")
            for dataset, label, cell in zip(datasets, labels, row["cells"]):
                parsed = parse_cell(cell)
                if parsed is None and not include_missing:
                    continue
                mean, std = parsed if parsed is not None else (None, None)
                rows.append({
                    "source": "reported", "table": table, "dataset": dataset, "dataset_label": label,
                    "method": row["method"], "method_label": row["label"], "metric": spec["metric"],
                    "mean": mean, "std": std, "cell": str(cell), "role": row["role"],
                    "computed_here": row["role"] != "reported_only", "citation_key": row["cite"],
                    "citation": cites[row["cite"]], "note": row.get("note"),
                })
    df = pd.DataFrame(rows, columns=COLUMNS)
    df["std"] = df["std"].astype(object).where(df["std"].notna(), None)
    return df
