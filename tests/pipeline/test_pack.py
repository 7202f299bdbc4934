"""Driver packs: record paths -> protocol runs, grouped by store and grid choice, finished ones skipped."""
import subprocess
import sys

import pytest
import yaml

from repo_paths import ROOT
from repset.pipeline import pack
from repset.protocol.jobs import CHOSEN, Run


@pytest.fixture
def config():
    c = yaml.safe_load((ROOT / "config.yaml").read_text())
    c["protocol"]["grid_splits"] = 1
    return c


def test_run_of_path_names_the_protocol_run(config):
    assert pack.run_of_path(config, "results/runs/MUTAG/repset/k10-m20/split3_seed0.json") == Run("MUTAG", "repset", "k10-m20", 3, 0)
    with pytest.raises(ValueError, match="not a run record path"):
        pack.run_of_path(config, "results/runs/MUTAG/repset.json")
    with pytest.raises(ValueError, match="grid point"):
        pack.run_of_path(config, "results/runs/MUTAG/repset/k1-m1/split0_seed0.json")


def test_train_paths_groups_by_store_and_choice_and_skips_finished(config, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    seen = []
    monkeypatch.setattr(pack, "train_pack", lambda store, jobs, choice=None, skip_existing=False:
                        seen.append((store, choice, jobs, skip_existing)) or [])
    paths = [Run("MUTAG", "repset", "k10-m20", 0, 0).path, Run("MUTAG", "repset", CHOSEN, 5, 0).path,
             Run("MUTAG", "deepsets", "default", 1, 0).path, Run("MUTAG", "repset", CHOSEN, 6, 0).path]
    (tmp_path / paths[2]).parent.mkdir(parents=True)
    (tmp_path / paths[2]).write_text("{}")
    pack.train_paths(config, paths)
    assert [(choice, [j["out"] for j in jobs]) for _, choice, jobs, _ in seen] == [
        (None, [paths[0]]), ("results/runs/MUTAG/repset/grid_seed0.json", [paths[1], paths[3]])]
    assert all(jobs[0]["settings"]["layer"] == "repset" for _, _, jobs, _ in seen)
    assert all(skip for *_, skip in seen)                  # a record written meanwhile is not trained again
    seen.clear()
    pack.train_paths(config, paths, force=True)
    assert sum(len(jobs) for _, _, jobs, _ in seen) == 4 and not any(skip for *_, skip in seen)


def test_missing_paths_count_a_reduced_dataset_by_its_own_protocol(config, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config["protocol"]["grid_splits"] = None
    full = pack.missing_paths(config, ["REDDIT-BINARY", "MUTAG"])
    config["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"graph_splits": 10, "grid_splits": 1}}
    reduced = pack.missing_paths(config, ["REDDIT-BINARY", "MUTAG"])
    reddit = [p for p in reduced if "/REDDIT-BINARY/" in p]
    assert len(reddit) == 2 * 21 + 5 * 10                    # repset, approx_repset 12 + 9 chosen; 5 baselines 10
    assert [p for p in reduced if "/MUTAG/" in p] == [p for p in full if "/MUTAG/" in p]
    assert set(p for p in reddit if "split0_" in p) == set(p for p in full if "/REDDIT-BINARY/" in p and "split0_" in p)
    done = Run("REDDIT-BINARY", "repset", CHOSEN, 9, 0).path
    (tmp_path / done).parent.mkdir(parents=True)
    (tmp_path / done).write_text("{}")
    assert done in reddit and done not in pack.missing_paths(config, ["REDDIT-BINARY"])


def test_a_chosen_run_waits_for_its_searched_splits_then_its_grid_choice_is_written(config, tmp_path, monkeypatch, capsys):
    from repset.protocol.jobs import grid_choice_inputs

    monkeypatch.chdir(tmp_path)
    made = []
    monkeypatch.setattr(pack, "grid_choice", lambda inputs, out: made.append((list(inputs), out)) or
                        (tmp_path / out).write_text("{}"))
    chosen = [Run("MUTAG", "repset", CHOSEN, k, 0).path for k in (1, 2)]
    paths = [chosen[0], Run("MUTAG", "deepsets", "default", 1, 0).path, chosen[1]]
    inputs = grid_choice_inputs(config, "MUTAG", "repset", 0)
    assert len(inputs) == 12 and all("split0_" in p for p in inputs)       # the grid on the searched fold 0
    for path in inputs[:-1]:                                                 # fold 0's grid but one point
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("{}")
    assert pack.ready_paths(config, paths) == [paths[1]] and made == []      # the chosen runs wait
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    pack.main(["c.yaml", *paths, "--list"])
    assert capsys.readouterr().out.split() == paths                          # every missing record
    pack.main(["c.yaml", *paths, "--list", "--ready"])
    assert capsys.readouterr().out.split() == [paths[1]] and made == []     # only those that can train now
    pack.main(["c.yaml", chosen[0]])                                         # to train: nothing ready, nothing run
    assert made == [] and not (tmp_path / chosen[0]).exists()
    (tmp_path / inputs[-1]).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / inputs[-1]).write_text("{}")
    assert pack.ready_paths(config, paths) == paths                          # the grid choice is written, once
    assert made == [(inputs, "results/runs/MUTAG/repset/grid_seed0.json")]
    assert pack.ready_paths(config, paths) == paths and len(made) == 1       # and not again


def test_a_repetitions_chosen_runs_wait_for_and_read_that_repetitions_grid_choice(config, tmp_path, monkeypatch):
    """grid_scope: repetition: a chosen run of repetition 1 (split 15) reads grid_seed0_rep1.json, written from fold
    10's grid once those records are there, whatever repetition 0's (fold 0) is doing."""
    from repset.protocol.jobs import grid_choice_inputs

    monkeypatch.chdir(tmp_path)
    config["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"graph_splits": 20, "grid_splits": 1,
                                                           "grid_scope": "repetition"}}
    seen, made = [], []
    monkeypatch.setattr(pack, "train_pack", lambda store, jobs, choice=None, skip_existing=False:
                        seen.append((choice, jobs)) or [])
    monkeypatch.setattr(pack, "grid_choice", lambda inputs, out: made.append((list(inputs), out)) or
                        (tmp_path / out).write_text("{}"))
    chosen = [Run("REDDIT-BINARY", "repset", CHOSEN, k, 0).path for k in (5, 15, 16)]
    pack.train_paths(config, chosen)
    assert [(choice, [j["out"] for j in jobs]) for choice, jobs in seen] == [
        ("results/runs/REDDIT-BINARY/repset/grid_seed0.json", chosen[:1]),
        ("results/runs/REDDIT-BINARY/repset/grid_seed0_rep1.json", chosen[1:])]
    inputs = [grid_choice_inputs(config, "REDDIT-BINARY", "repset", 0, r) for r in (0, 1)]
    assert [{p.split("/")[-1] for p in i} for i in inputs] == [{"split0_seed0.json"}, {"split10_seed0.json"}]
    for path in inputs[1]:                                                   # fold 10's grid only
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("{}")
    assert pack.ready_paths(config, chosen) == chosen[1:]                   # repetition 0's chosen run waits
    assert made == [(inputs[1], "results/runs/REDDIT-BINARY/repset/grid_seed0_rep1.json")]


def test_the_driver_trains_each_repetitions_grid_then_its_chosen_folds(config, tmp_path, monkeypatch):
    """The driver on a tiny store posing as REDDIT-BINARY with two CV repetitions (splits 0-9, 10-11), the grid
    on each repetition's first fold: a first call trains folds 0 and 10's grid (the chosen folds wait); a second
    writes each repetition's grid choice from its own fold and trains fold 1 at repetition 0's choice, fold 11 at
    repetition 1's; the choice files pass the record's checks."""
    import json

    from set_checks import tiny_text_store
    from repset.pipeline.archive import check_record
    from repset.protocol.plan import store_path

    monkeypatch.chdir(tmp_path)
    config = _small(config)
    config["datasets"] = {"text": [], "graph": ["REDDIT-BINARY"]}
    config["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"graph_splits": 12, "grid_splits": 1,
                                                           "grid_scope": "repetition"}}
    tiny_text_store(tmp_path / store_path("REDDIT-BINARY", config), n_splits=12)
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    argv = ["c.yaml", "--dataset", "REDDIT-BINARY", "--splits", "0-1", "--splits", "10-11", "--by-split"]
    runs = "results/runs/REDDIT-BINARY/repset"
    grid = [f"{runs}/{p}/split{k}_seed0.json" for k in (0, 10) for p in ("k2-m2", "k2-m3")]
    choices = {0: f"{runs}/grid_seed0.json", 1: f"{runs}/grid_seed0_rep1.json"}
    pack.main(argv)
    assert sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / runs).rglob("*.json")) == sorted(grid)
    pack.main(argv)
    for repetition, (searched, fold) in enumerate([(0, 1), (10, 11)]):
        choice = json.loads((tmp_path / choices[repetition]).read_text())
        assert choice["records"] == [p for p in grid if f"split{searched}_" in p]
        record = json.loads((tmp_path / f"{runs}/chosen/split{fold}_seed0.json").read_text())
        assert record["grid_choice"] == choice and record["point"] == choice["point"]
        check_record(choices[repetition].removeprefix("results/runs/"), (tmp_path / choices[repetition]).read_bytes())


