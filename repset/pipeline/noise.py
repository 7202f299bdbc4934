"""What one run's number means: the spread of a recorded run's test error over seeds and over CPU kernels.

For each dataset and model, the run that validation selected on split 0 of the record is retrained with
seeds 0..S-1 on this machine's kernels, and with its own seed under every torch CPU capability this machine
offers (``ATEN_CPU_CAPABILITY``: DEFAULT, AVX2, AVX512), each in a fresh process
(:func:`repset.pipeline.verify.rerun_record`, on the record's training path and thread count)::

    python -m repset.pipeline.noise reproduction reproduction/noise --dataset bbcsport --dataset twitter \\
        --model repset --model approx_repset --model nn_max --seeds 5

With ``--splits N`` the selected runs of splits 0..N-1 are retrained with the same seeds (the kernels on split 0
only), and a second table gives the cell itself over seeds: at each seed, the mean test error over the splits,
as the report's cell averages them (validation's choice of point is kept, not redone per seed)::

    python -m repset.pipeline.noise reproduction/init_small reproduction/init_small/noise --dataset amazon \\
        --model approx_repset_init_small --seeds 5 --splits 5
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pandas as pd

from repset.io import atomic_path
from repset.pipeline.archive import checked_archives
from repset.pipeline.verify import CAPABILITIES, rerun_in_process
from repset.protocol.selection import records_frame, select
from repset.provenance import cpu_kind

__all__ = ["selected_records", "noise_runs", "noise_table", "cell_seed_table"]


def selected_records(record_dir: str | os.PathLike, dataset: str, models: list[str], split: int = 0) -> dict[str, dict]:
    """model -> the record validation selected on ``split`` of ``dataset`` (lowest val error, then loss)."""
    records = [json.loads(data) for members in checked_archives(record_dir, [dataset]).values()
               for name, data in members.items() if "train_config" in json.loads(data)]
    records = [r for r in records if r["split"] == split and r["model"] in models]
    chosen = select(records_frame(records))
    out = {}
    for row in chosen.itertuples():
        out[row.model] = next(r for r in records if r["model"] == row.model and r["point"] == row.point)
    missing = sorted(set(models) - set(out))
    if missing:
        raise ValueError(f"{record_dir}: no split-{split} records of {dataset} for {', '.join(missing)}")
    return out


def noise_runs(record_dir: str | os.PathLike, datasets: list[str], models: list[str], seeds: int,
               out_csv: str | os.PathLike, splits: int = 1) -> pd.DataFrame:
    """Retrain the run validation selected on each of splits ``0..splits-1`` with seeds ``0..seeds-1`` (this
    machine's kernels), and split 0's with its seed under each capability this machine offers; one row per
    run, appended to ``out_csv`` as it finishes (rows already there are not rerun)."""
    import torch

    here = torch.backends.cpu.get_cpu_capability()
    offered = CAPABILITIES[: CAPABILITIES.index(here) + 1] if here in CAPABILITIES else (here,)
    out_csv = Path(out_csv)
    done = pd.read_csv(out_csv) if out_csv.exists() else pd.DataFrame()
    rows = done.to_dict("records")
    have = {(r["dataset"], r["model"], r.get("split", 0), r["seed"], r["kernels"].split(" ")[0]) for r in rows}
    for dataset, split in ((d, k) for d in datasets for k in range(splits)):
        for model, record in selected_records(record_dir, dataset, models, split).items():
            plan = [(s, "default") for s in range(seeds)] + [(record["seed"], c) for c in offered if split == 0]
            for seed, kernels in plan:
                if (dataset, model, split, seed, kernels) in have:
                    continue
                env = {} if kernels == "default" else {"ATEN_CPU_CAPABILITY": kernels.lower()}
                rerun = rerun_in_process({**record, "seed": seed}, env)
                rows.append({"dataset": dataset, "model": model, "point": record["point"], "split": record["split"],
                             "seed": seed, "kernels": kernels if kernels != "default" else f"default ({here})",
                             "recorded_test_error": record["test"]["error"], "test_error": rerun["test"]["error"],
                             "val_error": rerun["val"]["error"], "epochs_run": rerun["epochs_run"],
                             "cpu": cpu_kind(rerun["provenance"]["machine"]["cpu"])})
                have.add((dataset, model, split, seed, kernels))
                with atomic_path(out_csv) as tmp:
                    pd.DataFrame(rows).to_csv(tmp, index=False)
    return pd.DataFrame(rows)


def noise_table(runs: pd.DataFrame, paper_std: dict[tuple[str, str], float] | None = None) -> pd.DataFrame:
    """Per dataset and model (test error in %): the recorded run, the seeds' mean, std (ddof=1) and range,
    the range over kernels at the recorded seed, and the paper's std over splits where given; of split 0's runs."""
    rows = []
    first = runs[runs["split"] == 0] if "split" in runs else runs
    for (dataset, model), g in first.groupby(["dataset", "model"], sort=False):
        seeds = g[g["kernels"].str.startswith("default")]
        kernels = g[~g["kernels"].str.startswith("default")]
        err = seeds["test_error"] * 100
        kerr = kernels["test_error"] * 100
        rows.append({"dataset": dataset, "model": model, "point": g["point"].iloc[0],
                     "recorded": round(g["recorded_test_error"].iloc[0] * 100, 2),
                     "seeds": len(seeds), "seed mean": round(err.mean(), 2), "seed std": round(err.std(ddof=1), 2),
                     "seed range": round(err.max() - err.min(), 2),
                     "kernels": ", ".join(f"{k}: {e:.2f}" for k, e in zip(kernels["kernels"], kerr)),
                     "kernel range": round(kerr.max() - kerr.min(), 2) if len(kerr) else None,
                     "paper std (splits)": (paper_std or {}).get((dataset, model))})
    return pd.DataFrame(rows)


def cell_seed_table(runs: pd.DataFrame, paper_std: dict[tuple[str, str], float] | None = None) -> pd.DataFrame:
    """Per dataset and model with more than one split retrained (test error in %): the recorded cell (the mean of
    the selected runs' recorded errors over those splits: the report's cell where they are all of the protocol's)
    and, at each seed run on every one of them, the cell's mean over them; the seeds' cells' mean, std (ddof=1) and
    range, and the paper's std over splits. ValueError for two rows of one split and seed (two machines' runs)."""
    rows = []
    seeded = runs[runs["kernels"].str.startswith("default")] if "split" in runs else runs.iloc[:0]
    twice = seeded[seeded.duplicated(["dataset", "model", "split", "seed"], keep=False)]
    if len(twice):
        raise ValueError(f"two runs of one split and seed: {twice[['dataset', 'model', 'split', 'seed']].drop_duplicates().to_dict('records')}")
    for (dataset, model), g in seeded.groupby(["dataset", "model"], sort=False):
        splits = sorted(g["split"].unique())
        if len(splits) < 2:
            continue
        per_seed = g.pivot_table(index="seed", columns="split", values="test_error").dropna() * 100
        cells = per_seed.mean(axis=1)
        recorded = g.drop_duplicates("split")["recorded_test_error"].mean() * 100
        rows.append({"dataset": dataset, "model": model, "splits": len(splits), "recorded cell": round(recorded, 2),
                     "seeds": len(cells), "cells": ", ".join(f"{s}: {c:.2f}" for s, c in cells.items()),
                     "cell mean": round(cells.mean(), 2), "cell std": round(cells.std(ddof=1), 2),
                     "cell range": round(cells.max() - cells.min(), 2),
                     "paper std (splits)": (paper_std or {}).get((dataset, model))})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - thin CLI
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record_dir"), parser.add_argument("out_dir")
    parser.add_argument("--dataset", action="append", required=True)
    parser.add_argument("--model", action="append", required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--splits", type=int, default=1, help="the selected runs of splits 0..N-1 (default 1: split 0)")
    args = parser.parse_args(argv)
    runs = noise_runs(args.record_dir, args.dataset, args.model, args.seeds, Path(args.out_dir) / "runs.csv",
                      args.splits)
    from repset.report.reported import reported_results
    from repset.report.tables import VARIANTS

    paper = reported_results()
    paper = paper[(paper["metric"] == "test_error_pct") & paper["std"].notna()]
    stds = {(d, m): s for d, m, s in zip(paper["dataset"], paper["method"], paper["std"])}
    stds |= {(d, variant): stds[(d, base)] for variant, base in VARIANTS.items() for d, m in list(stds) if m == base}
    text = noise_table(runs, stds).to_markdown(index=False) + "\n"
    cells = cell_seed_table(runs, stds)
    if len(cells):
        text += "\nThe cell over seeds (selected runs of every split retrained at each seed):\n\n" + \
            cells.to_markdown(index=False) + "\n"
    with atomic_path(Path(args.out_dir) / "noise.md") as tmp:
        tmp.write_text(text)
    print(text, end="")


if __name__ == "__main__":  # pragma: no cover
    main()
