"""Where a model stands (repset.protocol.standing): paired differences, their standard errors, paired t-tests and
ranks with ties, checked against scipy and against repset.protocol.paired."""
import math

import numpy as np
import pandas as pd
import pytest
from repo_paths import ROOT
from scipy import stats

from repset.protocol.paired import paired_table
from repset.protocol.selection import select
from repset.protocol.standing import compare, paired_units, rank_table, standing_table, table_values


def _selected(dataset: str, model: str, metric: list[float], seed: int = 0, graph: bool = False) -> pd.DataFrame:
    """Selected runs, one per split: ``metric`` is accuracy % on a graph dataset, test error % on a text one."""
    values = np.asarray(metric) / 100
    accuracy = values if graph else 1 - values
    return pd.DataFrame({"dataset": dataset, "model": model, "split": range(len(values)), "seed": seed,
                         "point": "default", "test_accuracy": accuracy, "test_error": 1 - accuracy})


def test_a_text_dataset_is_tested_over_its_splits_as_scipy_does():
    ours, theirs = [10, 12, 11, 13, 9], [12, 13, 14, 15, 12]        # test error %: ours lower on every split
    frame = pd.concat([_selected("bbcsport", "mine", ours), _selected("bbcsport", "deepsets", theirs)])
    row = standing_table(frame, ["mine"]).iloc[0]
    diff = np.subtract(ours, theirs)                                 # -2, -1, -3, -2, -3
    se = diff.std(ddof=1) / math.sqrt(5)
    assert row["units"] == "splits" and row["n"] == 5 and row["metric"] == "error"
    assert row["diff"] == pytest.approx(-2.2) and row["s.e."] == pytest.approx(math.sqrt(0.7 / 5))
    assert row["t"] == pytest.approx(-2.2 / se) and row["p"] == pytest.approx(2 * stats.t.sf(2.2 / se, df=4))
    assert row["p"] == pytest.approx(stats.ttest_rel(ours, theirs).pvalue)
    assert row["mean"] == pytest.approx(11) and row["other mean"] == pytest.approx(13.2)
    assert row["won / lost"] == "5 / 0" and row["verdict"] == "better"


def test_seeds_of_one_split_are_averaged_before_pairing():
    frame = pd.concat([_selected("twitter", "mine", [20, 30]), _selected("twitter", "mine", [22, 34], seed=1)])
    assert table_values(frame, "twitter", "mine").tolist() == pytest.approx([21, 32])


def test_a_graph_dataset_is_tested_over_its_repetitions_means_else_its_folds():
    rng = np.random.default_rng(0)
    theirs = 80 + rng.normal(0, 3, 25)
    ours = theirs + 1 + rng.normal(0, 2, 25)                         # folds 0-24: two whole repetitions and a half
    a = pd.Series(ours, index=range(25))
    b = pd.Series(theirs, index=range(25))
    mine, other, units = paired_units(a, b, "MUTAG")
    assert units == "repetitions" and list(mine.index) == [0, 1]
    assert mine.tolist() == pytest.approx([ours[:10].mean(), ours[10:20].mean()])
    result = compare(a, b, "MUTAG")
    assert result["splits"] == 25 and result["n"] == 2 and result["diff"] == pytest.approx((ours - theirs).mean())
    assert result["p"] == pytest.approx(stats.ttest_rel(mine, other).pvalue)
    assert result["s.e."] == pytest.approx((mine - other).std(ddof=1) / math.sqrt(2))
    one = compare(a.iloc[:15], b.iloc[:15], "MUTAG")                # one whole repetition: its folds are the units
    assert one["units"] == "folds" and one["n"] == 15
    assert one["p"] == pytest.approx(stats.ttest_rel(ours[:15], theirs[:15]).pvalue)


