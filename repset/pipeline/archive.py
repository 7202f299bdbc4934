"""Record archives and the records in them, checked: a member must parse as a record whose fields agree with
its path; an archive must match its folder's manifest (``records/SHA256SUMS``), decompress whole (gzip's
CRC and length) and hold only such members. Read by :mod:`.record` (export, restore) and :mod:`.verify`."""
from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import math
import os
import re
import tarfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RecordError", "MANIFEST", "archive_name", "check_record", "grid_repetition_errors", "contradictions",
           "flatten", "changed_fields", "read_manifest", "read_archive", "checked_archives", "read_runs_csv"]

MANIFEST = "SHA256SUMS"
#: the fields every run record has; a grid choice (``<model>/grid_seed<s>.json``) has GRID_FIELDS
RUN_FIELDS = ("dataset", "model", "point", "split", "seed", "val", "test", "train_config", "epochs_run",
              "best_epoch", "train_seconds", "store_meta", "provenance")
GRID_FIELDS = ("dataset", "model", "seed", "point", "per_split")
#: a grid choice's file name: its seed, and its CV repetition where it is not the first
#: (:func:`~repset.protocol.jobs.grid_choice_path`)
GRID_CHOICE = r"grid_seed(\d+)(?:_rep(\d+))?\.json"
RECOVER = ("restore it from git (`git checkout -- {path}`) or re-export it from a complete results/runs "
           "(`python -m repset.pipeline.record export results/runs {folder}`)")


class RecordError(ValueError):
    """A record archive, member or folder that cannot be trusted; the message names it and how to recover."""


def archive_name(dataset: str) -> str:
    """``<dataset>.tar.gz`` in lower case (``MUTAG`` -> ``mutag.tar.gz``)."""
    return f"{dataset.lower()}.tar.gz"


def check_record(name: str, data: bytes) -> dict:
    """Parse member ``name`` and check that it is a record whose fields agree with its path: a run record
    (``<dataset>/<model>/<point>/split<k>_seed<s>.json``), a grid choice (``<dataset>/<model>/grid_seed<s>.json``;
    ``grid_seed<s>_rep<r>.json``: CV repetition r >= 1's with ``grid_scope: repetition``, r within the dataset's
    repetitions and its ``per_split`` folds of that repetition, :func:`grid_repetition_errors`) or an
    initialisation-study record (``<dataset>/<init>/split<k>_seed<s>.json``, with an ``init`` field)."""
    try:
        record = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise RecordError(f"{name}: not valid JSON ({err})") from None
    parts = Path(name).parts
    grid = re.fullmatch(GRID_CHOICE, parts[-1])
    study = not grid and len(parts) == 3
    kind, fields = ("grid choice", GRID_FIELDS) if grid else ("study record", RUN_FIELDS + ("init",)) if study \
        else ("run record", RUN_FIELDS)
    missing = [k for k in fields if not isinstance(record, dict) or k not in record]
    if missing:
        raise RecordError(f"{name}: not a {kind}: lacks {', '.join(missing)}")
    wrong = []
    if parts[0] != record["dataset"] or parts[1] != (record["init"] if study else record["model"]):
        wrong.append(f"dataset/{'init' if study else 'model'} {record['dataset']}/{record['init' if study else 'model']}")
    if grid:
        if int(grid.group(1)) != record["seed"] or len(parts) != 3:
            wrong.append(f"seed {record['seed']}")
        if grid.group(2) is not None:
            wrong += grid_repetition_errors(record["dataset"], int(grid.group(2)), record["per_split"])
    else:
        if len(parts) != (3 if study else 4) or parts[-1] != f"split{record['split']}_seed{record['seed']}.json":
            wrong.append(f"split {record['split']} seed {record['seed']}")
        elif not study and parts[2] != record["point"] and not (parts[2] == "chosen" and record.get("grid_choice")):
            wrong.append(f"point {record['point']}")
        for part in ("val", "test"):
            error = (record[part] or {}).get("error") if part == "test" or record[part] else 0.0
            if not isinstance(error, (int, float)) or not 0.0 <= error <= 1.0:
                wrong.append(f"{part} error {error!r}")
    if wrong:
        raise RecordError(f"{name}: its fields disagree with its path ({'; '.join(wrong)})")
    contradicting = [] if grid else contradictions(record)
    if contradicting:
        raise RecordError(f"{name}: its fields contradict each other ({'; '.join(contradicting)})")
    return record


