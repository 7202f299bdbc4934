"""Packs: every unfinished run of a packed dataset in exactly one pack of one stage, none replacing a record."""
import yaml

from repo_paths import ROOT
from repset.protocol.jobs import CHOSEN, runs
from repset.protocol.packs import packed_datasets, packs


def config(**packs_):
    c = yaml.safe_load((ROOT / "config.yaml").read_text())
    c["protocol"]["grid_splits"] = 2
    c["train_packs"] = {"datasets": ["mutag"], "runs": 7, **packs_}
    return c


def test_packs_cover_the_packed_datasets_runs_once_by_stage():
    c = config()
    assert packed_datasets(c) == ["MUTAG"]
    made = packs(c)
    flat = [r for p in made for r in p.runs]
    assert sorted(flat, key=str) == sorted(runs(c, ["MUTAG"]), key=str) and len(set(flat)) == len(flat)
    for p in made:
        assert 1 <= len(p.runs) <= 7 and len({(r.model, r.seed) for r in p.runs}) == 1
        stage = {r.point == CHOSEN for r in p.runs}
        assert len(stage) == 1 and (p.choice is not None) == stage.pop()
    assert len({p.name for p in made}) == len(made) and all(p.name.isidentifier() for p in made)


def test_finished_records_stay_out_and_no_packs_without_the_key():
    c = config()
    done = {r.path for r in runs(c, ["MUTAG"])[::3]}
    left = [r.path for p in packs(c, done=done.__contains__) for r in p.runs]
    assert not done & set(left) and len(left) + len(done) == len(runs(c, ["MUTAG"]))
    del c["train_packs"]
    assert packs(c) == [] and packed_datasets(c) == []
