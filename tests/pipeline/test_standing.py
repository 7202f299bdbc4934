"""The quick answer (repset.pipeline.standing) on a small record of MUTAG (two recorded models, 20 folds): the checks
that refuse an overlay before anything runs, the plan of only the new model's jobs, the store check, and the printed
lines, which are those of the workflow's results/tables/standing.md."""
import json
import re
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from repo_paths import ROOT

from repset.datasets.store import STORE_FORMAT
from repset.pipeline import standing
from repset.pipeline.pack import load_config
from repset.pipeline.record import export_records, restore_records
from repset.pipeline.train import aggregate_runs
from repset.protocol.jobs import runs
from repset.report.standing import write_standing

SHA = "ab" * 32
SPLITS = 20                                   # two CV repetitions: the test runs over their means
RECORDED = ("repset", "deepsets", "nn_mean")
STORE = "data/sets/MUTAG.struc2vec.npz"
MADE = {"struc2vec": {"layers": 6}}           # how the store was built (its sidecar's meta, in every record)
RUN = re.compile(r"results/runs/(?P<d>[^/]+)/(?P<m>[^/]+)/(?P<p>[^/]+)/split(?P<s>\d+)_seed0\.json")


def accuracy(model: str, point: str, split: int) -> float:
    """A test accuracy per run, on a grid of 1/100: sum_pool's two widths about DeepSets' level, RepSet 5 points
    above it, NN-mean 10 below."""
    if model == "sum_pool":
        return (79 + 2 * (point == "hidden64") + (split * split) % 7) / 100
    return ({"repset": 85, "deepsets": 80, "nn_mean": 70, "mean_pool": 75}[model] + (split * 7) % 5) / 100


def record(path: str, store_sha: str = SHA) -> dict:
    m = RUN.fullmatch(path)
    model, point, split = m["m"], m["p"], int(m["s"])
    acc = accuracy(model, point, split)
    val = 0.1 + 0.05 * ((split + (point == "hidden64")) % 2)       # the two widths take turns on validation
    return {"dataset": m["d"], "model": model, "point": point, "split": split, "seed": 0, "train_config": {"seed": 0},
            "layer": "examples/sum_pool.py:SumPool" if model == "sum_pool" else model,
            "val": {"error": val, "loss": val}, "test": {"error": 1 - acc, "accuracy": acc},
            "epoch_seconds_median": 0.1, "epochs_run": 5, "best_epoch": 2, "train_seconds": 0.5, "grid_choice": None,
            "store_meta": {"sha256": store_sha, "meta": MADE}, "provenance": {"git_commit": "c0ffee"}}


