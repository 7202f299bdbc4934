"""The quick answer: where a model from outside the package stands on one dataset's protocol against the record, in
one command run from the repository root (docs/your-model.md)::

    python -m repset.pipeline.standing examples/sum_pool.yaml --dataset MUTAG --cores 2
    python -m repset.pipeline.standing examples/sum_pool.yaml --dataset MUTAG --dry-run    # the checks and the plan

Each step runs only once the ones before it pass, and nothing is written before the checks of the first two:

1. the config (``config.yaml`` with the overlays, merged as Snakemake merges them) is checked as the workflow checks
   it: the schema, each new model's layer contract at every grid point, its name against the package's models and
   the record's (``reproduction/runs.csv``); the record must hold every run the config's protocol asks of the
   recorded models on the dataset (``--partial-record``: compare on the splits where it holds all of a model's);
2. Snakemake plans the dataset's store and the new models' runs (a dry run): a planned job of anything else (a
   recorded model's run) stops here;
3. the store is built if it is missing (never rebuilt: a store Snakemake would rebuild stops here), and checked
   against the store sha256 the record's runs name (``record check-store``): another store stops with the reason and
   the ways on (``--other-store``);
4. the record's runs of the dataset missing from ``results/runs`` are restored (``record restore``);
5. Snakemake trains the new models' runs: the workflow's own ``train`` / ``train_pack`` jobs and grid choices;
6. the new models' lines of ``results/tables/standing.md`` for the dataset are printed: rank, mean, and the paired
   tests against each recorded model (:mod:`repset.protocol.standing`'s numbers, :mod:`repset.report.standing`'s
   tables).

``--other-store`` trains the new models on the local store in a folder of their own,
``results/other_store/<dataset>-<sha256[:12]>/`` (links to the repository's files beside its own ``results/``): a
dataset's folder of ``results/runs`` holds one store's records. The output then says that the pairs compare two
stores as well as two models.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from repset.datasets.registry import get_spec
from repset.datasets.store import read_sidecar
from repset.pipeline.archive import RecordError, archive_name, read_runs_csv
from repset.pipeline.config import check_config
from repset.pipeline.pack import load_config
from repset.pipeline.record import check_store_of_table, restore_records
from repset.pipeline.train import read_record
from repset.protocol.jobs import runs
from repset.protocol.plan import datasets, external_models, models_for, store_path
from repset.protocol.selection import records_frame, select
from repset.protocol.standing import ALPHA, TEST, standing_table
from repset.provenance import cpu_description, cpu_kind, openblas_environment
from repset.report.standing import standing_tables

__all__ = ["SNAKEFILE", "SCHEMA", "TRIGGERS", "check_overlay", "record_coverage", "planned_jobs", "split_plan",
           "run_snakemake", "shadow_root", "complete_records", "recorded_store_meta", "quick_standing", "main"]

#: the workflow, relative to the repository root (the working directory)
SNAKEFILE = Path("workflow/Snakefile")
SCHEMA = Path("workflow/schemas/config.schema.yaml")
#: what makes Snakemake redo a job: a changed input, its time or its parameters; not a change of code or software
#: environment, which would rebuild a store the record names by its sha256 (each record names its code)
TRIGGERS = ("--rerun-triggers", "mtime", "input", "params")
#: entries of the repository root that a ``--other-store`` folder does not link: Snakemake's outputs and state
OWN = {"results", "logs", "benchmarks", ".snakemake", ".git"}


def check_overlay(config: dict, dataset: str, record_dir: str | os.PathLike) -> list[str]:
    """The new models of ``config`` (a layer from outside the package) that train on ``dataset``, after the checks the
    workflow runs before any job (the schema, :func:`~repset.pipeline.config.check_config` with the records of
    ``results/runs``); ValueError naming the key where a check fails, where no new model trains on ``dataset``, or
    where one takes the name of a model with runs in ``record_dir/runs.csv``."""
    import jsonschema
    import yaml

    schema = yaml.safe_load(SCHEMA.read_text())
    error = jsonschema.exceptions.best_match(jsonschema.validators.validator_for(schema)(schema).iter_errors(config))
    if error is not None:
        raise ValueError(f"config key '{'.'.join(map(str, error.absolute_path)) or '(top level)'}': {error.message}")
    if dataset not in datasets(config):
        raise ValueError(f"--dataset {dataset}: not among the config's datasets {datasets(config)}")
    check_config(config, schema, records="results/runs")
    new = [m for m in external_models(config) if m in models_for(config, dataset)]
    if not new:
        raise ValueError(f"no model of the config trains on {dataset} with a layer from outside the package "
                         "(models.<name>.layer: 'path/file.py:Name', 'package.module:Name' or an entry point; "
                         f"models.<name>.datasets, where given, must list {dataset})")
    recorded = set(read_runs_csv(record_dir).get("model", []))
    taken = [m for m in new if m in recorded]
    if taken:
        raise ValueError(f"config key 'models.{taken[0]}': {taken[0]!r} names a model of the record "
                         f"({Path(record_dir) / 'runs.csv'}); a layer from outside the package needs a name of its own")
    return new


def _groups(config: dict, dataset: str) -> dict[tuple[str, int, int], list[str]]:
    """The protocol's record paths on ``dataset`` (below ``results/runs/``), in protocol order, by model, split and
    seed: the runs between which validation selects."""
    groups: dict[tuple[str, int, int], list[str]] = {}
    for run in runs(config, [dataset]):
        groups.setdefault((run.model, run.split, run.seed), []).append(run.path)
    return groups


def record_coverage(config: dict, dataset: str, new: Sequence[str],
                    record_dir: str | os.PathLike) -> dict[str, tuple[int, int]]:
    """Per recorded model of the config on ``dataset`` (not in ``new``): the (split, seed) groups of its protocol runs
    whose every run ``record_dir/runs.csv`` holds, and all its groups."""
    table = read_runs_csv(record_dir)
    held = {f"results/runs/{p}" for p in table.get("path", [])}
    found: dict[str, tuple[int, int]] = {}
    for (model, _, _), paths in _groups(config, dataset).items():
        if model not in new:
            whole, total = found.get(model, (0, 0))
            found[model] = (whole + all(p in held for p in paths), total + 1)
    return found


def planned_jobs(dry_run: str) -> list[tuple[str, list[str]]]:
    """The jobs of a Snakemake dry run's output, each as its rule and its output files."""
    jobs, rule = [], None
    for line in dry_run.splitlines():
        if match := re.fullmatch(r"(?:local)?rule (\S+):", line.strip()):
            rule = match[1]
        elif rule is not None and line.strip().startswith("output: "):
            jobs.append((rule, line.strip().removeprefix("output: ").split(", ")))
            rule = None
    return jobs