def grid_repetition_errors(dataset: str, repetition: int, per_split) -> list[str]:
    """What is wrong with a grid choice named for CV ``repetition`` (``grid_seed<s>_rep<r>.json``) of ``dataset``,
    each a line: a dataset without CV repetitions (a text dataset, or one the registry does not know), a repetition
    of 0 (the first's file is ``grid_seed<s>.json``) or past the dataset's repetitions, a searched split of
    ``per_split`` (split -> point) outside that repetition's folds. Empty where it agrees."""
    from repset.datasets.registry import dataset_names, get_spec

    if dataset.lower() not in {n.lower() for n in dataset_names()} or get_spec(dataset).n_repeats <= 1:
        return [f"repetition {repetition} of {dataset}, which has no CV repetitions"]
    spec = get_spec(dataset)
    if not 1 <= repetition < spec.n_repeats:
        first = " (the first repetition's is grid_seed<s>.json)" if repetition == 0 else ""
        return [f"repetition {repetition} of {dataset}, whose repetitions after the first are 1..{spec.n_repeats - 1}"
                + first]
    if not isinstance(per_split, dict):
        return [f"per_split {per_split!r}, not a mapping of split -> point"]
    folds = range(repetition * spec.n_splits, (repetition + 1) * spec.n_splits)
    outside = [k for k in per_split if not (str(k).isdigit() and int(k) in folds)]
    return [f"per_split splits {', '.join(map(str, outside))} outside repetition {repetition}'s folds "
            f"{folds.start}..{folds.stop - 1}"] if outside else []


def contradictions(record: dict) -> list[str]:
    """What a run record says twice and differently, each a line: a part's (``train``, ``val``, ``test``)
    accuracy beside its error (they sum to 1), an error that is no multiple of one over that part's set count
    (``sizes``), a best epoch outside the epochs run or more epochs than ``train_config.epochs``, a seed
    other than ``train_config.seed``, a ``provenance.git_diff`` whose sha256 is not ``git_diff_sha256``.
    Empty for a consistent record; fields a record lacks are not compared."""
    out = []
    for part in ("train", "val", "test"):
        metrics, n = record.get(part), (record.get("sizes") or {}).get(part)
        if not isinstance(metrics, dict) or not _number(metrics.get("error")):
            continue
        error = metrics["error"]
        if _number(metrics.get("accuracy")) and abs(metrics["accuracy"] + error - 1) > 1e-9:
            out.append(f"{part} accuracy {metrics['accuracy']!r} beside {part} error {error!r}")
        if isinstance(n, int) and n > 0 and abs(error * n - round(error * n)) > 1e-6:
            out.append(f"{part} error {error!r} is no multiple of 1/{n} ({n} {part} sets)")
    best, ran, config = record.get("best_epoch"), record.get("epochs_run"), record.get("train_config") or {}
    if isinstance(best, int) and isinstance(ran, int) and not 0 <= best < ran:
        out.append(f"best epoch {best} (from 0) outside the {ran} epochs run")
    if isinstance(ran, int) and isinstance(config.get("epochs"), int) and ran > config["epochs"]:
        out.append(f"{ran} epochs run of train_config.epochs {config['epochs']}")
    if "seed" in config and config["seed"] != record.get("seed"):
        out.append(f"seed {record.get('seed')!r} beside train_config.seed {config['seed']!r}")
    provenance = record.get("provenance") or {}
    if "git_diff_sha256" in provenance and sha256_of(diff_bytes(provenance)) != provenance["git_diff_sha256"]:
        out.append("provenance.git_diff does not have its git_diff_sha256")
    return out


def diff_bytes(provenance: dict) -> bytes:
    """The uncommitted diff a record's provenance holds (``git_diff`` text, or ``git_diff_base64`` where it is
    not UTF-8; empty where neither)."""
    if "git_diff_base64" in provenance:
        return base64.b64decode(provenance["git_diff_base64"])
    return str(provenance.get("git_diff", "")).encode("utf-8")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def flatten(value, prefix: str = "") -> dict:
    """A nested record as ``{dotted key: leaf}`` (``{"test": {"error": 0.3}}`` -> ``{"test.error": 0.3}``)."""
    if isinstance(value, dict) and (value or not prefix):
        out = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}{key}."))
        return out
    return {prefix.rstrip("."): value}


#: what :func:`changed_fields` says of a leaf one side lacks
ABSENT = "<missing>"


