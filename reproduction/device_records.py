"""Records that came back from a GPU machine's call (``.ci/gpu_session.sh``: ``records.tar.gz`` of its results/runs),
added to a campaign clone's results/runs: only the dataset's records the clone lacks, and only those trained on the
clone's store (``store_meta.sha256``); a record of another store stops the whole collection, before anything is
written, so that no store of other values joins the dataset's records (docs/record.md).

    python reproduction/device_records.py <files_at>/records.tar.gz ../reddit_full --dataset REDDIT-BINARY

Prints how many were added, how many the clone already had (its own are kept), and the models of those added.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tarfile
from collections import Counter
from pathlib import Path, PurePosixPath

from repset.datasets.download import sha256_file
from repset.datasets.store import read_sidecar
from repset.io import atomic_path

__all__ = ["collect", "store_sha256"]

RECORD = re.compile(r"split\d+_seed\d+\.json")


def store_sha256(clone: Path, dataset: str) -> str:
    """The sha256 the clone's store sidecar (data/sets/<dataset>.struc2vec.json) names, checked against the file."""
    store = clone / "data" / "sets" / f"{dataset}.struc2vec.npz"
    named, found = read_sidecar(store)["sha256"], sha256_file(store)
    if found != named:
        raise SystemExit(f"{store}: sha256 {found[:16]}..., its sidecar {store.stem}.json names {named[:16]}...")
    return named


def collect(archive: Path, clone: Path, dataset: str, store: str) -> dict:
    """Add ``archive``'s records of ``dataset`` that ``clone``/results/runs lacks; each must name ``store``.
    Returns ``{"added": [...], "kept": n, "models": {model: n}}``; raises SystemExit naming the first record of
    another store or dataset (nothing written then)."""
    prefix = PurePosixPath("results", "runs", dataset)
    new: dict[Path, bytes] = {}
    kept = 0
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            name = PurePosixPath(member.name)
            if not (member.isfile() and name.is_relative_to(prefix) and RECORD.fullmatch(name.name)
                    and len(name.parts) == 6) or ".." in name.parts:
                continue   # a record is <dataset>/<model>/<point>/split<k>_seed<s>.json; grid choices are the clone's
            target = clone.joinpath(*name.parts)
            if target.exists():
                kept += 1
                continue
            data = tar.extractfile(member).read()
            record = json.loads(data)
            if record.get("dataset") != dataset or record.get("store_meta", {}).get("sha256") != store:
                raise SystemExit(f"{archive}: {member.name} is of dataset {record.get('dataset')} and store "
                                 f"{str(record.get('store_meta', {}).get('sha256'))[:16]}..., not {dataset}'s "
                                 f"{store[:16]}... in {clone}: nothing added")
            new[target] = data
    for target, data in sorted(new.items()):
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(target) as tmp:
            tmp.write_bytes(data)
    models = Counter(p.relative_to(clone.joinpath(*prefix.parts)).parts[0] for p in new)
    return {"added": sorted(str(p.relative_to(clone)) for p in new), "kept": kept, "models": dict(sorted(models.items()))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive", type=Path, help="records.tar.gz from the call's files")
    parser.add_argument("clone", type=Path, help="the campaign clone whose results/runs takes them")
    parser.add_argument("--dataset", required=True)
    args = parser.parse_args(argv)
    if not args.archive.exists():
        raise SystemExit(f"{args.archive}: no such archive")
    out = collect(args.archive, args.clone, args.dataset, store_sha256(args.clone, args.dataset))
    print(f"{len(out['added'])} records added to {args.clone / 'results' / 'runs' / args.dataset} "
          f"({', '.join(f'{m} {n}' for m, n in out['models'].items()) or 'none'}); "
          f"{out['kept']} the clone already had (kept)")


if __name__ == "__main__":
    main(sys.argv[1:])