def split_plan(jobs: Sequence[tuple[str, list[str]]], dataset: str, new: Sequence[str]) -> tuple[list, list]:
    """``jobs`` (:func:`planned_jobs`) as those building stores (every output under ``data/``) and those writing the
    ``new`` models' records and grid choices on ``dataset``; ValueError naming the first job of anything else."""
    ours = re.compile(rf"results/runs/{re.escape(dataset)}/({'|'.join(map(re.escape, new))})/[^/]+(/[^/]+)?\.json")
    store, train = [], []
    for rule, outputs in jobs:
        if all(o.startswith("data/") for o in outputs):
            store.append((rule, outputs))
        elif all(ours.fullmatch(o) for o in outputs):
            train.append((rule, outputs))
        else:
            raise ValueError(f"Snakemake plans rule {rule} for {outputs[0]}{' ...' if len(outputs) > 1 else ''}: not a "
                             f"run of {', '.join(new)} on {dataset} nor its store; nothing was trained (a recorded "
                             "run is never retrained here)")
    return store, train


def run_snakemake(args: Sequence[str], directory: Path | None = None, dry_run: bool = False) -> str:
    """Snakemake on :data:`SNAKEFILE` with ``args`` in ``directory`` (None: here); a dry run's output is returned, a
    real run's is shown as it goes. RuntimeError where it fails."""
    where = ["--snakefile", str(SNAKEFILE.resolve()), "--directory", str(directory)] if directory else []
    command = [sys.executable, "-m", "snakemake", *where, *(["-n"] if dry_run else []), *args]
    done = subprocess.run(command, capture_output=dry_run, text=True)
    if done.returncode:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:]) if dry_run else "(its log is above)"
        raise RuntimeError(f"snakemake {'-n ' if dry_run else ''}failed (exit {done.returncode}); records written so "
                           f"far are kept, a rerun continues:\n{tail}")
    return done.stdout if dry_run else ""