def _small(config):
    config["protocol"]["text_splits"] = 2
    config["protocol"]["grid_splits"] = None
    config["train"] = {"epochs": 2, "batch_size": 16, "lr": 0.01, "patience": 2}
    config["models"] = {"repset": {"layer": "repset", "options": {}, "grid": {"n_hidden_sets": [2, 3], "hidden_set_size": [2]}}}
    return config


def test_parallel_workers_write_the_records_one_process_writes(config, tmp_path, monkeypatch):
    """Two spawned workers (one thread each) train the missing records; each equals, field by field but
    timings, the record the one-process driver writes; a run that cannot train is reported by path."""
    import json

    from set_checks import tiny_text_store
    from repset.protocol.plan import store_path

    monkeypatch.chdir(tmp_path)
    config = _small(config)
    tiny_text_store(tmp_path / store_path("bbcsport", config))
    paths = pack.missing_paths(config, ["bbcsport"])
    assert len(paths) == 4 and all(p.startswith("results/runs/bbcsport/repset/") for p in paths)
    broken = Run("bbcsport", "repset", "k2-m2", 7, 0).path            # the protocol has splits 0..1
    result = pack.train_parallel(config, paths + [broken], workers=2, chunk=1)
    assert sorted(result["written"]) == sorted(paths) and result["not_started"] == []
    assert [p for p, _ in result["failed"]] == [broken] and "split 7 of bbcsport" in result["failed"][0][1]
    assert pack.missing_paths(config, ["bbcsport"]) == []
    timings = {"train_seconds", "epoch_seconds_median"}
    parallel = {p: json.loads((tmp_path / p).read_text()) for p in paths}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    # the one-process driver, in a fresh process at one thread (as the train rule)
    subprocess.run([sys.executable, "-m", "repset.pipeline.pack", "c.yaml", *paths, "--force"], check=True)
    for path in paths:
        alone = json.loads((tmp_path / path).read_text())
        assert alone["torch_threads"] == parallel[path]["torch_threads"] == 1
        assert {k: v for k, v in parallel[path].items() if k not in timings} == {k: v for k, v in alone.items() if k not in timings}


