"""The reproduction on record: finished run records kept compactly in the repository, and restored.

``export_records`` packs ``results/runs/<dataset>/...`` into ``<out>/records/<dataset>.tar.gz`` (one
archive per dataset, deterministic: sorted names, no timestamps, so an unchanged record set gives the
same bytes) and writes ``<out>/runs.csv``, one row per run (the aggregate's columns plus provenance).
``restore_records`` unpacks them into a checkout's ``results/runs``; then ``snakemake --touch`` marks
them up to date and any target continues from them::

    python -m repset.pipeline.record export results/runs reproduction
    python -m repset.pipeline.record restore reproduction results/runs
    python -m repset.pipeline.record verify reproduction --runs 3 --seed 1    # rerun 3 random jobs, compare

``verify_records`` reruns randomly drawn recorded jobs from their stores (which must be built, with the
recorded sha256) and compares every recorded field but the timings and where the record was made.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import tarfile
from pathlib import Path

import pandas as pd

from repset.io import atomic_path
from repset.protocol.selection import records_frame

__all__ = ["export_records", "restore_records", "verify_records", "NOT_COMPARED"]

#: record fields a rerun is not expected to repeat: wall-clock timings and where and when it ran
NOT_COMPARED = {"train_seconds", "epoch_seconds_median", "provenance", "store", "store_meta", "torch_threads"}


def _records(runs_dir: Path, dataset: str) -> list[Path]:
    return sorted(p for p in (runs_dir / dataset).rglob("*.json") if p.is_file() and not p.name.startswith("."))


def export_records(runs_dir: str | os.PathLike, out_dir: str | os.PathLike) -> pd.DataFrame:
    """Pack every dataset's records under ``runs_dir`` into ``out_dir/records/<dataset>.tar.gz`` and write
    ``out_dir/runs.csv`` (run records only; grid choices travel in the archives). Returns the table."""
    runs_dir, out_dir = Path(runs_dir), Path(out_dir)
    rows = []
    for dataset in sorted(p.name for p in runs_dir.iterdir() if p.is_dir()):
        files = _records(runs_dir, dataset)
        buffer = io.BytesIO()
        with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as gz:
            with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
                for path in files:
                    data = path.read_bytes()
                    info = tarfile.TarInfo(str(path.relative_to(runs_dir)))
                    info.size, info.mode, info.mtime = len(data), 0o644, 0
                    tar.addfile(info, io.BytesIO(data))
        with atomic_path(out_dir / "records" / f"{dataset}.tar.gz") as tmp:
            tmp.write_bytes(buffer.getvalue())
        for path in files:
            record = json.loads(path.read_text())
            if "test" not in record:          # a grid choice, not a run
                continue
            row = records_frame([record]).iloc[0].to_dict()
            prov = record.get("provenance", {})
            rows.append({**row, "best_epoch": record["best_epoch"], "train_seconds": record["train_seconds"],
                         "device": record.get("train_config", {}).get("device"),
                         "git_commit": prov.get("git_commit"), "config_sha256": prov.get("config_sha256"),
                         "store_sha256": record.get("store_meta", {}).get("sha256"),
                         "path": str(path.relative_to(runs_dir))})
    table = pd.DataFrame(rows)
    with atomic_path(out_dir / "runs.csv") as tmp:
        table.to_csv(tmp, index=False)
    return table


def restore_records(record_dir: str | os.PathLike, runs_dir: str | os.PathLike, overwrite: bool = False,
                    datasets: list[str] | None = None) -> list[Path]:
    """Unpack ``record_dir/records/*.tar.gz`` (only ``datasets``' archives when given) into ``runs_dir``;
    existing files are kept unless ``overwrite`` (a differing one raises). Returns the files written.

    Snakemake takes a record as done when it is newer than its store: build the stores first."""
    runs_dir, written = Path(runs_dir), []
    for archive in _archives(record_dir, datasets):
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar.getmembers():
                if not member.isfile() or Path(member.name).is_absolute() or ".." in Path(member.name).parts:
                    raise ValueError(f"{archive}: unexpected member {member.name!r}")
                data = tar.extractfile(member).read()
                target = runs_dir / member.name
                if target.exists() and not overwrite:
                    if target.read_bytes() != data:
                        raise ValueError(f"{target} differs from {archive}:{member.name}; pass overwrite=True to replace it")
                    continue
                with atomic_path(target) as tmp:
                    tmp.write_bytes(data)
                written.append(target)
    return written


def _archives(record_dir: str | os.PathLike, datasets: list[str] | None) -> list[Path]:
    """``record_dir/records/<dataset>.tar.gz``, of ``datasets`` only where given, in name order."""
    return [a for a in sorted((Path(record_dir) / "records").glob("*.tar.gz"))
            if datasets is None or a.name.removesuffix(".tar.gz") in datasets]


def _differs(old, new) -> bool:
    """True when ``new`` differs from the recorded ``old``; keys that newer code adds to a dict do not count."""
    if isinstance(old, dict) and isinstance(new, dict):
        return any(key not in new or _differs(value, new[key]) for key, value in old.items())
    return old != new


def _added(old: dict, new: dict, prefix: str = "") -> list[str]:
    """Dotted names of the keys ``new`` has and ``old`` lacks (at any depth)."""
    names = []
    for key, value in new.items():
        if key not in old:
            names.append(prefix + key)
        elif isinstance(value, dict) and isinstance(old[key], dict):
            names += _added(old[key], value, f"{prefix}{key}.")
    return sorted(names)


def verify_records(record_dir: str | os.PathLike, runs: int = 3, seed: int = 0, datasets: list[str] | None = None,
                   device: str = "cpu") -> pd.DataFrame:
    """Rerun ``runs`` recorded jobs drawn at random (``seed``) among the records of ``datasets`` (default:
    all) made on ``device``, each from its recorded store, settings, grid choice and thread count; one row per job:
    its path, whether every compared field is identical, the fields that differ, the fields the rerun
    adds (newer code) and the rerun's seconds."""
    import random
    import tempfile

    from repset.datasets.store import read_sidecar
    from repset.pipeline.train import train_split
    from repset.protocol.jobs import CHOSEN, Run
    from repset.threads import set_threads

    members = []
    for archive in _archives(record_dir, datasets):
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                if member.isfile():
                    record = json.loads(tar.extractfile(member).read())
                    if "train_config" in record and record["train_config"].get("device", "cpu") == device:   # runs only
                        members.append((member.name, record))
    if len(members) < runs:
        raise ValueError(f"{record_dir}: {len(members)} {device} records, fewer than the {runs} asked for")
    rows = []
    for name, record in random.Random(seed).sample(sorted(members, key=lambda m: m[0]), runs):
        store = record["store"]
        current = read_sidecar(store).get("sha256")
        if current and current != record["store_meta"].get("sha256"):
            raise ValueError(f"{store}: sha256 differs from the one {name} was trained on; rebuild it as recorded")
        run = Run(record["dataset"], record["model"], CHOSEN if record["grid_choice"] else record["point"],
                  record["split"], record["seed"])
        set_threads(record.get("torch_threads", 1))        # as recorded: float sums depend on the thread count
        with tempfile.TemporaryDirectory() as tmp:
            choice = None
            if record["grid_choice"]:
                choice = Path(tmp) / "grid_choice.json"
                choice.write_text(json.dumps(record["grid_choice"]))
            rerun = train_split(store, run, record["provenance"]["config"], Path(tmp) / "record.json", choice=choice)
        differ = sorted(k for k in record if k not in NOT_COMPARED and _differs(record[k], rerun.get(k)))
        rows.append({"record": name, "identical": not differ, "differing fields": ", ".join(differ) or "-",
                     "fields added by this code": ", ".join(_added(record, rerun)) or "-",
                     "seconds": round(rerun["train_seconds"], 1)})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - thin CLI
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="pack results/runs into a record folder")
    ex.add_argument("runs_dir"), ex.add_argument("out_dir")
    re = sub.add_parser("restore", help="unpack a record folder into results/runs")
    re.add_argument("record_dir"), re.add_argument("runs_dir"), re.add_argument("--overwrite", action="store_true")
    re.add_argument("--dataset", action="append", help="restore only this dataset's records (repeatable)")
    ve = sub.add_parser("verify", help="rerun random recorded jobs and compare their records")
    ve.add_argument("record_dir"), ve.add_argument("--runs", type=int, default=3), ve.add_argument("--seed", type=int, default=0)
    ve.add_argument("--dataset", action="append", help="draw from this dataset's records only (repeatable)")
    args = parser.parse_args(argv)
    if args.command == "export":
        print(f"{len(export_records(args.runs_dir, args.out_dir))} runs exported to {args.out_dir}")
    elif args.command == "verify":
        table = verify_records(args.record_dir, args.runs, args.seed, args.dataset)
        print(table.to_markdown(index=False))
        raise SystemExit(0 if table["identical"].all() else 1)
    else:
        written = restore_records(args.record_dir, args.runs_dir, args.overwrite, args.dataset)
        print(f"{len(written)} records restored")


if __name__ == "__main__":  # pragma: no cover
    main()
