"""The noise table: one run's test error over seeds and over CPU kernels, beside the paper's std."""
import pandas as pd
import pytest

from repset.pipeline.noise import cell_seed_table, noise_table


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


def test_the_cell_over_seeds_averages_every_split_at_each_seed():
    errors = {0: [0.06, 0.07, 0.05], 1: [0.08, 0.05, 0.06], 2: [0.07, 0.06]}       # split -> error at seeds 0, 1, 2
    runs = pd.DataFrame([{"dataset": "amazon", "model": "approx_repset_init_small", "point": "k10-m20", "split": k,
                          "seed": s, "kernels": "default (AVX512)", "test_error": e, "recorded_test_error": errs[0]}
                         for k, errs in errors.items() for s, e in enumerate(errs)]
                        + [{"dataset": "amazon", "model": "approx_repset_init_small", "point": "k10-m20", "split": 0,
                            "seed": 0, "kernels": "AVX2", "test_error": 0.5, "recorded_test_error": 0.06}])
    row = cell_seed_table(runs, {("amazon", "approx_repset_init_small"): 0.4}).iloc[0]
    # seed 2 did not run on split 2: the cells are seeds 0 and 1, each the mean over the 3 splits
    assert row["splits"] == 3 and row["seeds"] == 2 and row["recorded cell"] == pytest.approx(7.0)
    assert row["cells"] == "0: 7.00, 1: 6.00" and row["cell std"] == pytest.approx(0.71, abs=0.01)
    assert row["cell range"] == pytest.approx(1.0) and row["paper std (splits)"] == 0.4
    assert noise_table(runs).iloc[0]["seeds"] == 3          # the split-0 table keeps split 0's runs only
    assert cell_seed_table(runs[runs["split"] == 0]).empty   # one split: no cell table
    with pytest.raises(ValueError, match="two runs of one split and seed"):
        cell_seed_table(pd.concat([runs, runs.iloc[:1]]))     # another machine's run of split 0, seed 0
    assert cell_seed_table(runs.drop(columns="split")).empty  # a table of split 0 only, from before --splits


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