def test_parallel_deadline_starts_no_new_run(config, tmp_path, monkeypatch):
    from set_checks import tiny_text_store
    from repset.protocol.plan import store_path

    monkeypatch.chdir(tmp_path)
    config = _small(config)
    tiny_text_store(tmp_path / store_path("bbcsport", config))
    paths = pack.missing_paths(config, ["bbcsport"])
    result = pack.train_parallel(config, paths, workers=1, chunk=1, deadline=0)
    assert result["written"] == paths[:1] and result["not_started"] == paths[1:]


def test_next_task_starts_the_first_run_expected_to_finish_by_the_end():
    long_, short = "results/runs/IMDB-BINARY/repset/k50-m100", "results/runs/IMDB-BINARY/repset/k10-m30"
    queue = [[f"{long_}/split{i}_seed0.json"] for i in (3, 4)] + [[f"{short}/split{i}_seed0.json"] for i in (5, 6)]
    longest = {long_: 100.0, short: 4.0}
    assert pack.next_task(queue, 0.0, None, longest) == [f"{long_}/split3_seed0.json"]       # no end: in order
    assert pack.next_task(queue, 50.0, 150.0, longest) == [f"{long_}/split4_seed0.json"]     # 50 + 100 <= 150
    assert pack.next_task(queue, 60.0, 150.0, longest) == [f"{short}/split5_seed0.json"]     # a long one would not fit
    assert pack.next_task(queue, 146.5, 150.0, longest) is None and queue == [[f"{short}/split6_seed0.json"]]
    # a kind not seen yet is expected to fit; a task of two runs needs both
    assert pack.next_task([["results/runs/MUTAG/nn_max/default/split0_seed0.json"]], 149.0, 150.0, longest)
    assert pack.next_task([[f"{short}/split1_seed0.json", f"{short}/split2_seed0.json"]], 143.0, 150.0, longest) is None


