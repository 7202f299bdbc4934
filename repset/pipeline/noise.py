"""What one run's number means: the spread of a recorded run's test error over seeds and over CPU kernels.

For each dataset and model, the run that validation selected on split 0 of the record is retrained with
seeds 0..S-1 on this machine's kernels, and with its own seed under every torch CPU capability this machine
offers (``ATEN_CPU_CAPABILITY``: DEFAULT, AVX2, AVX512), each in a fresh process
(:func:`repset.pipeline.verify.rerun_record`, on the record's training path and thread count)::

    python -m repset.pipeline.noise reproduction reproduction/noise --dataset bbcsport --dataset twitter \\
        --model repset --model approx_repset --model nn_max --seeds 5
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

__all__ = ["selected_records", "noise_runs", "noise_table"]


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
               out_csv: str | os.PathLike) -> pd.DataFrame:
    """Retrain each selected split-0 run with seeds ``0..seeds-1`` (this machine's kernels) and with its
    seed under each capability this machine offers; one row per run, appended to ``out_csv`` as it finishes
    (rows already there are not rerun)."""
    import torch

    here = torch.backends.cpu.get_cpu_capability()
    offered = CAPABILITIES[: CAPABILITIES.index(here) + 1] if here in CAPABILITIES else (here,)
    out_csv = Path(out_csv)
    done = pd.read_csv(out_csv) if out_csv.exists() else pd.DataFrame()
    rows = done.to_dict("records")
    have = {(r["dataset"], r["model"], r["seed"], r["kernels"]) for r in rows}
    for dataset in datasets:
        for model, record in selected_records(record_dir, dataset, models).items():
            plan = [(s, "default") for s in range(seeds)] + [(record["seed"], c) for c in offered]
            for seed, kernels in plan:
                if (dataset, model, seed, kernels) in have:
                    continue
                env = {} if kernels == "default" else {"ATEN_CPU_CAPABILITY": kernels.lower()}
                rerun = rerun_in_process({**record, "seed": seed}, env)
                rows.append({"dataset": dataset, "model": model, "point": record["point"], "split": record["split"],
                             "seed": seed, "kernels": kernels if kernels != "default" else f"default ({here})",
                             "recorded_test_error": record["test"]["error"], "test_error": rerun["test"]["error"],
                             "val_error": rerun["val"]["error"], "epochs_run": rerun["epochs_run"],
                             "cpu": cpu_kind(rerun["provenance"]["machine"]["cpu"])})
                have.add((dataset, model, seed, kernels))
                with atomic_path(out_csv) as tmp:
                    pd.DataFrame(rows).to_csv(tmp, index=False)
    return pd.DataFrame(rows)


def noise_table(runs: pd.DataFrame, paper_std: dict[tuple[str, str], float] | None = None) -> pd.DataFrame:
    """Per dataset and model (test error in %): the recorded run, the seeds' mean, std (ddof=1) and range,
    the range over kernels at the recorded seed, and the paper's std over splits where given."""
    rows = []
    for (dataset, model), g in runs.groupby(["dataset", "model"], sort=False):
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


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - thin CLI
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record_dir"), parser.add_argument("out_dir")
    parser.add_argument("--dataset", action="append", required=True)
    parser.add_argument("--model", action="append", required=True)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    runs = noise_runs(args.record_dir, args.dataset, args.model, args.seeds, Path(args.out_dir) / "runs.csv")
    from repset.report.reported import reported_results

    paper = reported_results()
    paper = paper[(paper["metric"] == "test_error_pct") & paper["std"].notna()]
    stds = {(d, m): s for d, m, s in zip(paper["dataset"], paper["method"], paper["std"])}
    table = noise_table(runs, stds)
    with atomic_path(Path(args.out_dir) / "noise.md") as tmp:
        tmp.write_text(table.to_markdown(index=False) + "\n")
    print(table.to_markdown(index=False))


if __name__ == "__main__":  # pragma: no cover
    main()