def shadow_root(folder: Path) -> Path:
    """``folder`` as a working directory of the workflow beside this one: a link to each entry of this repository
    root but :data:`OWN`, so that the config, the stores and the layers' files are found at their relative paths,
    while Snakemake writes its records, logs and state into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for entry in sorted(Path(".").iterdir()):
        if entry.name not in OWN and not (folder / entry.name).is_symlink():
            (folder / entry.name).symlink_to(entry.resolve())
    return folder


def complete_records(config: dict, dataset: str,
                     roots: dict[str, Path]) -> tuple[pd.DataFrame, dict[str, tuple[int, int]]]:
    """The records (:func:`~repset.protocol.selection.records_frame`, protocol order, as the ``aggregate`` rule reads
    them) of each model's (split, seed) groups on ``dataset`` whose every run is there, below ``roots[model]`` (else
    here); and per model its groups read and all its groups."""
    read, counts = [], {}
    for (model, _, _), paths in _groups(config, dataset).items():
        files = [roots.get(model, Path(".")) / p for p in paths]
        whole = all(f.is_file() for f in files)
        read += [read_record(f) for f in files] if whole else []
        done, total = counts.get(model, (0, 0))
        counts[model] = (done + whole, total + 1)
    return records_frame(read), counts


def recorded_store_meta(record_dir: str | os.PathLike, dataset: str) -> dict:
    """The build options of the store the record's ``dataset`` runs read (``store_meta.meta`` of the first run record
    in its archive, read as far as that record only); empty where there is none."""
    import json
    import tarfile

    path = Path(record_dir) / "records" / archive_name(dataset)
    if not path.is_file():
        return {}
    with tarfile.open(path, "r:gz") as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".json"):
                record = json.load(tar.extractfile(member))
                if "store_meta" in record:
                    return record["store_meta"].get("meta") or {}
    return {}


def _store_mismatch(store: str, dataset: str, record_dir: str | os.PathLike, new: Sequence[str]) -> str:
    """Why ``store`` is not the record's (its build options, else the CPU's kernels or its inputs), and the ways on."""
    sidecar, graph = read_sidecar(store), get_spec(dataset).kind == "graph"
    table = read_runs_csv(record_dir)
    theirs = sorted(set(table.loc[table["dataset"] == dataset, "storesha256_of"].dropna()))
    ours_meta, their_meta = sidecar.get("meta") or {}, recorded_store_meta(record_dir, dataset)
    options = [f"{key} {ours_meta.get(key)!r} (the record's {their_meta.get(key)!r})"
               for key in sorted(set(ours_meta) | set(their_meta))
               if not key.endswith("sha256") and their_meta and ours_meta.get(key) != their_meta.get(key)]
    cpu = cpu_description()
    if options:
        why = (f"it was built with other options than the record's store: {'; '.join(options)} (the config's "
               "options for it: a profile such as quick.yaml sets its own)")
    elif graph:
        dim = (ours_meta.get("struc2vec") or {}).get("dim")
        why = ("a graph store's struc2vec embedding follows the OpenBLAS kernels that build it, and the record's graph "
               "stores were built with the SkylakeX ones (OPENBLAS_CORETYPE=SkylakeX), which "
               + (f"this CPU ({cpu_kind(cpu)}) cannot run at dim {dim}: its stores differ"
                  if not openblas_environment(cpu, dim) else
                  "this CPU runs: this store was built otherwise (delete it and rerun to rebuild it with them)"))
    else:
        why = "it was built from other inputs than the record's store"
    where = ", built on a CPU that runs those kernels" if graph else ""
    return (f"{store}: sha256 {sidecar.get('sha256')}, but the record's {dataset} runs "
            f"({Path(record_dir) / 'runs.csv'}) were trained on {', '.join(theirs)}: {why} (docs/record.md). "
            f"Nothing was trained or restored. Either bring the record's store here ({store} and its .json{where}), "
            f"or pass --other-store to train {', '.join(new)} on this store apart from the record's runs and pair "
            "them anyway: each difference then holds the two stores' as well as the two models'")


def _arguments(cores: int, overlays: Sequence[str]) -> list[str]:
    """Snakemake's arguments before the targets: cores, :data:`TRIGGERS`, the config overlays."""
    return ["--cores", str(cores), *TRIGGERS, *(["--configfile", *overlays] if overlays else [])]


