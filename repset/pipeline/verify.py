"""Rerun recorded jobs and say, field by field, whether they repeat, and why not.

Each drawn record is retrained from its recorded store, settings, grid choice, thread count and training
path (a training-path key it lacks takes :data:`~repset.provenance.LEGACY_DEFAULTS`, the path of the code
that made it) in a fresh process whose kernels are the recorded ones where this machine has them
(``ATEN_CPU_CAPABILITY`` and the recorded kernel environment; torch reads them at start). A difference is
attributed to what differs between the record's provenance and the rerun's: the kernels (torch's CPU
capability, the CPU vendor and model, which choose MKL's code path too), the code (commit) or neither::

    python -m repset.pipeline.record verify reproduction --runs 3 --seed 1 [--dataset twitter] [--this-cpu]

``--this-cpu`` draws among the records trained on this machine's CPU kind only (:func:`~repset.provenance.cpu_kind`:
name, family and model), the kind on which a record is expected to repeat bit for bit.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from repset.pipeline.archive import RecordError, checked_archives
from repset.protocol.selection import training_path
from repset.provenance import LEGACY_DEFAULTS, cpu_description, cpu_kind

__all__ = ["verify_records", "rerun_record", "rerun_in_process", "kernel_environment", "NOT_COMPARED"]

#: record fields a rerun is not expected to repeat: wall-clock timings and where and when it ran
NOT_COMPARED = {"train_seconds", "epoch_seconds_median", "provenance", "store", "store_meta", "torch_threads"}
#: torch's CPU capabilities, narrowest first; a machine runs its own and every one before it
CAPABILITIES = ("DEFAULT", "AVX2", "AVX512")


def _flatten(value, prefix: str = "") -> dict:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out.update(_flatten(item, f"{prefix}{key}."))
        return out
    return {prefix.rstrip("."): value}


def differences(record: dict, rerun: dict) -> tuple[list[str], list[str]]:
    """(``field: recorded -> rerun`` for every compared leaf that differs, dotted names the rerun adds)."""
    old = _flatten({k: v for k, v in record.items() if k not in NOT_COMPARED})
    new = _flatten({k: v for k, v in rerun.items() if k not in NOT_COMPARED})
    differ = [f"{k}: {old[k]!r} -> {new.get(k, '<missing>')!r}" for k in sorted(old) if old[k] != new.get(k, object())]
    return differ, sorted(set(new) - set(old))


def kernel_environment(record: dict, here: str) -> tuple[dict[str, str], str]:
    """(environment to rerun ``record`` on its kernels, a note saying what was forced or why not); ``here``:
    this machine's ``torch.backends.cpu.get_cpu_capability()``."""
    machine = record.get("provenance", {}).get("machine")
    if not machine:
        return {}, "not recorded (record predates it); this machine's default"
    env = dict(machine.get("kernel_env", {}))
    recorded = machine.get("torch_cpu_capability")
    if recorded in CAPABILITIES and here in CAPABILITIES and CAPABILITIES.index(recorded) <= CAPABILITIES.index(here):
        env.setdefault("ATEN_CPU_CAPABILITY", recorded.lower())
        return env, f"{recorded} forced" if recorded != here else recorded
    return env, f"recorded {recorded} not available here ({here})"


def _cause(record: dict, rerun: dict, differ: list[str]) -> str:
    """What differs between the two runs' provenance, as the likely cause of ``differ``."""
    if not differ:
        return "-"
    old, new = record.get("provenance", {}), rerun.get("provenance", {})
    causes = []
    old_commit, new_commit = (str(p.get("git_commit") or "?").removesuffix("+dirty") for p in (old, new))
    if old_commit != new_commit:
        causes.append(f"code {old_commit[:7]} -> {new_commit[:7]}")
    om, nm = old.get("machine"), new.get("machine", {})
    if om is None:
        causes.append(f"kernels unknown (record predates them; here {nm.get('torch_cpu_capability')} on "
                      f"{nm.get('cpu', {}).get('model')})")
    else:
        for key in ("torch_cpu_capability", "blas", "kernel_env"):
            if om.get(key) != nm.get(key):
                causes.append(f"{key} {om.get(key)} -> {nm.get(key)}")
        oc, nc = om.get("cpu", {}), nm.get("cpu", {})
        fields = ("vendor", "model", "family", "model_id", "flags")
        if [oc.get(k) for k in fields] != [nc.get(k) for k in fields]:
            causes.append(f"CPU {cpu_kind(oc)} -> {cpu_kind(nc)} (BLAS code path)")
    if old.get("packages") != new.get("packages"):
        causes.append("package versions")
    return "; ".join(causes) or "unexplained: same code, kernels and packages"


def rerun_record(record: dict, out: str | os.PathLike) -> dict:
    """Retrain ``record``'s job in this process (its store, settings, grid choice and thread count) and
    write the rerun's record to ``out``."""
    from repset.datasets.store import read_sidecar
    from repset.pipeline.train import train_split
    from repset.protocol.jobs import CHOSEN, Run
    from repset.threads import set_threads

    store = record["store"]
    current = read_sidecar(store).get("sha256")
    if current and current != record["store_meta"].get("sha256"):
        raise RecordError(f"{store}: sha256 differs from the one the record was trained on; rebuild it as recorded")
    run = Run(record["dataset"], record["model"], CHOSEN if record["grid_choice"] else record["point"],
              record["split"], record["seed"])
    set_threads(record.get("torch_threads", 1))        # as recorded: float sums depend on the thread count
    with tempfile.TemporaryDirectory() as tmp:
        choice = None
        if record["grid_choice"]:
            choice = Path(tmp) / "grid_choice.json"
            choice.write_text(json.dumps(record["grid_choice"]))
        return train_split(store, run, record["provenance"]["config"], out, choice=choice)


