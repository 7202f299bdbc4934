"""Driver packs: record paths -> protocol runs, grouped by store and grid choice, finished ones skipped."""
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
    monkeypatch.setattr(pack, "train_pack", lambda store, jobs, choice=None: seen.append((store, choice, jobs)) or [])
    paths = [Run("MUTAG", "repset", "k10-m20", 0, 0).path, Run("MUTAG", "repset", CHOSEN, 5, 0).path,
             Run("MUTAG", "deepsets", "default", 1, 0).path, Run("MUTAG", "repset", CHOSEN, 6, 0).path]
    (tmp_path / paths[2]).parent.mkdir(parents=True)
    (tmp_path / paths[2]).write_text("{}")
    pack.train_paths(config, paths)
    assert [(choice, [j["out"] for j in jobs]) for _, choice, jobs in seen] == [
        (None, [paths[0]]), ("results/runs/MUTAG/repset/grid_seed0.json", [paths[1], paths[3]])]
    assert all(jobs[0]["settings"]["layer"] == "repset" for _, _, jobs in seen)
    seen.clear()
    pack.train_paths(config, paths, force=True)
    assert sum(len(jobs) for _, _, jobs in seen) == 4