def changed_fields(old: dict, new: dict, skip: frozenset[str] | set[str] = frozenset()
                   ) -> list[tuple[str, object, object]]:
    """``(dotted key, old value, new value)`` of every leaf that differs between two records (:data:`ABSENT`
    for a side that lacks it), in key order; top-level fields in ``skip`` are not compared."""
    a = flatten({k: v for k, v in old.items() if k not in skip})
    b = flatten({k: v for k, v in new.items() if k not in skip})
    pairs = ((k, a.get(k, ABSENT), b.get(k, ABSENT)) for k in sorted(set(a) | set(b)))
    return [(k, x, y) for k, x, y in pairs if x != y]


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_manifest(record_dir: Path) -> dict[str, str]:
    """``records/SHA256SUMS`` as {archive name: sha256} ({} when there is none)."""
    path = record_dir / "records" / MANIFEST
    if not path.exists():
        return {}
    out = {}
    for i, line in enumerate(path.read_text().splitlines(), 1):
        match = re.fullmatch(r"([0-9a-f]{64})\s+\*?(\S+)", line.strip())
        if not match:
            raise RecordError(f"{path}:{i}: not a sha256sum line: {line!r}")
        out[match.group(2)] = match.group(1)
    return out


def read_archive(archive: Path, expected_sha256: str | None = None) -> dict[str, bytes]:
    """Every member of ``archive`` as {name: bytes}, after checking the whole file: its sha256 against the
    manifest's, gzip's CRC and length, the tar structure, and each member as a record (:func:`check_record`).
    Raises :class:`RecordError` naming the archive, what is wrong and how to recover."""
    folder = archive.parent.parent
    recover = RECOVER.format(path=archive, folder=folder)
    raw = archive.read_bytes()
    if expected_sha256 is not None and sha256_of(raw) != expected_sha256:
        raise RecordError(f"{archive}: sha256 differs from {folder / 'records' / MANIFEST} (changed or damaged); {recover}")
    try:
        payload = gzip.decompress(raw)             # the whole stream: CRC and length are checked at its end
        members = {}
        with tarfile.open(fileobj=io.BytesIO(payload), mode="r:") as tar:
            for member in tar.getmembers():
                path = Path(member.name)
                if not member.isfile() or path.is_absolute() or ".." in path.parts:
                    raise RecordError(f"{archive}: unexpected member {member.name!r}; {recover}")
                members[member.name] = tar.extractfile(member).read()
    except (OSError, EOFError, zlib.error, tarfile.TarError) as err:
        raise RecordError(f"{archive}: damaged archive ({type(err).__name__}: {err}); {recover}") from None
    for name, data in members.items():
        try:
            check_record(name, data)
        except RecordError as err:
            raise RecordError(f"{archive}: member {err}; {recover}") from None
    return members


def _archives(record_dir: Path, datasets: list[str] | None) -> list[Path]:
    """``record_dir/records/*.tar.gz`` (of ``datasets`` only where given, matched case-insensitively), in
    name order; RecordError when there are none or a named dataset has none."""
    found = sorted((record_dir / "records").glob("*.tar.gz"))
    if not found:
        raise RecordError(f"{record_dir}: no records/*.tar.gz here; pass the record folder (e.g. reproduction), "
                          "not results/runs or records/")
    if datasets is None:
        return found
    by_name = {a.name.removesuffix(".tar.gz").lower(): a for a in found}
    unknown = [d for d in datasets if d.lower() not in by_name]
    if unknown:
        raise RecordError(f"{record_dir}: no archive for dataset(s) {', '.join(unknown)}; archives: {', '.join(sorted(by_name))}")
    return [by_name[d.lower()] for d in dict.fromkeys(datasets)]


def checked_archives(record_dir: str | os.PathLike, datasets: list[str] | None = None) -> dict[Path, dict[str, bytes]]:
    """Every selected archive read and checked (:func:`read_archive`) against the folder's manifest, which
    must list each of them."""
    record_dir = Path(record_dir)
    archives = _archives(record_dir, datasets)
    manifest = read_manifest(record_dir)
    if not manifest:
        raise RecordError(f"{record_dir / 'records' / MANIFEST} is missing: archives cannot be checked; re-export "
                          "the folder or write it with `sha256sum *.tar.gz > SHA256SUMS` from archives you trust")
    unlisted = [a.name for a in archives if a.name not in manifest]
    if unlisted:
        raise RecordError(f"{record_dir / 'records' / MANIFEST} does not list {', '.join(unlisted)}")
    return {a: read_archive(a, manifest[a.name]) for a in archives}


def read_runs_csv(record_dir: str | os.PathLike) -> pd.DataFrame:
    """``record_dir/runs.csv`` as :func:`~repset.pipeline.record.runs_table` wrote it (``record export``); an empty
    frame where the folder has none or no run is on record (export writes a bare newline then)."""
    import pandas as pd

    table = Path(record_dir) / "runs.csv"
    return pd.read_csv(table) if table.is_file() and table.stat().st_size > 1 else pd.DataFrame()
