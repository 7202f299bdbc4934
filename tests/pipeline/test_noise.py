"""The noise table: one run's test error over seeds and over CPU kernels, beside the paper's std."""
import pandas as pd
import pytest

from repset.pipeline.noise import noise_table


def test_seed_and_kernel_spread_are_told_apart():
    seeds = [{"seed": s, "kernels": "default (AVX512)", "test_error": e} for s, e in enumerate([0.30, 0.32, 0.28])]
    kernels = [{"seed": 0, "kernels": k, "test_error": e} for k, e in (("DEFAULT", 0.34), ("AVX2", 0.30), ("AVX512", 0.30))]
    runs = pd.DataFrame([{"dataset": "twitter", "model": "repset", "point": "k20-m100", "recorded_test_error": 0.30, **r}
                         for r in seeds + kernels])
    row = noise_table(runs, {("twitter", "repset"): 1.1}).iloc[0]
    assert row["recorded"] == 30.0 and row["seeds"] == 3 and row["seed mean"] == pytest.approx(30.0)
    assert row["seed std"] == pytest.approx(2.0) and row["seed range"] == pytest.approx(4.0)
    assert row["kernels"] == "DEFAULT: 34.00, AVX2: 30.00, AVX512: 30.00" and row["kernel range"] == pytest.approx(4.0)
    assert row["paper std (splits)"] == 1.1


def test_the_report_shows_the_noise_table_in_its_setup(tmp_path):
    import copy

    import yaml
    from repo_paths import ROOT

    from repset.report.document import write_report

    config = copy.deepcopy(yaml.safe_load((ROOT / "config.yaml").read_text()))
    empty = pd.DataFrame(columns=["table", "dataset", "method", "mean", "std", "std_over", "source"])
    tables = {"text": pd.DataFrame(), "graph": pd.DataFrame()}
    text = write_report(tmp_path / "REPORT.md", config=config, ours=empty, tables=tables, store_metas={},
                        noise="| a | b |\n|---|---|\n| 1 | 2 |").read_text()
    setup, results = text.split("## Text categorisation")
    assert "## Setup" in setup and "How far apart two honest reruns can be" in setup and "| 1 | 2 |" in setup