def rerun_in_process(record: dict, env: dict[str, str], name: str = "") -> dict:
    """:func:`rerun_record` in a fresh Python process with ``env`` added to this one's environment (torch
    reads ``ATEN_CPU_CAPABILITY`` when it starts); returns the rerun's record."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "record.json").write_text(json.dumps(record))
        done = subprocess.run([sys.executable, "-m", "repset.pipeline.verify", str(Path(tmp) / "record.json"),
                               str(Path(tmp) / "rerun.json")], env={**os.environ, **env}, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"rerun of {name or record['dataset'] + '/' + record['model']} failed:\n"
                               f"{done.stderr[-3000:]}")
        return json.loads((Path(tmp) / "rerun.json").read_text())


def path_taken(record: dict) -> str:
    """``"distinct elements"`` or ``"padded"`` (``", ragged"`` added): the training path a run took, which on a
    store of values (the graphs') is padded whatever ``distinct_elements`` says
    (:func:`~repset.protocol.selection.training_path`)."""
    path = training_path(record)
    return ("distinct elements" if path.distinct_elements else "padded") + (", ragged" if path.ragged else "")


def verify_records(record_dir: str | os.PathLike, runs: int = 3, seed: int = 0, datasets: list[str] | None = None,
                   device: str = "cpu", names: list[str] | None = None, this_cpu: bool = False) -> pd.DataFrame:
    """Rerun ``runs`` recorded jobs drawn at random (``seed``) among the records of ``datasets`` (default:
    all) made on ``device`` (with ``this_cpu``, on this machine's CPU kind only), or the records ``names`` (archive
    member paths), each in a fresh process on its recorded kernels where this machine has them.
    One row per job: the record, the CPU kind it was trained on, the training path it took and its options, the
    kernels, whether every compared
    field is identical, the fields that differ (recorded -> rerun), the likely cause, the fields this code adds,
    the seconds."""
    import torch

    here = torch.backends.cpu.get_cpu_capability()
    members = []
    for members_of in checked_archives(record_dir, datasets).values():
        for name, data in members_of.items():
            record = json.loads(data)
            if "train_config" in record and record["train_config"].get("device", "cpu") == device:   # runs only
                members.append((name, record))
    where = ""
    if this_cpu:
        kind = cpu_kind(cpu_description())
        if kind is None:
            raise ValueError("--this-cpu: this machine's CPU has no name (/proc/cpuinfo), so no record can be matched to it")
        members = [(n, r) for n, r in members if _trained_on(r) == kind]
        where = f" trained on {kind}"
    if names is not None:
        unknown = sorted(set(names) - {n for n, _ in members})
        if unknown:
            raise ValueError(f"{record_dir}: no {device} run record{where} {', '.join(unknown)}")
        members, runs = [m for m in members if m[0] in names], len(names)
    if len(members) < runs:
        raise ValueError(f"{record_dir}: {len(members)} {device} run records{where}, fewer than the {runs} asked for")
    rows = []
    for name, record in random.Random(seed).sample(sorted(members, key=lambda m: m[0]), runs):
        env, kernels = kernel_environment(record, here)
        rerun = rerun_in_process(record, env, name)
        differ, added = differences(record, rerun)
        options = {k: record["train_config"].get(k, f"{LEGACY_DEFAULTS[k]} (legacy)") for k in LEGACY_DEFAULTS}
        rows.append({"record": name, "trained on": _trained_on(record) or "not named", "path taken": path_taken(record),
                     "training options": ", ".join(f"{k}={v}" for k, v in options.items()),
                     "kernels": kernels, "identical": not differ, "differing fields": "; ".join(differ) or "-",
                     "cause": _cause(record, rerun, differ), "fields added by this code": ", ".join(added) or "-",
                     "seconds": round(rerun["train_seconds"], 1)})
    return pd.DataFrame(rows)


def _trained_on(record: dict) -> str | None:
    return cpu_kind(record.get("provenance", {}).get("machine", {}).get("cpu"))


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record_dir"), parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dataset", action="append", help="draw from this dataset's records only (repeatable)")
    parser.add_argument("--record", action="append", help="rerun this record (archive member path; repeatable)")
    parser.add_argument("--this-cpu", action="store_true", help="draw among the records trained on this CPU kind only")


def run_verify(args: argparse.Namespace) -> int:
    table = verify_records(args.record_dir, args.runs, args.seed, args.dataset, names=args.record, this_cpu=args.this_cpu)
    print(table.to_markdown(index=False))
    return 0 if table["identical"].all() else 1


if __name__ == "__main__":  # pragma: no cover - the rerun of one record, in its own process (see verify_records)
    rerun_record(json.loads(Path(sys.argv[1]).read_text()), sys.argv[2])