def test_ranks_tie_the_models_not_significantly_different():
    base = np.array([80.0, 82, 78, 85, 79, 81, 84, 77, 83, 80])      # accuracy % on the folds of one repetition
    noise = np.array([2.0, -3, 1, -1, 3, -2, 1, -2, 2, -1])
    frame = pd.concat([_selected("MUTAG", "mine", base, graph=True),
                       _selected("MUTAG", "ahead", base + 5 + noise / 10, graph=True),   # better on every fold
                       _selected("MUTAG", "level", base + noise, graph=True),           # no consistent difference
                       _selected("MUTAG", "behind", base - 4 + noise / 10, graph=True)])
    pairs = standing_table(frame, ["mine"]).set_index("other")
    assert pairs.loc["ahead", "verdict"] == "worse" and pairs.loc["behind", "verdict"] == "better"
    assert pairs.loc["level", "verdict"] == "tie" and pairs.loc["level", "p"] > 0.05
    rank = rank_table(pairs.reset_index()).iloc[0]
    assert rank["rank"] == "2-3" and rank["of"] == 4 and rank["mean"] == pytest.approx(base.mean())
    assert rank["ahead of"] == ["behind"] and rank["tied with"] == ["level"] and rank["behind"] == ["ahead"]


def test_one_split_has_no_test_and_ties():
    frame = pd.concat([_selected("ohsumed", "mine", [40.0]), _selected("ohsumed", "deepsets", [45.0])])
    row = standing_table(frame, ["mine"]).iloc[0]
    assert row["diff"] == pytest.approx(-5) and math.isnan(row["p"]) and math.isnan(row["s.e."])
    assert row["verdict"] == "tie" and rank_table(standing_table(frame, ["mine"]))["rank"].tolist() == ["1-2"]


def test_only_the_given_models_are_set_against_the_others_on_common_splits():
    frame = pd.concat([_selected("bbcsport", "mine", [1, 2, 3]), _selected("bbcsport", "yours", [1, 2, 4]),
                       _selected("bbcsport", "deepsets", [2, 2]), _selected("twitter", "deepsets", [5, 5])])
    table = standing_table(frame, ["mine", "yours"])
    assert table[["model", "other", "splits"]].values.tolist() == [["mine", "deepsets", 2], ["yours", "deepsets", 2]]


def _runs(model: str, shift: float, folds=range(20)) -> pd.DataFrame:
    """Two points per fold; validation prefers k20-m20 (test accuracy 0.70 + shift + a fold's own offset)."""
    rng = np.random.default_rng(len(model))
    rows = []
    for split in folds:
        for point, val, acc in (("k10-m20", 0.3, 0.5), ("k20-m20", 0.1, 0.7)):
            accuracy = acc + shift + split / 1000 + rng.normal(0, 0.01)
            rows.append({"dataset": "MUTAG", "model": model, "split": split, "point": point, "seed": 0,
                         "val_error": val, "val_loss": val, "test_accuracy": accuracy, "test_error": 1 - accuracy})
    return pd.DataFrame(rows)


def test_the_paired_difference_is_the_one_of_the_leads_table():
    record, lead = _runs("repset", 0.0), _runs("variant", 0.01)
    theirs = paired_table(record, lead, {"variant": "repset"}, "MUTAG").iloc[0]
    ours = standing_table(select(pd.concat([record, lead])), ["variant"]).iloc[0]
    assert ours["diff"] == pytest.approx(theirs["paired diff"]) and ours["won / lost"] == theirs["folds won / lost"]
    assert ours["mean"] == pytest.approx(theirs["lead"]) and ours["other mean"] == pytest.approx(theirs["record"])


def test_the_recorded_attention_variants_agree_with_the_leads_table():
    """On the record itself: reproduction/attention_variant's PROTEINS runs against the record's NN-attention."""
    record = pd.read_csv(ROOT / "reproduction" / "runs.csv")
    lead = pd.read_csv(ROOT / "reproduction" / "attention_variant" / "runs.csv")
    pairs = {"nn_attention_gated": "nn_attention", "nn_attention_query": "nn_attention"}
    theirs = paired_table(record, lead, pairs, "PROTEINS").set_index("lead model")
    both = pd.concat([record[(record["dataset"] == "PROTEINS") & (record["model"] == "nn_attention")],
                      lead[lead["dataset"] == "PROTEINS"]])
    ours = standing_table(select(both), list(pairs)).set_index("model")
    assert list(ours.index) == list(theirs.index) and (ours["n"] == 10).all() and (ours["splits"] == 100).all()
    assert ours["diff"].tolist() == pytest.approx(theirs["paired diff"].tolist())
    assert ours["won / lost"].tolist() == theirs["folds won / lost"].tolist()