def test_expected_seconds_scale_the_budget_by_the_finished_kinds():
    base = "results/runs/PROTEINS/repset"
    seconds = {("PROTEINS", "repset", "k50-m100"): 200.0, ("PROTEINS", "repset", "k50-m50"): 100.0,
               ("PROTEINS", "repset", "k10-m20"): 4.0}
    # a record path's budget seconds, absolute paths too; none for a point the budget lacks or another path
    assert pack.run_seconds(seconds, f"/clone/{base}/k50-m50/split3_seed0.json") == 100.0
    assert pack.run_seconds(seconds, "results/runs/MUTAG/nn_max/default/split0_seed0.json") is None
    assert pack.run_seconds(seconds, "notes.txt") is None
    budget = {f"{base}/{point}": seconds[("PROTEINS", "repset", point)] for point in ("k50-m100", "k50-m50", "k10-m20")}
    assert pack.expected_seconds({}, budget) == {}                           # nothing finished: no estimate yet
    # k50-m100 took 300 s against the budget's 200: a k50-m50 run is expected at 1.5 x 100 s
    expected = pack.expected_seconds({f"{base}/k50-m100": 300.0}, budget)
    assert expected == {f"{base}/k50-m100": 300.0, f"{base}/k50-m50": 150.0, f"{base}/k10-m20": 6.0}
    # the largest ratio among finished kinds; a finished kind keeps its own longest
    two = pack.expected_seconds({f"{base}/k50-m100": 300.0, f"{base}/k10-m20": 8.0}, budget)
    assert two == {f"{base}/k50-m100": 300.0, f"{base}/k50-m50": 200.0, f"{base}/k10-m20": 8.0}
    # held back by its estimate, a shorter run further down starts instead
    queue = [[f"{base}/k50-m50/split7_seed0.json"], [f"{base}/k10-m20/split7_seed0.json"]]
    assert pack.next_task(queue, 100.0, 200.0, expected) == [f"{base}/k10-m20/split7_seed0.json"]


