"""Packs: every unfinished run of a packed dataset in exactly one pack of one stage, none replacing a record."""
import yaml

from repo_paths import ROOT
from repset.protocol.jobs import CHOSEN, choice_repetitions, grid_choice_of, runs
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


def test_chosen_runs_pack_by_the_grid_choice_they_read():
    """grid_scope: repetition: each pack holds one CV repetition's runs, a chosen pack reads that repetition's grid
    choice (grid_seed<s>_rep<r>.json); with the default scope one choice, the names as they were."""
    c = config()
    default = packs(c)
    assert {p.choice for p in default if p.choice} == {f"results/runs/MUTAG/{m}/grid_seed0.json"
                                                       for m in ("repset", "approx_repset")}
    assert [p.name for p in default if p.runs[0].model == "repset"] == [
        "MUTAG_repset_seed0_grid0", "MUTAG_repset_seed0_grid1", "MUTAG_repset_seed0_grid2", "MUTAG_repset_seed0_grid3",
        *(f"MUTAG_repset_seed0_chosen{i}" for i in range(14))]                 # 24 searched, 98 chosen: 7 a pack
    c["protocol"]["per_dataset"] = {"MUTAG": {"graph_splits": 30, "grid_splits": 2, "grid_scope": "repetition"}}
    made = packs(c)
    flat = [r for p in made for r in p.runs]
    assert sorted(flat, key=str) == sorted(runs(c, ["MUTAG"]), key=str) and len(set(flat)) == len(flat)
    assert len({p.name for p in made}) == len(made) and all(p.name.isidentifier() for p in made)
    for p in made:
        model = p.runs[0].model
        assert len({choice_repetitions(c, "MUTAG", model)[r.split] for r in p.runs}) == 1
        assert p.choice == (grid_choice_of(c, p.runs[0]) if p.runs[0].point == CHOSEN else None)
    repset = [p for p in made if p.runs[0].model == "repset"]
    assert [(p.name, len(p.runs), p.choice) for p in repset if p.choice and p.runs[0].split >= 10] == [
        ("MUTAG_repset_seed0_chosen_rep1_0", 7, "results/runs/MUTAG/repset/grid_seed0_rep1.json"),
        ("MUTAG_repset_seed0_chosen_rep1_1", 1, "results/runs/MUTAG/repset/grid_seed0_rep1.json"),
        ("MUTAG_repset_seed0_chosen_rep2_0", 7, "results/runs/MUTAG/repset/grid_seed0_rep2.json"),
        ("MUTAG_repset_seed0_chosen_rep2_1", 1, "results/runs/MUTAG/repset/grid_seed0_rep2.json")]
