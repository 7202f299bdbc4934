"""What was measured about single cells of the paper-vs-ours comparison, shown on the cell page beside REPORT.md
(:mod:`repset.report.cells`) and told in its findings (:mod:`repset.report.findings`).

The notes are a YAML list kept with the records (``reproduction/cell_notes.yaml``, config key ``cell_notes``),
one entry per measurement of one cell::

    - {table: text, dataset: classic, method: nn_max, lead: "the 50-epoch cap ended training",
       measurement: "epochs_run of its 5 records (reproduction/runs.csv)", result: "18-30 epochs ...",
       finding: rules out}

``method`` and ``dataset`` are the pipeline's names (``nn_max``, ``classic``); ``finding`` says what the
measurement did to the lead: one of :data:`FINDINGS`.
"""
from __future__ import annotations

import os

import pandas as pd
import yaml

from repset.datasets.registry import get_spec
from repset.report.tables import DISPLAY

__all__ = ["FIELDS", "FINDINGS", "read_notes", "displayed"]

FIELDS = ("table", "dataset", "method", "lead", "measurement", "result", "finding")
#: what a measurement did to its lead
FINDINGS = ("explains", "rules out", "partly explains", "inconclusive", "not measurable here")


def read_notes(path: str | os.PathLike) -> pd.DataFrame:
    """The notes of ``path`` as a frame with :data:`FIELDS`; ValueError naming the file and the entry
    for a missing field, an unknown table, dataset or finding."""
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
    return pd.DataFrame([{f: str(e[f]) for f in FIELDS} for e in entries], columns=list(FIELDS))


def displayed(notes: pd.DataFrame | None) -> pd.DataFrame:
    """:func:`read_notes`' frame with the display names of the report (``MUTAG``, ``RepSet``); None: no note."""
    notes = notes if notes is not None else pd.DataFrame(columns=list(FIELDS))
    return notes.assign(dataset=notes["dataset"].map(lambda d: get_spec(d).display),
                        method=notes["method"].map(lambda m: DISPLAY.get(m, m)))