def test_parallel_end_starts_no_run_that_would_pass_it(config, tmp_path, monkeypatch, capsys):
    """One worker: the first run (its kind not seen yet) starts before ``end``; the second, whose kind took
    longer than the time left, does not; with time enough both are written."""
    from set_checks import tiny_text_store
    from repset.protocol.plan import store_path

    monkeypatch.chdir(tmp_path)
    config = _small(config)
    tiny_text_store(tmp_path / store_path("bbcsport", config))
    paths = [p for p in pack.missing_paths(config, ["bbcsport"]) if "/k2-m2/" in p]
    assert len(paths) == 2
    # 1 s: time enough to start the first run; a worker's spawn (torch's import) alone takes longer
    result = pack.train_parallel(config, paths, workers=1, chunk=1, end=1.0)
    assert result["written"] == paths[:1] and result["not_started"] == paths[1:]
    done = pack.train_parallel(config, paths, workers=1, chunk=1, end=3600.0)
    assert done["written"] == paths[1:] and done["not_started"] == []
    # --end-at: a clock time already past starts nothing
    import time

    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    other = [p for p in pack.missing_paths(config, ["bbcsport"])][:1]
    pack.main(["c.yaml", *other, "--workers", "1", "--end-at", str(time.time() - 1)])
    assert "0 written, 0 failed, 1 not started (deadline or end)" in capsys.readouterr().out


def test_longest_first_orders_by_the_budgets_seconds_per_run():
    import pandas as pd

    budget = pd.DataFrame({"dataset": ["IMDB-MULTI"] * 3, "model": ["repset"] * 3,
                           "point": ["k10-m20", "k50-m100", "k20-m20"], "run_seconds": [4.6, 117.0, 11.9]})
    runs = "results/runs/IMDB-MULTI/repset"
    paths = [f"{runs}/k10-m20/split0_seed0.json", "results/runs/MUTAG/nn_max/default/split0_seed0.json",
             f"{runs}/k20-m20/split1_seed0.json", f"{runs}/chosen/split9_seed0.json", f"{runs}/k50-m100/split2_seed0.json"]
    # chosen: the grid's mean, 44.5 s; MUTAG is not in the budget
    assert pack.longest_first(paths, budget) == [paths[4], paths[3], paths[2], paths[0], paths[1]]


def test_select_paths_keeps_models_and_folds_and_orders_by_fold(tmp_path, monkeypatch, capsys):
    runs = "results/runs/PROTEINS"
    paths = [f"{runs}/repset/k10-m20/split61_seed0.json", f"{runs}/nn_max/default/split5_seed0.json",
             f"{runs}/repset/chosen/split7_seed0.json", f"{runs}/approx_repset/k10-m20/split60_seed0.json",
             f"{runs}/repset/k50-m100/split5_seed0.json"]
    assert pack.select_paths(paths, models=["repset"]) == [paths[0], paths[2], paths[4]]
    assert pack.select_paths(paths, splits=[pack.parse_splits("60-99"), pack.parse_splits("7")]) == paths[:1] + paths[2:4]
    assert pack.select_paths(paths, by_split=True) == [paths[1], paths[4], paths[2], paths[3], paths[0]]  # stable
    assert pack.parse_splits(" 7 ") == range(7, 8) and pack.parse_splits("60-99") == range(60, 100)
    for bad in ("99-60", "a-b", "-3"):
        with pytest.raises(ValueError, match=f"--splits {bad!r}: not a split index"):
            pack.parse_splits(bad)
    with pytest.raises(ValueError, match="nope.json: not a run record path"):
        pack.select_paths(["nope.json"], models=["repset"])
    monkeypatch.chdir(tmp_path)                       # none of the records exists here: --list prints them
    (tmp_path / "c.yaml").write_text((ROOT / "config.yaml").read_text())
    pack.main(["c.yaml", *paths, "--list", "--model", "repset", "--splits", "5-7", "--by-split"])
    assert capsys.readouterr().out.split() == [paths[4], paths[2]]
    with pytest.raises(SystemExit):
        pack.main(["c.yaml", *paths, "--list", "--splits", "9-1"])
    assert "--splits '9-1': not a split index or an increasing range" in capsys.readouterr().err