def write(root: Path, path: str, store_sha: str = SHA) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(json.dumps(record(path, store_sha)))


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository root: the workflow, the examples, a config of MUTAG's first 20 folds with three models (one grid
    point each), a store (its sidecar names SHA), and a record of those models' 60 runs (and 2 of a model the config
    lacks)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "workflow").symlink_to(ROOT / "workflow")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    grids = {"repset": {"n_hidden_sets": [20], "hidden_set_size": [10]}}         # one point each
    config.update(models={m: {**config["models"][m], "grid": grids.get(m, {})} for m in RECORDED},
                  datasets={"text": [], "graph": ["MUTAG"]}, wmd={"datasets": []}, sensitivity=[], init_study=None)
    config["protocol"]["graph_splits"] = SPLITS
    config["train_packs"]["datasets"] = ["MUTAG"]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    for path in ["data/raw/MUTAG.sources.json", "data/embed/MUTAG.struc2vec.npy"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    write_store(tmp_path)
    stage = tmp_path / "stage" / "results" / "runs"
    for run in runs(config):
        write(stage.parent.parent, run.path)
    for split in (0, 1):
        write(stage.parent.parent, f"results/runs/MUTAG/mean_pool/default/split{split}_seed0.json")
    export_records(stage, tmp_path / "reproduction")
    return tmp_path


def write_store(root: Path, sha: str = SHA, meta: dict = MADE) -> None:
    (root / STORE).parent.mkdir(parents=True, exist_ok=True)
    (root / STORE).write_text("")
    (root / STORE).with_suffix(".json").write_text(json.dumps({"format": STORE_FORMAT, "sha256": sha, "meta": meta}))


class Calls(list):
    """Snakemake's calls, each (arguments, directory, dry run); ``rebuild``: its plans rebuild the store."""
    rebuild = False


@pytest.fixture
def calls(monkeypatch):
    """Snakemake replaced by a stand-in: a dry run lists one job per missing target (the store's where missing or
    ``rebuild``), a real run writes them (below its directory), as the workflow's jobs would; every call is kept."""
    made = Calls()

    def fake(args, directory=None, dry_run=False):
        made.append((list(args), directory, dry_run))
        base = Path(directory or ".")
        todo = [t for t in args[args.index("--") + 1:] if not (base / t).exists() or (t == STORE and made.rebuild)]
        if dry_run:
            return "".join(f"rule {'graph_store' if t == STORE else 'train_pack_MUTAG_sum_pool_seed0_grid0'}:\n"
                           f"    output: {t}\n" for t in todo)
        for target in todo:
            write_store(base) if target == STORE else write(base, target, SHA if directory is None else "cd" * 32)
        return ""

    monkeypatch.setattr(standing, "run_snakemake", fake)
    return made


def written(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in (root / "results").rglob("*") if p.is_file()} if root.exists() else set()


BROKEN = """import torch


class NoWidth(torch.nn.Module):
    def __init__(self, in_dim):
        super().__init__()

    def forward(self, V, lengths):
        return V.sum(1)
"""


@pytest.mark.parametrize("overlay, argv, message", [
    ({"mine": "examples/sum_pool.py:SumPol"}, [], "config key 'models.mine.layer': layer 'examples/sum_pool.py:SumPol':"
                                                  " examples/sum_pool.py has no attribute 'SumPol'"),
    ({"mine": "examples/broken.py:NoWidth"}, [], "config key 'models.mine.layer': layer 'examples/broken.py:NoWidth': "
                                                 "the module needs an attribute out_dim"),
    ({"deepsets": "examples/sum_pool.py:SumPool"}, [], "config key 'models.deepsets': 'deepsets' is a model of the "
                                                       "package and of the record"),
    ({"mean_pool": "examples/sum_pool.py:SumPool"}, [], "config key 'models.mean_pool': 'mean_pool' names a model of "
                                                        "the record"),
    ({"mine": "examples/sum_pool.py:SumPool"}, ["--dataset", "PROTEINS"], "--dataset PROTEINS: not among the "
                                                                          "config's datasets ['MUTAG']"),
    ({}, [], "no model of the config trains on MUTAG with a layer from outside the package"),
])
def test_a_bad_overlay_is_refused_before_anything_runs(repo, calls, overlay, argv, message):
    (repo / "examples" / "broken.py").write_text(BROKEN)
    models = {name: {"layer": layer, "options": {}, "grid": {}} for name, layer in overlay.items()}
    (repo / "mine.yaml").write_text(yaml.safe_dump({"models": models} if models else {}))
    with pytest.raises(SystemExit) as stop:
        standing.main(["mine.yaml", "--dataset", "MUTAG", *argv])
    assert str(stop.value).startswith("error: ") and message in str(stop.value)
    assert calls == [] and written(repo) == set()          # no Snakemake, nothing restored


def test_a_protocol_the_record_lacks_is_refused_unless_partial(repo, calls, capsys):
    (repo / "more.yaml").write_text(yaml.safe_dump({"protocol": {"graph_splits": 30}}))
    with pytest.raises(SystemExit, match=r"holds every run of 20 of the 30 splits .* deepsets on MUTAG .*"
                                         r"--partial-record"):
        standing.main(["examples/sum_pool.yaml", "more.yaml", "--dataset", "MUTAG"])
    assert calls == []
    pairs = standing.quick_standing(["examples/sum_pool.yaml", "more.yaml"], "MUTAG", partial_record=True)
    assert set(pairs["splits"]) == {20}
    out = capsys.readouterr().out
    assert "deepsets 20/30, nn_mean 20/30, repset 20/30, sum_pool 30/30" in out
    assert "caveat: the config's protocol of MUTAG is not the record's, which lacks runs it asks of deepsets, " \
           "nn_mean, repset" in out


def test_the_printed_lines_are_those_of_the_workflows_standing_table(repo, calls, capsys):
    standing.main(["examples/sum_pool.yaml", "--dataset", "MUTAG", "--cores", "2"])
    out = capsys.readouterr().out
    config = load_config("config.yaml", ["examples/sum_pool.yaml"])
    ours = [r.path for r in runs(config) if r.model == "sum_pool"]
    # one dry run (the store and sum_pool's 40 runs), then one run of those 40 runs; the record restored
    assert [(a[a.index("--") + 1:], d, dry) for a, d, dry in calls] == [([STORE, *ours], None, True),
                                                                         (ours, None, False)]
    assert calls[1][0][:2] == ["--cores", "2"] and "--configfile" in calls[1][0]
    assert "restored 62 file(s) of the record's MUTAG runs" in out and f"sha256 {SHA}; the records': ['{SHA}']" in out
    # the workflow's way: the aggregate rule's selected.csv, the standing rule's page
    paths = [r.path for r in runs(config)]
    aggregate_runs(paths, repo / "runs.csv", repo / "selected.csv", repo / "summary.csv")
    pairs = write_standing(pd.read_csv(repo / "selected.csv"), ["sum_pool"], repo / "standing.md", repo / "st.csv")
    page = (repo / "standing.md").read_text()
    ranks, rows = page.split("### Rank per dataset\n\n")[1].split("### Paired differences\n\n")
    assert ranks.strip() in out and rows.strip() in out
    # sum_pool: level with DeepSets, ahead of NN-mean, behind RepSet (p over the 2 repetitions' means)
    assert "| MUTAG     | sum\\_pool | accuracy | 82.05  | 2-3    | 4    | NN-mean    | DeepSets    | RepSet   |" in out
    assert pairs["verdict"].tolist() == ["tie", "better", "worse"] and "splits of each model: deepsets 20/20" in out
    assert "caveat" not in out


@pytest.mark.skipif(not (Path(sys.executable).parent / "snakemake").exists(), reason="snakemake not installed")
def test_the_dry_run_plans_only_the_new_models_jobs_and_writes_nothing(repo, capsys):
    restore_records("reproduction", "results/runs", datasets=["MUTAG"])     # as `record restore` leaves it
    before = written(repo)
    standing.main(["examples/sum_pool.yaml", "--dataset", "MUTAG", "--dry-run"])
    out = capsys.readouterr().out
    assert "plan: 1 job(s), 40 output(s): train_pack_MUTAG_sum_pool_seed0_grid0 of sum_pool on MUTAG; store " \
           f"{STORE}: up to date" in out
    assert "(dry run) 0 of the record's MUTAG runs would be restored into results/runs, then 1 job(s)" in out
    assert written(repo) == before


def test_a_plan_with_any_other_job_is_refused():
    ours = ("train_pack_MUTAG_sum_pool_seed0_grid0", ["results/runs/MUTAG/sum_pool/hidden32/split0_seed0.json"])
    choice = ("grid_choice", ["results/runs/MUTAG/sum_pool/grid_seed0.json"])
    store = ("graph_store", [STORE, "data/sets/MUTAG.struc2vec.json"])
    assert standing.split_plan([ours, choice, store], "MUTAG", ["sum_pool"]) == ([store], [ours, choice])
    theirs = ("packed_record", ["results/runs/MUTAG/deepsets/default/split0_seed0.json"])
    with pytest.raises(ValueError, match="plans rule packed_record for results/runs/MUTAG/deepsets/default/split0_seed0"
                                         ".json: not a run of sum_pool on MUTAG nor its store"):
        standing.split_plan([ours, theirs], "MUTAG", ["sum_pool"])
    text = "rule a:\n    input: x\n    output: p, q\n    log: l\n\nlocalrule b:\n    output: r\nJob stats:\n"
    assert standing.planned_jobs(text) == [("a", ["p", "q"]), ("b", ["r"])]


def test_another_store_stops_with_the_reason_unless_asked_to_pair_apart(repo, calls, capsys):
    other = "cd" * 32
    write_store(repo, other)
    with pytest.raises(SystemExit) as stop:
        standing.main(["examples/sum_pool.yaml", "--dataset", "MUTAG"])
    message = str(stop.value)
    assert f"sha256 {other}, but the record's MUTAG runs" in message and SHA in message
    assert "OPENBLAS_CORETYPE=SkylakeX" in message and "--other-store" in message and "Nothing was trained or restored" in message
    write_store(repo, other, {"struc2vec": {"layers": 3}})                   # a profile's options: named instead
    with pytest.raises(SystemExit, match=r"built with other options than the record's store: struc2vec \{'layers': 3\}"
                                         r" \(the record's \{'layers': 6\}\)"):
        standing.main(["examples/sum_pool.yaml", "--dataset", "MUTAG"])
    assert [dry for _, _, dry in calls] == [True, True] and written(repo) == set()
    calls.clear()
    pairs = standing.quick_standing(["examples/sum_pool.yaml"], "MUTAG", other_store=True)
    folder = Path("results/other_store") / f"MUTAG-{other[:12]}"
    assert [(d, dry) for _, d, dry in calls] == [(None, True), (folder, True), (folder, False)]
    assert (folder / "config.yaml").resolve() == repo / "config.yaml"           # a root of links
    assert len(list((folder / "results/runs/MUTAG/sum_pool").rglob("*.json"))) == 40
    assert not (repo / "results/runs/MUTAG/sum_pool").exists() and (repo / "results/runs/MUTAG/deepsets").is_dir()
    assert pairs["verdict"].tolist() == ["tie", "better", "worse"]
    assert f"caveat: sum_pool trained on {STORE} as built here (sha256 {other})" in capsys.readouterr().out


def test_a_missing_store_is_built_and_one_snakemake_would_rebuild_is_refused(repo, calls, capsys):
    calls.rebuild = True
    with pytest.raises(ValueError, match=r"Snakemake would rebuild data/sets/MUTAG.struc2vec.npz \(1 job\(s\), 1 "
                                         r"output\(s\): graph_store\): its inputs, or the config's options"):
        standing.quick_standing(["examples/sum_pool.yaml"], "MUTAG")
    assert [dry for _, _, dry in calls] == [True] and written(repo) == set()
    calls.clear()
    calls.rebuild = False
    (repo / STORE).unlink()
    assert standing.quick_standing(["examples/sum_pool.yaml"], "MUTAG", dry_run=True) is None
    assert "the store would be built, then checked" in capsys.readouterr().out and not (repo / STORE).exists()
    calls.clear()
    standing.quick_standing(["examples/sum_pool.yaml"], "MUTAG")          # built, checked, then the runs trained
    assert [(a[a.index("--") + 1:][:1], dry) for a, _, dry in calls] == [
        ([STORE], True), ([STORE], False), (["results/runs/MUTAG/sum_pool/hidden32/split0_seed0.json"], True),
        (["results/runs/MUTAG/sum_pool/hidden32/split0_seed0.json"], False)]
