"""What was measured about single cells of the paper-vs-ours comparison, shown on the cell page beside REPORT.md
(:mod:`repset.report.cells`) and told in its findings (:mod:`repset.report.findings`).

The notes are YAML lists kept with the records (``reproduction/cell_notes.yaml``, config key ``cell_notes``: one
file or several, e.g. a hand-written one and one a measurement's script writes), one entry per measurement of one
cell::

    - {table: text, dataset: classic, method: nn_max, lead: "the 50-epoch cap ended training",
       measurement: "epochs_run of its 5 records (reproduction/runs.csv)", result: "18-30 epochs ...",
       finding: rules out}

``method`` and ``dataset`` are the pipeline's names (``nn_max``, ``classic``); ``finding`` says what the
measurement did to the lead: one of :data:`FINDINGS`; :func:`paired_finding` reads it off a paired measurement.
An optional ``store`` (the sha256 of the dataset's store the cell's records read when it was measured, or its first
12+ hex digits) ties a note to that store: once the cell's records read another (a dataset's record rebuilt on
other embeddings), :func:`split_by_store` sets the note aside instead of letting it speak for the new cell.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

import pandas as pd
import yaml

from repset.datasets.registry import get_spec
from repset.report.tables import DISPLAY

__all__ = ["FIELDS", "OPTIONAL", "COLUMNS", "FINDINGS", "read_notes", "paired_finding", "displayed", "cell_stores",
           "split_by_store", "aside_line"]

FIELDS = ("table", "dataset", "method", "lead", "measurement", "result", "finding")
#: the optional fields ("" where a note has none): ``store``, the store the cell was measured on
OPTIONAL = ("store",)
COLUMNS = FIELDS + OPTIONAL
#: what a measurement did to its lead
FINDINGS = ("explains", "rules out", "partly explains", "inconclusive", "not measurable here")


def read_notes(path: str | os.PathLike | Sequence[str | os.PathLike]) -> pd.DataFrame:
    """The notes of ``path`` (one file, or several in order) as a frame with :data:`FIELDS`; ValueError naming the
    file and the entry for a missing field, an unknown table, dataset or finding."""
    if not isinstance(path, (str, os.PathLike)):
        frames = [read_notes(p) for p in path]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(COLUMNS))
    try:
        entries = yaml.safe_load(open(path, encoding="utf-8").read()) or []
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: not valid YAML ({err})") from None
    if not isinstance(entries, list):
        raise ValueError(f"{path}: a YAML list of cell notes expected, got {type(entries).__name__}")
    for i, entry in enumerate(entries):
        where = f"{path}: entry {i}"
        missing = [f for f in FIELDS if not isinstance(entry, dict) or entry.get(f) in (None, "")]
        if missing:
            raise ValueError(f"{where} lacks {', '.join(missing)} (each note has {', '.join(FIELDS)})")
        if entry["table"] not in ("text", "graph"):
            raise ValueError(f"{where}: table must be text or graph, got {entry['table']!r}")
        if entry["method"] not in DISPLAY:
            raise ValueError(f"{where}: unknown method {entry['method']!r}; valid: {', '.join(DISPLAY)}")
        if entry["finding"] not in FINDINGS:
            raise ValueError(f"{where}: finding must be one of {', '.join(FINDINGS)}, got {entry['finding']!r}")
        try:
            get_spec(entry["dataset"])
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        if "store" in entry and not re.fullmatch(r"[0-9a-f]{12,64}", str(entry["store"])):
            raise ValueError(f"{where}: store must be a store's sha256 or its first 12+ hex digits (lower case), "
                             f"got {entry['store']!r}")
    return pd.DataFrame([{f: str(e.get(f, "")) for f in COLUMNS} for e in entries], columns=list(COLUMNS))


def paired_finding(gap: float, diff: float, se: float) -> str:
    """What a paired measurement of one cell did to its lead (one of :data:`FINDINGS`). ``gap``: the paper's number
    minus ours on the measured splits (points; its sign says which way the lead would have to move our cell);
    ``diff``: the lead's paired difference (lead - ours, points) and ``se`` its standard error. With ``toward`` the
    move the gap's way (``diff`` signed by the gap) and the interval ``toward +- 2 se``: the lead is ruled out when
    the whole interval is under half the gap (a move the other way included); it explains the gap when the interval
    is above 0 and the cell it leaves is within 2 s.e. of the paper's (overshooting within noise included), and
    partly explains it when the interval is above 0 but the cell stays farther (short of the paper, or past it);
    otherwise the measurement is inconclusive. A zero gap leaves nothing to explain: ruled out."""
    if not se > 0:
        raise ValueError(f"paired_finding: the standard error must be positive, got {se}")
    if gap == 0:
        return "rules out"
    toward = diff if gap > 0 else -diff
    if toward + 2 * se < abs(gap) / 2:
        return "rules out"
    if toward - 2 * se > 0:
        return "explains" if abs(abs(gap) - toward) <= 2 * se else "partly explains"
    return "inconclusive"


def displayed(notes: pd.DataFrame | None) -> pd.DataFrame:
    """:func:`read_notes`' frame with the display names of the report (``MUTAG``, ``RepSet``); None: no note."""
    notes = notes if notes is not None else pd.DataFrame(columns=list(COLUMNS))
    return notes.assign(dataset=notes["dataset"].map(lambda d: get_spec(d).display),
                        method=notes["method"].map(lambda m: DISPLAY.get(m, m)))


