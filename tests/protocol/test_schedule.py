"""Jobs with costs: expected and upper-bound seconds of chosen jobs, list-scheduled wall time."""
import pandas as pd
import pytest

from repset.protocol.jobs import CHOSEN
from repset.protocol.schedule import job_costs, runtime_minutes, wall_seconds


def config(grid_splits):
    return {"data": {"wmd_mat_dir": None},
            "protocol": {"text_splits": 3, "graph_splits": 100, "seeds": [0], "grid_splits": grid_splits},
            "models": {"repset": {"layer": "repset", "options": {}, "grid": {"n_hidden_sets": [2, 3]}},
                       "deepsets": {"layer": "deepsets", "options": {}, "grid": {}}}}


TABLE = pd.DataFrame({"dataset": ["bbcsport"] * 3, "model": ["repset", "repset", "deepsets"],
                      "point": ["m2", "m3", "default"], "run_seconds": [10.0, 30.0, 5.0]})


def test_job_costs_expect_the_grid_mean_and_bound_by_its_max():
    jobs = job_costs(TABLE, config(grid_splits=1))
    repset = jobs[jobs.model == "repset"]
    assert repset["point"].tolist() == ["m2", "m3", CHOSEN, CHOSEN]
    assert repset["seconds"].tolist() == [10.0, 30.0, 20.0, 20.0] and repset["seconds_max"].tolist()[-1] == 30.0
    assert len(jobs) == 4 + 3 and jobs["seconds"].sum() == pytest.approx(10 + 30 + 2 * 20 + 3 * 5)


def test_wall_time_on_cores_and_the_critical_path():
    jobs = job_costs(TABLE, config(grid_splits=1))     # 10, 30 -> then 20, 20 (wait); 5, 5, 5
    assert wall_seconds(jobs, None) == pytest.approx(30 + 20)         # the longest searched job, then a chosen one
    assert wall_seconds(jobs, 1) == pytest.approx(jobs["seconds"].sum())
    two = wall_seconds(jobs, 2)
    assert jobs["seconds"].sum() / 2 <= two <= jobs["seconds"].sum()
    # core 1: m3 0-30; core 2: m2 0-10, the three baselines 10-25; at 30 both chosen jobs start together
    assert two == pytest.approx(50.0)
    every = job_costs(TABLE, config(grid_splits=None))  # no dependencies: critical path = the longest job
    assert wall_seconds(every, None) == pytest.approx(30.0) and wall_seconds(every.iloc[:0], 4) == 0.0


def test_a_repetitions_chosen_jobs_wait_for_its_own_grid_only():
    per_repetition = config(grid_splits=1)
    per_repetition["protocol"]["per_dataset"] = {"MUTAG": {"graph_splits": 20, "grid_scope": "repetition"}}
    table = TABLE.assign(dataset="MUTAG")
    jobs = job_costs(table, per_repetition)
    repset = jobs[jobs.model == "repset"]
    assert repset["choice"].tolist() == [0] * 11 + [1] * 11 and (jobs[jobs.model == "deepsets"]["choice"] == 0).all()
    assert repset[repset.point != CHOSEN]["split"].tolist() == [0, 0, 10, 10]
    # one group: repetition 1's chosen job waits for repetition 0's long grid job; per choice it does not
    hand = pd.DataFrame({"dataset": "MUTAG", "model": "repset", "seed": 0, "choice": [0, 0, 1, 1],
                         "point": ["m2", CHOSEN, "m2", CHOSEN], "seconds": [100.0, 1.0, 1.0, 50.0]})
    assert wall_seconds(hand, 2) == pytest.approx(101.0)          # core 1: 0-100, 100-101; core 2: 0-1, 1-51
    assert wall_seconds(hand.drop(columns="choice"), 2) == pytest.approx(150.0)


def test_runtime_request_has_a_margin_and_a_floor():
    assert runtime_minutes(1.0) == 10 and runtime_minutes(3600.0) == 95