def _verb(models: Sequence[str]) -> str:
    return "trains" if len(models) == 1 else "train"


def _say(line: str) -> None:
    print(line, flush=True)


def _describe(jobs: Sequence[tuple[str, list[str]]]) -> str:
    rules = sorted({rule for rule, _ in jobs})
    return f"{len(jobs)} job(s), {sum(len(o) for _, o in jobs)} output(s): {', '.join(rules[:4])}" + \
        (f" ... ({len(rules)} rules)" if len(rules) > 4 else "")


def quick_standing(overlays: Sequence[str], dataset: str, record_dir: str = "reproduction", cores: int = 1,
                   dry_run: bool = False, other_store: bool = False,
                   partial_record: bool = False) -> pd.DataFrame | None:
    """Steps 1-6 of this module's docstring; returns the new models' pairs
    (:func:`~repset.protocol.standing.standing_table`), None after a dry run."""
    if not SNAKEFILE.is_file():
        raise ValueError(f"no {SNAKEFILE} in {Path.cwd()}: run this from the repository root")
    dataset = get_spec(dataset).name
    config = load_config("config.yaml", overlays)
    new = check_overlay(config, dataset, record_dir)
    _say(f"checked: config.yaml{''.join(' + ' + o for o in overlays)}; {dataset}: new model(s) "
         + ", ".join(f"{m} ({config['models'][m]['layer']})" for m in new))
    coverage = record_coverage(config, dataset, new, record_dir)
    short = {m: c for m, c in coverage.items() if c[0] < c[1]}
    if short and not partial_record:
        model, (whole, total) = next(iter(short.items()))
        raise ValueError(f"the record ({record_dir}) holds every run of {whole} of the {total} splits the config's "
                         f"protocol asks of {model} on {dataset} ({len(short)} recorded model(s) short): the config's "
                         f"protocol of {dataset} is not the record's (add the overlays the record's report names, "
                         f"{record_dir}/report/REPORT.md: REDDIT-BINARY's is reproduction/reddit_reduced.yaml), or "
                         "pass --partial-record to compare on the splits where the record holds all of a model's runs")
    if not any(whole for whole, _ in coverage.values()):
        raise ValueError(f"the record ({record_dir}) holds no whole split of any model on {dataset} to pair "
                         f"{', '.join(new)} with")
    store = store_path(dataset, config)
    common = _arguments(cores, overlays)
    targets = [p for (model, _, _), paths in _groups(config, dataset).items() if model in new for p in paths]
    building, training = split_plan(planned_jobs(run_snakemake([*common, "--", store, *targets], dry_run=True)),
                                    dataset, new)
    _say(f"plan: {_describe(training)} of {', '.join(new)} on {dataset}; store {store}: "
         + (_describe(building) if building else "up to date"))
    if building and Path(store).exists():
        raise ValueError(f"Snakemake would rebuild {store} ({_describe(building)}): its inputs, or the config's "
                         "options for it, changed since it was built. This command builds a missing store only, and "
                         "checks one that is there against the record's: rebuild it yourself (snakemake --cores "
                         f"{cores} --configfile ... -- {store}) or move it away, then run this again")
    if building and dry_run:
        _say(f"(dry run) the store would be built, then checked against the record's ({record_dir}/runs.csv)")
        return None
    if building:
        run_snakemake([*common, "--", store])
        training = split_plan(planned_jobs(run_snakemake([*common, "--", *targets], dry_run=True)), dataset, new)[1]
    roots: dict[str, Path] = {}
    try:
        _say(check_store_of_table(record_dir, store, dataset))
    except ValueError:
        if not other_store:
            raise ValueError(_store_mismatch(store, dataset, record_dir, new)) from None
        folder = Path("results/other_store") / f"{dataset}-{read_sidecar(store)['sha256'][:12]}"
        roots = {m: folder for m in new}
        if folder.is_dir() or not dry_run:          # a dry run writes no links: the plan here stands for the folder's
            common = _arguments(cores, [str(Path(o).resolve()) for o in overlays])
            training = split_plan(planned_jobs(run_snakemake([*common, "--", *targets], shadow_root(folder),
                                                             dry_run=True)), dataset, new)[1]
        _say(f"--other-store: {', '.join(new)} {_verb(new)} on this store in {folder}: {_describe(training)}")
    missing = [p for p in read_runs_csv(record_dir).query("dataset == @dataset")["path"]
               if not Path("results/runs", p).is_file()]
    if dry_run:
        _say(f"(dry run) {len(missing)} of the record's {dataset} runs would be restored into results/runs, then "
             f"{len(training)} job(s) trained: nothing was written")
        return None
    if missing:
        written = restore_records(record_dir, "results/runs", datasets=[dataset])
        _say(f"restored {len(written)} file(s) of the record's {dataset} runs into results/runs")
    if training:
        run_snakemake([*common, "--", *targets], roots[new[0]] if roots else None)
    return _print_standing(config, dataset, new, roots, store, record_dir, sorted(short))