def _canonical(name: str) -> str:
    try:
        return get_spec(name).name
    except ValueError:          # not a dataset of the registry: matched as it is spelt
        return name


def cell_stores(training: pd.DataFrame | None, read: Mapping[str, str] | None = None) -> dict[str, str]:
    """Canonical dataset name -> the sha256 of the store its cells' runs read: the one store ``training`` (the
    aggregate's training paths, column ``store``) names for the dataset, else the store ``read`` (dataset -> sha256 of
    the store the report read) gives; a dataset whose runs name several stores gets none from ``training``."""
    stores = {_canonical(k): v for k, v in (read or {}).items()}
    if training is not None and not training.empty and "store" in training.columns:
        for dataset, frame in training.groupby("dataset"):
            named = set(frame["store"].dropna().astype(str)) - {""}
            if len(named) == 1:
                stores[_canonical(str(dataset))] = named.pop()
    return stores


def split_by_store(notes: pd.DataFrame | None, stores: Mapping[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`read_notes`' frame as (the notes that speak for their cells, those set aside): a note whose ``store``
    is not the start of its dataset's store in ``stores`` (dataset name -> the sha256 of the store its records read:
    :func:`cell_stores`) is set aside; a note without ``store``, or of a dataset ``stores`` lacks, speaks. None: no
    note."""
    notes = notes if notes is not None else pd.DataFrame(columns=list(COLUMNS))
    stores = {_canonical(k): v for k, v in stores.items()}
    current = notes["dataset"].map(lambda d: stores.get(_canonical(d), ""))
    own = notes["store"] if "store" in notes.columns else pd.Series("", index=notes.index)
    other = pd.Series([bool(s and c and not c.startswith(s)) for s, c in zip(own, current)],
                      index=notes.index, dtype=bool)
    return notes[~other], notes[other]


def aside_line(aside: pd.DataFrame) -> list[str]:
    """The report's sentence on the notes :func:`split_by_store` set aside, by dataset and store; none: no line."""
    if aside.empty:
        return []
    parts = [f"{get_spec(dataset).name} {len(group)} (store {store[:12]})"
             for (dataset, store), group in aside.groupby(["dataset", "store"], sort=True)]
    return [f"Notes set aside, measured on another store of their dataset than its records read (`store` in "
            f"`cell_notes`): {', '.join(parts)}.", ""]