def test_main_needs_records_or_a_dataset(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text((ROOT / "config.yaml").read_text())
    with pytest.raises(SystemExit):
        pack.main([str(tmp_path / "c.yaml")])
    assert "no records to train" in capsys.readouterr().err


def test_overlays_merge_as_snakemakes_configfile():
    config = {"models": {"repset": {"grid": {"n": [1]}}}, "seed": 0}
    pack.merge_config(config, {"models": {"repset_init_small": {"options": {"init": "small"}}}, "seed": 3})
    assert config == {"models": {"repset": {"grid": {"n": [1]}}, "repset_init_small": {"options": {"init": "small"}}},
                      "seed": 3}
    overlay = yaml.safe_load((ROOT / "reproduction" / "init_small.yaml").read_text())
    merged = pack.merge_config(yaml.safe_load((ROOT / "config.yaml").read_text()), overlay)
    assert merged["models"]["repset_init_small"]["grid"] == merged["models"]["repset"]["grid"]
    assert merged["models"]["repset_init_small"]["options"] == {"init": "small"}
    assert pack.run_of_path(merged, "results/runs/MUTAG/repset_init_small/k10-m20/split3_seed0.json").model == "repset_init_small"


def test_load_config_merges_overlays_in_order_and_names_a_bad_file(tmp_path, capsys):
    (tmp_path / "base.yaml").write_text("seed: 0\nmodels: {repset: {grid: {n: [1]}}}\n")
    (tmp_path / "a.yaml").write_text("seed: 1\nmodels: {repset: {options: {init: small}}}\n")
    (tmp_path / "b.yaml").write_text("seed: 2\n")
    (tmp_path / "empty.yaml").write_text("")
    config = pack.load_config(tmp_path / "base.yaml", [tmp_path / "a.yaml", tmp_path / "b.yaml", tmp_path / "empty.yaml"])
    assert config == {"seed": 2, "models": {"repset": {"grid": {"n": [1]}, "options": {"init": "small"}}}}
    with pytest.raises(ValueError, match="missing.yaml: cannot read the config"):
        pack.load_config(tmp_path / "base.yaml", [tmp_path / "missing.yaml"])
    (tmp_path / "bad.yaml").write_text("seed: [1\n")
    with pytest.raises(ValueError, match="bad.yaml: not valid YAML"):
        pack.load_config(tmp_path / "bad.yaml")
    (tmp_path / "list.yaml").write_text("- seed\n")
    with pytest.raises(ValueError, match="list.yaml: a config must be a mapping"):
        pack.load_config(tmp_path / "base.yaml", [tmp_path / "list.yaml"])
    (tmp_path / "latin1.yaml").write_bytes("seed: 1  # caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match="latin1.yaml: not UTF-8 text"):
        pack.load_config(tmp_path / "base.yaml", [tmp_path / "latin1.yaml"])
    with pytest.raises(SystemExit):                       # the CLI names the file too
        pack.main([str(tmp_path / "bad.yaml"), "--list"])
    assert "bad.yaml: not valid YAML" in capsys.readouterr().err


def test_fitting_paths_keep_the_runs_the_time_left_holds_by_the_budget():
    base = "results/runs/REDDIT-BINARY"
    seconds = {("REDDIT-BINARY", "set_transformer", "default"): 1000.0, ("REDDIT-BINARY", "deepsets", "default"): 100.0}
    paths = [f"{base}/set_transformer/default/split3_seed0.json", f"{base}/deepsets/default/split3_seed0.json",
             f"{base}/nn_max/default/split3_seed0.json"]                        # no estimate: kept, as next_task does
    assert pack.fitting_paths(paths, seconds, 1500.0) == paths
    assert pack.fitting_paths(paths, seconds, 1500.0, scale=1.5) == paths      # 1.5 x 1,000 s fits in 1,500
    assert pack.fitting_paths(paths, seconds, 1499.0, scale=1.5) == paths[1:]
    assert pack.fitting_paths(paths, seconds, 149.0, scale=1.5) == paths[2:]

