"""Rerun recorded jobs and say, field by field, whether they repeat, and why not.

Each drawn record is retrained from its recorded store, settings, grid choice, thread count and training
path (a training-path key it lacks takes :data:`~repset.provenance.LEGACY_DEFAULTS`, the path of the code
that made it) in a fresh process whose kernels are the recorded ones where this machine has them
(``ATEN_CPU_CAPABILITY`` and the recorded kernel environment; torch reads them at start). A difference is
attributed to what differs between the record's provenance and the rerun's: the kernels (torch's CPU
capability, the CPU vendor and model, which choose MKL's code path too; not the variables verify itself sets),
the code (commit, and the diff of an uncommitted change) or the packages. Where none differs, where only
results differ while the training repeats bit for bit, or where the record's fields contradict each other,
the record differs from what its code computes (:data:`COMPUTES`)::

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

from repset.pipeline.archive import ABSENT, RecordError, changed_fields, checked_archives, contradictions
from repset.protocol.selection import training_path
from repset.provenance import LEGACY_DEFAULTS, cpu_description, cpu_kind

__all__ = ["verify_records", "rerun_record", "rerun_in_process", "kernel_environment", "NOT_COMPARED"]

#: record fields a rerun is not expected to repeat: wall-clock timings and where and when it ran
NOT_COMPARED = {"train_seconds", "epoch_seconds_median", "provenance", "store", "store_meta", "torch_threads"}
#: torch's CPU capabilities, narrowest first; a machine runs its own and every one before it
CAPABILITIES = ("DEFAULT", "AVX2", "AVX512")


def differences(record: dict, rerun: dict) -> tuple[list[str], list[str]]:
    """(``field: recorded -> rerun`` for every compared leaf that differs, dotted names the rerun adds)."""
    changed = changed_fields(record, rerun, NOT_COMPARED)
    return ([f"{k}: {old!r} -> {new!r}" for k, old, new in changed if old is not ABSENT],
            [k for k, old, _ in changed if old is ABSENT])


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


#: the cause where the rerun on the record's code, kernels and packages does not give the recorded result
COMPUTES = "the record differs from what its code computes"


def _cause(record: dict, rerun: dict, differ: list[str], forced: dict[str, str] | None = None) -> str:
    """The likely cause of ``differ``: :data:`COMPUTES` where the record's own fields contradict each other
    (:func:`~repset.pipeline.archive.contradictions`), where nothing differs between the two runs' code,
    kernels and packages, or where only results (``val``, ``test``) differ on the same code and packages
    (the training repeated bit for bit, so no kernel explains them); else what differs between the two runs'
    provenance. ``forced``: the environment verify set for the rerun (:func:`kernel_environment`), which is
    not a kernel difference."""
    if not differ:
        return "-"
    contradicting = contradictions(record)
    if contradicting:
        return f"{COMPUTES}: its fields contradict each other ({'; '.join(contradicting)})"
    code = _code_difference(record.get("provenance", {}), rerun.get("provenance", {}))
    kernels = _kernel_differences(record.get("provenance", {}), rerun.get("provenance", {}), forced or {})
    packages = record.get("provenance", {}).get("packages") != rerun.get("provenance", {}).get("packages")
    causes = ([code] if code else []) + kernels + (["package versions"] if packages else [])
    if not causes:
        return f"{COMPUTES}: same code, kernels and packages"
    if not code and not packages and all(line.split(".", 1)[0] in ("val", "test") for line in differ):
        return (f"{COMPUTES}: its training repeats bit for bit and only its results differ "
                f"(besides: {'; '.join(kernels)})")
    return "; ".join(causes)


def _code_difference(old: dict, new: dict) -> str | None:
    """``code <commit> -> <commit>`` where the two provenances name other code (a commit, or the sha256 of the
    uncommitted diff on it); None where they name the same."""
    def code(provenance: dict) -> tuple[str, str | None]:
        commit = str(provenance.get("git_commit") or "?").removesuffix(" (declared)").removesuffix("+dirty")
        return commit, provenance.get("git_diff_sha256")

    (old_commit, old_diff), (new_commit, new_diff) = code(old), code(new)
    if old_commit != new_commit:
        return f"code {old_commit[:7]} -> {new_commit[:7]}"
    if old_diff != new_diff:
        def diff(sha: str | None) -> str:
            return f"diff {sha[:8]}" if sha else "no recorded diff"

        return f"code {old_commit[:7]} with {diff(old_diff)} -> {diff(new_diff)}"
    return None


def _kernel_differences(old: dict, new: dict, forced: dict[str, str]) -> list[str]:
    """What differs in the two runs' kernels: torch's CPU capability, the BLAS, the kernel environment (less
    the variables verify ``forced`` that the record did not set) and the CPU."""
    om, nm = old.get("machine"), new.get("machine", {})
    if om is None:
        return [f"kernels unknown (record predates them; here {nm.get('torch_cpu_capability')} on "
                f"{nm.get('cpu', {}).get('model')})"]
    causes = []
    old_env = om.get("kernel_env", {})
    new_env = {k: v for k, v in nm.get("kernel_env", {}).items() if k in old_env or k not in forced}
    for key, a, b in (("torch_cpu_capability", om.get("torch_cpu_capability"), nm.get("torch_cpu_capability")),
                      ("blas", om.get("blas"), nm.get("blas")), ("kernel_env", old_env, new_env)):
        if a != b:
            causes.append(f"{key} {a} -> {b}")
    oc, nc = om.get("cpu", {}), nm.get("cpu", {})
    fields = ("vendor", "model", "family", "model_id", "flags")
    if [oc.get(k) for k in fields] != [nc.get(k) for k in fields]:
        causes.append(f"CPU {cpu_kind(oc)} -> {cpu_kind(nc)} (BLAS code path)")
    return causes


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
                     "cause": _cause(record, rerun, differ, env), "fields added by this code": ", ".join(added) or "-",
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