def _print_standing(config: dict, dataset: str, new: Sequence[str], roots: dict[str, Path], store: str,
                    record_dir: str, short: Sequence[str]) -> pd.DataFrame:
    """Step 6: the pairs of ``new`` against every other model on ``dataset`` and their lines of the tables."""
    frame, counts = complete_records(config, dataset, roots)
    absent = [m for m in new if counts[m][0] < counts[m][1]]
    if absent:
        raise RuntimeError(f"{absent[0]}'s runs on {dataset} are not all there after training")
    standing = standing_table(select(frame), list(new))
    if standing.empty:
        raise ValueError(f"no recorded model has a whole split on {dataset} to pair {', '.join(new)} with")
    spec = get_spec(dataset)
    _say(f"\n## {spec.display}: where {', '.join(new)} {'stands' if len(new) == 1 else 'stand'}\n")
    ranks, pairs = standing_tables(standing)
    _say(ranks + "\n" + pairs)
    _say(f"{'accuracy %, higher' if spec.kind == 'graph' else 'test error %, lower'} is better; splits of each model: "
         + ", ".join(f"{m} {done}/{total}" for m, (done, total) in counts.items())
         + f". diff = yours - theirs; s.e. and p: the {TEST} over each pair's units (its column); a difference "
         + f"counts at p < {ALPHA}, and the rank ties the models whose difference does not.")
    if short:
        _say(f"caveat: the config's protocol of {dataset} is not the record's, which lacks runs it asks of "
             f"{', '.join(short)}: the pairs are on the splits where the record holds all of a model's runs, and "
             f"{', '.join(new)} {_verb(new)} with this config's settings (epochs, grid, ...), the record's models "
             "with theirs")
    if roots:
        _say(f"caveat: {', '.join(new)} trained on {store} as built here (sha256 {read_sidecar(store)['sha256']}), the "
             f"record's models on their own store ({record_dir}/runs.csv): each difference holds the two stores' "
             "as well as the two models'")
    return standing


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].removesuffix("::"))
    parser.add_argument("overlays", nargs="*", metavar="YAML",
                        help="config overlays over config.yaml, in Snakemake's --configfile order (the new model's)")
    parser.add_argument("--dataset", required=True, help="the dataset whose protocol the new models run")
    parser.add_argument("--record", default="reproduction", help="the record folder (default: reproduction)")
    parser.add_argument("--cores", type=int, default=1, help="Snakemake's --cores (default 1)")
    parser.add_argument("--dry-run", action="store_true", help="check and plan only: nothing is written")
    parser.add_argument("--other-store", action="store_true",
                        help="train on a local store other than the record's, apart from it, and pair anyway")
    parser.add_argument("--partial-record", action="store_true",
                        help="compare on the splits where the record holds every run of a model (another protocol)")
    args = parser.parse_args(argv)
    try:
        quick_standing(args.overlays, args.dataset, args.record, args.cores, args.dry_run, args.other_store,
                       args.partial_record)
    except (RecordError, ValueError, RuntimeError, OSError) as err:
        raise SystemExit(f"error: {err}") from None


if __name__ == "__main__":  # pragma: no cover
    main()
