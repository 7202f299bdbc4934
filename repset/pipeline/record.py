"""The reproduction on record: finished run records kept compactly in the repository, and restored.

``export_records`` packs ``results/runs/<dataset>/...`` into ``<out>/records/<dataset>.tar.gz`` (one
archive per dataset, named in lower case; deterministic: sorted names, no timestamps, so an unchanged
record set gives the same bytes), copies the dataset's WMD result (``results/wmd/<dataset>.json``) to
``<out>/wmd/`` with its checkpoints (``results/wmd/splits/<dataset>/``: finished splits and the blocks of
the split under way, so that a WMD search resumes in another session), writes
``<out>/records/SHA256SUMS`` (``sha256sum -c`` format) and rebuilds
``<out>/runs.csv`` from every archive, one row per run. ``restore_records`` checks the archives against
that manifest, decompresses each whole (gzip's CRC and length), parses every member as a record, and only
then writes anything into a checkout's ``results/runs`` (and ``results/wmd``)::

    python -m repset.pipeline.record export results/runs reproduction
    python -m repset.pipeline.record restore reproduction results/runs [--dataset NAME ...]
    python -m repset.pipeline.record verify reproduction --runs 3 --seed 1    # rerun 3 random jobs, compare
    python -m repset.pipeline.record status reproduction config.yaml          # runs on record vs the protocol
    python -m repset.pipeline.record check-store reproduction data/sets/PROTEINS.struc2vec.npz --dataset PROTEINS
    python -m repset.pipeline.record report reproduction OUT --configfile reproduction/completed.yaml ...   # no stores

Nothing is written from a damaged archive. ``export`` refuses to drop runs an archive already holds
(``allow_drop`` to replace it by fewer), to change one (a local record that differs from the archived one at
its path: ``replace`` to replace it, each replaced record printed with its old and new values) and a record
whose fields contradict each other.
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
from repset.pipeline.archive import (MANIFEST, RECOVER, RecordError, sha256_of, archive_name, changed_fields,
                                     check_record, checked_archives, read_runs_csv)
from repset.pipeline.preflight import check_writable
from repset.pipeline.verify import add_verify_arguments, run_verify
from repset.protocol.selection import records_frame
from repset.provenance import cpu_kind
from repset.wmd.blocks import blocks_folder, read_key, split_key_of, split_record

__all__ = ["export_records", "restore_records", "runs_table", "check_store_of_table", "describe_changes", "RecordError",
           "MANIFEST"]


def _wmd_checkpoints(wmd_dir: Path, dataset: str) -> dict[str, bytes]:
    """The WMD checkpoints of ``dataset`` under ``wmd_dir/splits/<dataset>/`` (``split<k>.json`` of finished
    splits, ``split<k>.blocks/*.npz`` of the one under way; :func:`~repset.pipeline.wmd.wmd_eval`), keyed by
    their path below ``wmd_dir``; each is checked to parse (RecordError naming it)."""
    folder = wmd_dir / "splits" / dataset
    found = {}
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if not path.is_file() or path.suffix not in (".json", ".npz"):     # atomic writes in flight: *.part
            continue
        try:
            data = path.read_bytes()
        except FileNotFoundError:     # its split finished meanwhile and the search removed its blocks
            continue
        try:
            json.loads(data) if path.suffix == ".json" else read_key(data)
        except Exception as err:
            raise RecordError(f"{path}: not a readable WMD checkpoint ({type(err).__name__}: {err}); "
                              "delete it (its search redoes that part)") from None
        found[str(path.relative_to(wmd_dir))] = data
    return found


def restore_records(record_dir: str | os.PathLike, runs_dir: str | os.PathLike, overwrite: bool = False,
                    datasets: list[str] | None = None) -> list[Path]:
    """Unpack ``record_dir/records/*.tar.gz`` (only ``datasets``' archives when given) into ``runs_dir`` and
    each dataset's ``record_dir/wmd/<dataset>.json`` into ``runs_dir/../wmd``, with the WMD checkpoints the
    folder lacks (``wmd/splits/<dataset>/``; a finished split's blocks not). Every archive is checked whole
    before anything is written; existing files are kept unless ``overwrite`` (a differing one raises).
    Returns the files written.

    Snakemake takes a record as done when it is newer than its store: build the stores first."""
    record_dir, runs_dir = Path(record_dir), Path(runs_dir)
    planned: dict[Path, bytes] = {}
    for archive, members in checked_archives(record_dir, datasets).items():
        for name, data in members.items():
            planned[runs_dir / name] = data
        for dataset in {Path(name).parts[0] for name in members}:
            wmd = record_dir / "wmd" / f"{dataset}.json"
            if wmd.exists():
                try:
                    json.loads(wmd.read_bytes())
                except json.JSONDecodeError as err:
                    raise RecordError(f"{wmd}: not valid JSON ({err}); {RECOVER.format(path=wmd, folder=record_dir)}") from None
                planned[runs_dir.parent / "wmd" / wmd.name] = wmd.read_bytes()
            kept = _wmd_checkpoints(record_dir / "wmd", dataset)
            for name, data in kept.items():
                blocks_of = Path(name).parent
                if blocks_of.suffix == ".blocks":      # 'amazon/split2.blocks' -> its split 'amazon/split2.json'
                    split = str(split_record(blocks_of))
                    if split in kept or (runs_dir.parent / "wmd" / split).exists():
                        continue                        # that split is finished: its blocks are read no more
                target = runs_dir.parent / "wmd" / name
                if not target.exists():                 # a local checkpoint is as far along, or further
                    planned[target] = data
    conflicts = [t for t, data in planned.items() if t.exists() and not overwrite and t.read_bytes() != data]
    if conflicts:
        raise RecordError(f"{len(conflicts)} local file(s) differ from the record, e.g. {conflicts[0]}; "
                          "pass overwrite=True (--overwrite) to replace them")
    todo = {t: data for t, data in sorted(planned.items()) if not (t.exists() and t.read_bytes() == data)}
    check_writable(todo, "nothing was restored")
    written = []
    for target, data in todo.items():
        try:
            with atomic_path(target) as tmp:
                tmp.write_bytes(data)
        except OSError as err:
            raise RecordError(f"{target}: cannot write it ({err}); {len(written)} of {len(todo)} files were "
                              "restored, the others not: fix the cause and restore again") from None
        written.append(target)
    return written


def _pack(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for name in sorted(members):
                info = tarfile.TarInfo(name)
                info.size, info.mode, info.mtime = len(members[name]), 0o644, 0
                tar.addfile(info, io.BytesIO(members[name]))
    return buffer.getvalue()


def _local_members(runs_dir: Path, dataset: str) -> dict[str, bytes]:
    """The dataset's record files under ``runs_dir``, each checked (:func:`check_record`, naming the file)."""
    members = {}
    for path in sorted((runs_dir / dataset).rglob("*.json")):
        if path.is_file() and not path.name.startswith("."):
            name, data = str(path.relative_to(runs_dir)), path.read_bytes()
            try:
                check_record(name, data)
            except RecordError as err:
                raise RecordError(f"{runs_dir}/{err}; delete or rerun it before exporting") from None
            members[name] = data
    return members


def _against_archive(members: dict[str, bytes], archived: dict[str, bytes]) -> tuple[dict[str, bytes], dict[str, list]]:
    """``members`` with each record equal to the archived one at its path (as JSON) kept as archived, and
    ``{path: changed_fields}`` of those that differ (:func:`~repset.pipeline.archive.changed_fields`)."""
    kept, changed = dict(members), {}
    for name, data in members.items():
        if name in archived and data != archived[name]:
            fields = changed_fields(json.loads(archived[name]), json.loads(data))
            if fields:
                changed[name] = fields
            else:
                kept[name] = archived[name]
    return kept, changed


def _short(value, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def describe_changes(changed: dict[str, list], values: bool = True, limit: int | None = None) -> str:
    """One line per changed record: its path and each changed field (with ``values``, ``old -> new``)."""
    names = sorted(changed)
    lines = []
    for name in names[:limit]:
        fields = changed[name]
        shown = [f"{k} {_short(a)} -> {_short(b)}" if values else k for k, a, b in fields]
        lines.append(f"  {name}: {'; '.join(shown) if values else ', '.join(shown)}")
    if limit is not None and len(names) > limit:
        lines.append(f"  ... and {len(names) - limit} more")
    return "\n".join(lines)


def export_records(runs_dir: str | os.PathLike, out_dir: str | os.PathLike, allow_drop: bool = False,
                   replace: bool = False) -> pd.DataFrame:
    """Pack every dataset's records under ``runs_dir`` into ``out_dir/records/<dataset>.tar.gz`` (and its WMD
    result), refresh the manifest and rebuild ``out_dir/runs.csv`` from all archives. Every local record is
    checked first (:func:`~repset.pipeline.archive.check_record`: its path, and fields that contradict each
    other); an archive that holds runs ``runs_dir`` lacks is kept (RecordError) unless ``allow_drop``. A local
    record at the path of an archived one is kept as archived where the two are equal; where they differ,
    nothing is written (RecordError listing each such record and the fields that changed) unless ``replace``.
    Archives of datasets absent from ``runs_dir`` are left as they are. Returns the runs table; its
    ``attrs["replaced"]`` maps each replaced record to its changed fields ``(field, old, new)``."""
    runs_dir, out_dir = Path(runs_dir), Path(out_dir)
    if not runs_dir.is_dir():
        raise RecordError(f"{runs_dir}: no such folder of run records")
    existing = checked_archives(out_dir) if list((out_dir / "records").glob("*.tar.gz")) else {}
    existing_by_name = {a.name: m for a, m in existing.items()}
    packed: dict[str, bytes] = {}
    wmd_results: dict[str, bytes] = {}
    checkpoints: dict[str, dict[str, bytes]] = {}
    changed: dict[str, list] = {}
    for dataset in sorted(p.name for p in runs_dir.iterdir() if p.is_dir()):
        checkpoints[dataset] = _wmd_checkpoints(runs_dir.parent / "wmd", dataset)
        old = existing_by_name.get(archive_name(dataset), {})
        members, differ = _against_archive(_local_members(runs_dir, dataset), old)
        changed.update(differ)
        dropped = sorted(set(old) - set(members))
        if dropped and not allow_drop:
            raise RecordError(f"{runs_dir / dataset} lacks {len(dropped)} of the {len(old)} records in "
                              f"{out_dir / 'records' / archive_name(dataset)} (e.g. {dropped[0]}); restore them first "
                              "(`record restore`), or pass allow_drop=True (--allow-drop) to replace the archive by fewer")
        if members:
            packed[archive_name(dataset)] = _pack(members)
        wmd = runs_dir.parent / "wmd" / f"{dataset}.json"       # as restore_records puts it back
        if wmd.exists():
            data = wmd.read_bytes()
            try:
                json.loads(data)
            except json.JSONDecodeError as err:
                raise RecordError(f"{wmd}: not valid JSON ({err}); rerun its job before exporting") from None
            wmd_results[wmd.name] = data
    if changed and not replace:
        raise RecordError(f"{len(changed)} record(s) in {runs_dir} differ from the archived ones at their paths in "
                          f"{out_dir / 'records'}; nothing was written. Restore the archived ones (`record restore "
                          f"--overwrite`), or pass replace=True (--replace) to replace them:\n"
                          + describe_changes(changed, values=False, limit=20))
    for name, data in packed.items():
        for stale in (out_dir / "records").glob("*.tar.gz"):        # an archive named in another case
            if stale.name != name and stale.name.lower() == name:
                stale.unlink()
        with atomic_path(out_dir / "records" / name) as tmp:
            tmp.write_bytes(data)
    for name, data in wmd_results.items():
        with atomic_path(out_dir / "wmd" / name) as tmp:
            tmp.write_bytes(data)
    for dataset, found in checkpoints.items():
        _write_checkpoints(out_dir / "wmd", dataset, found)
    archives = sorted((out_dir / "records").glob("*.tar.gz"))
    with atomic_path(out_dir / "records" / MANIFEST) as tmp:
        tmp.write_text("".join(f"{sha256_of(a.read_bytes())}  {a.name}\n" for a in archives))
    table = runs_table(out_dir)
    with atomic_path(out_dir / "runs.csv") as tmp:
        table.to_csv(tmp, index=False)
    table.attrs["replaced"] = changed
    return table


def _write_checkpoints(wmd_dir: Path, dataset: str, found: dict[str, bytes]) -> None:
    """Copy ``found`` checkpoints of ``dataset`` into ``wmd_dir`` (changed ones only); a split's blocks kept
    there go once the split itself is among them with the same search key (its search removed them).
    Nothing else is deleted: a folder without checkpoints drops none of the record's. (Only datasets with a
    runs folder are exported: a WMD search of a dataset without run records waits for them.)"""
    for name, data in found.items():
        target = wmd_dir / name
        if not (target.exists() and target.read_bytes() == data):
            with atomic_path(target) as tmp:
                tmp.write_bytes(data)
    for done in (Path(n) for n in found if n.endswith(".json")):
        blocks = blocks_folder(wmd_dir / done)
        key = json.loads(found[str(done)]).get("key")
        for block in sorted(blocks.glob("*.npz")) if blocks.is_dir() else []:
            if split_key_of(read_key(block)) == key:      # that split's: it is kept whole now
                block.unlink()
        if blocks.is_dir() and not any(blocks.iterdir()):
            blocks.rmdir()


def runs_table(record_dir: str | os.PathLike) -> pd.DataFrame:
    """One row per run of every archive in ``record_dir`` (checked): the aggregate's columns plus provenance."""
    rows = []
    for archive, members in checked_archives(record_dir).items():
        for name, data in sorted(members.items()):
            record = json.loads(data)
            if "test" not in record:          # a grid choice, not a run
                continue
            prov = record.get("provenance", {})
            rows.append({**records_frame([record]).iloc[0].to_dict(), "best_epoch": record["best_epoch"],
                         "train_seconds": record["train_seconds"],
                         "device": record.get("train_config", {}).get("device"),
                         "cpu": cpu_kind(prov.get("machine", {}).get("cpu")),
                         "cpu_capability": prov.get("machine", {}).get("torch_cpu_capability"),
                         "git_commit": prov.get("git_commit"), "configsha256_of": prov.get("configsha256_of"),
                         "storesha256_of": record.get("store_meta", {}).get("sha256"), "path": name})
    return pd.DataFrame(rows)


def check_store_of_table(record_dir: str | os.PathLike, store: str | os.PathLike, dataset: str) -> str:
    """Check ``store`` against the store sha256 that ``record_dir/runs.csv`` names for ``dataset``'s runs (before a
    campaign adds records to them: :func:`~repset.pipeline.train.check_store_sha`'s ValueError where it differs);
    returns a line saying both (none yet: a dataset without records, or a folder without runs.csv)."""
    from repset.pipeline.train import check_store_sha

    runs = read_runs_csv(record_dir)
    theirs = set(runs.loc[runs["dataset"] == dataset, "storesha256_of"].dropna()) if len(runs) else set()
    table = Path(record_dir) / "runs.csv"
    ours = check_store_sha(store, {sha: f"a {dataset} record listed in {table}" for sha in sorted(theirs)})
    return f"{store}: sha256 {ours}; the records': {sorted(theirs) or 'none yet'}"


def _status(args: argparse.Namespace) -> None:
    from repset.pipeline.pack import load_config
    from repset.pipeline.progress import progress_markdown, progress_table

    try:
        config = load_config(args.config, args.configfile)
    except ValueError as err:
        raise RecordError(str(err)) from None
    unknown = sorted(set(args.model or []) - set(config.get("models", {})) - {"wmd"})
    if unknown:
        raise RecordError(f"--model {', '.join(unknown)}: not a model of the config (models: "
                          f"{', '.join(config.get('models', {}))}, or wmd)")
    budget = pd.concat([pd.read_csv(name) for name in args.budget]) if args.budget else None
    text = progress_markdown(progress_table(args.record_dir, config, args.model, budget))
    if args.out:
        with atomic_path(args.out) as tmp:
            Path(tmp).write_text(text)
    else:
        print(text, end="")


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - thin CLI
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="pack results/runs into a record folder")
    ex.add_argument("runs_dir"), ex.add_argument("out_dir")
    ex.add_argument("--allow-drop", action="store_true", help="replace an archive by fewer records than it holds")
    ex.add_argument("--replace", action="store_true",
                    help="replace archived records that differ from the local ones at their paths (each is printed)")
    re_ = sub.add_parser("restore", help="unpack a record folder into results/runs")
    re_.add_argument("record_dir"), re_.add_argument("runs_dir"), re_.add_argument("--overwrite", action="store_true")
    re_.add_argument("--dataset", action="append", help="restore only this dataset's records (repeatable)")
    add_verify_arguments(sub.add_parser("verify", help="rerun random recorded jobs and compare their records"))
    st = sub.add_parser("status", help="runs on record per dataset and model against the config's protocol")
    st.add_argument("record_dir"), st.add_argument("config")
    st.add_argument("--configfile", action="extend", nargs="+", default=[], metavar="YAML",
                    help="config overlays in order, merged as Snakemake's --configfile merges them (repeatable)")
    st.add_argument("--budget", action="append", default=[], metavar="CSV",
                    help="a budget table (results/budget/*.csv) for the hours the missing runs need (repeatable)")
    st.add_argument("--model", action="append", help="only this model (repeatable; wmd: the WMD splits)")
    st.add_argument("--out", metavar="MD", help="write the tables to this Markdown file (else print them)")
    cs = sub.add_parser("check-store", help="refuse a store other than the one a dataset's records name")
    cs.add_argument("record_dir"), cs.add_argument("store"), cs.add_argument("--dataset", required=True)
    rp = sub.add_parser("report", help="REPORT.md from the restored records without building the stores")
    rp.add_argument("record_dir"), rp.add_argument("out_dir"), rp.add_argument("--config", default="config.yaml")
    rp.add_argument("--configfile", action="extend", nargs="+", default=[], metavar="YAML",
                    help="config overlays in order, as Snakemake's --configfile takes them (repeatable)")
    args = parser.parse_args(argv)
    try:
        if args.command == "report":
            from repset.pipeline.report_record import report_from_record
            print(f"written {report_from_record(args.record_dir, args.out_dir, args.configfile, args.config)}")
        elif args.command == "check-store":
            print(check_store_of_table(args.record_dir, args.store, args.dataset))
        elif args.command == "status":
            _status(args)
        elif args.command == "export":
            table = export_records(args.runs_dir, args.out_dir, args.allow_drop, args.replace)
            if table.attrs["replaced"]:
                print(f"replaced {len(table.attrs['replaced'])} record(s) (field: archived -> local):\n"
                      + describe_changes(table.attrs["replaced"]))
            print(f"{len(table)} runs on record in {args.out_dir}")
        elif args.command == "verify":
            raise SystemExit(run_verify(args))
        else:
            written = restore_records(args.record_dir, args.runs_dir, args.overwrite, args.dataset)
            print(f"{len(written)} files restored (the others were already present and equal)")
    except (RecordError, ValueError, OSError) as err:
        raise SystemExit(f"error: {err}") from None


if __name__ == "__main__":  # pragma: no cover
    main()
