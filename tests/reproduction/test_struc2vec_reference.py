"""reproduction/struc2vec_reference.py's summary: the numbers the judgement between the two graph inputs reads."""
import importlib.util

import pandas as pd
from repo_paths import ROOT

spec = importlib.util.spec_from_file_location("struc2vec_reference", ROOT / "reproduction" / "struc2vec_reference.py")
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)


def test_the_summary_counts_moves_toward_the_paper_significant_ones_and_repsets_rank():
    rows = pd.DataFrame({
        "dataset": ["MUTAG"] * 3, "model": ["repset", "nn_mean", "nn_max"], "folds": ["30 (0-29)", "30 (0-29)", "12 (0-11)"],
        "record": [86.0, 77.0, 85.0], "reference": [84.0, 82.0, 85.5], "paired diff": [-2.0, 5.0, 0.5],
        "s.e.": [1.5, 2.0, 0.2], "paper": [88.0, 87.0, float("nan")]})
    rows["record - paper"] = rows["record"] - rows["paper"]
    rows["reference - paper"] = rows["reference"] - rows["paper"]
    out = script.summary(rows).iloc[0]
    assert out["models"] == 3 and out["folds"] == 12
    assert out["|record - paper|"] == (2.0 + 10.0) / 2 and out["|reference - paper|"] == (4.0 + 5.0) / 2
    assert out["toward the paper"] == "1 of 2"                       # NN-mean closer; RepSet farther; NN-max no cell
    assert out["beyond 2 s.e. (up / down)"] == "2 / 0"               # NN-mean 5 > 4, NN-max 0.5 > 0.4; RepSet 2 < 3
    assert out["RepSet rank (record / reference)"] == "1 / 2"         # behind NN-max's 85.5 on the reference input


def test_the_pooled_row_takes_the_cells_on_all_30_folds_and_the_signed_mean_keeps_the_direction():
    rows = pd.DataFrame({
        "dataset": ["MUTAG", "MUTAG", "PROTEINS", "PROTEINS"], "model": ["repset", "nn_mean"] * 2,
        "folds": ["30 (0-29)", "30 (0-29)", "10 (0-9)", "30 (0-29)"],
        "record": [86.0, 77.0, 66.0, 70.0], "reference": [87.0, 82.0, 72.0, 69.0], "paired diff": [1.0, 5.0, 6.0, -1.0],
        "s.e.": [1.0, 1.0, 1.0, 1.0], "paper": [88.0, 87.0, 70.0, 70.0]})
    rows["record - paper"] = rows["record"] - rows["paper"]
    rows["reference - paper"] = rows["reference"] - rows["paper"]
    out = script.summary(rows).set_index("dataset")
    assert list(out.index) == ["MUTAG", "PROTEINS", "all"]
    pooled = out.loc["all"]                                          # PROTEINS' RepSet (10 folds) left out
    assert pooled["models"] == 3 and pooled["folds"] == 30
    assert pooled["|record - paper|"] == (2 + 10 + 0) / 3 and pooled["|reference - paper|"] == (1 + 5 + 1) / 3
    assert pooled["record - paper"] == (-2 - 10 + 0) / 3 and pooled["reference - paper"] == (-1 - 5 - 1) / 3
    assert pooled["toward the paper"] == "2 of 3"                    # PROTEINS' NN-mean leaves the paper's cell
    assert pooled["beyond 2 s.e. (up / down)"] == "1 / 0"
    assert pd.isna(pooled["RepSet rank (record / reference)"])      # a rank is per dataset
    assert out.loc["PROTEINS", "RepSet rank (record / reference)"] == "2 / 1"
    assert list(script.summary(rows.iloc[:3])["dataset"]) == ["MUTAG", "PROTEINS"]   # one dataset on 30 folds: no pool


def test_one_dataset_gets_no_pooled_row():
    rows = pd.DataFrame({"dataset": ["MUTAG"], "model": ["repset"], "folds": ["30 (0-29)"], "record": [86.0],
                         "reference": [87.0], "paired diff": [1.0], "s.e.": [1.0], "paper": [88.0]})
    rows["record - paper"] = rows["record"] - rows["paper"]
    rows["reference - paper"] = rows["reference"] - rows["paper"]
    assert list(script.summary(rows)["dataset"]) == ["MUTAG"]


def test_cell_notes_cover_the_cells_on_all_30_folds_and_read_as_the_reports_notes(tmp_path):
    from repset.report.notes import read_notes
    rows = pd.DataFrame({
        "dataset": ["MUTAG", "MUTAG", "MUTAG", "PROTEINS"], "model": ["repset", "nn_mean", "nn_max", "repset"],
        "folds": ["30 (0-29)", "30 (0-29)", "30 (0-29)", "12 (0-11)"], "record": [86.0, 77.0, 85.0, 66.0],
        "reference": [84.0, 82.0, 85.5, 70.0], "paired diff": [-2.0, 5.0, 0.5, 4.0], "s.e.": [1.5, 1.0, 0.2, 1.0],
        "paper": [88.0, 87.0, float("nan"), 70.7]})
    notes = script.cell_notes(rows)
    assert [(n["dataset"], n["method"]) for n in notes] == [("MUTAG", "repset"), ("MUTAG", "nn_mean")]  # 30 folds, a paper cell
    assert [n["finding"] for n in notes] == ["inconclusive", "partly explains"]   # -2 within 2 s.e. of 3; +5 of a 10 gap
    assert notes[1]["result"] == ("82.00 on the reference's input against the record's 77.00 on the same 30 folds "
                                  "(paired +5.00, s.e. 1.00); the paper 87.00; no struc2vec draws of this dataset to "
                                  "set the move against: judged on the folds' s.e.")
    spread = script.cell_notes(rows, {("MUTAG", "nn_mean"): 2.0})   # sqrt(1 + 2 * 4) = 3: +5 is within 2 s.e.
    assert spread[1]["finding"] == "inconclusive" and spread[1]["result"].endswith(
        "the paper 87.00; struc2vec draws of the paper's wording spread this cell by sd 2.00, so the move is judged "
        "with s.e. 3.00 (folds and draws)")
    assert spread[0]["result"].endswith("spread MUTAG's cells (median; none of this one) by sd 2.00, so the move is "
                                        "judged with s.e. 3.20 (folds and draws)")   # sqrt(1.5^2 + 8)
    assert spread[0]["finding"] == "inconclusive"
    path = tmp_path / "notes.yaml"
    path.write_text(script.yaml.safe_dump(notes))
    assert len(read_notes(path)) == 2


def _runs(dataset, accuracy, folds):
    """One run per baseline and fold at ``accuracy[model]`` (fraction)."""
    return pd.DataFrame([{"dataset": dataset, "model": m, "split": f, "point": "default", "seed": 0, "val_error": 0.1,
                          "val_loss": 0.3, "test_accuracy": accuracy[m]} for m in script.BASELINES for f in range(folds)])


def test_the_draws_table_sets_the_reference_beside_each_draw_of_the_papers_wording_on_the_folds_it_holds():
    paper = script.reported_results().set_index(["dataset", "method"])["mean"]
    at = {m: paper[("MUTAG", m)] / 100 for m in script.BASELINES}
    draws = {0: _runs("MUTAG", {m: a - 0.04 for m, a in at.items()}, 30),        # 4 points below every paper cell
             1: _runs("MUTAG", {m: a + 0.02 for m, a in at.items()}, 30),        # 2 above
             2: _runs("MUTAG", at, 8)}                                          # too few folds: no number
    lead = pd.concat([_runs("MUTAG", {m: a - 0.01 for m, a in at.items()}, 12),
                      _runs("MUTAG", dict.fromkeys(script.BASELINES, 0.5), 14).query("model == 'deepsets' and split >= 12")])
    row = script.draws(draws, {0: lead}, ["MUTAG", "PROTEINS"]).iloc[0]  # PROTEINS: no reference fold, no row
    assert row["folds"] == 12 and row["paper's wording draws"] == 2      # every baseline holds folds 0-11
    assert row["|draws - paper|"] == "4.00, 2.00" and row["draws - paper"] == "-4.00, +2.00"
    assert abs(row["|reference - paper|"] - 1.0) < 1e-9 and abs(row["reference - paper"] + 1.0) < 1e-9
    assert row["reference closer than every draw"]
    assert row["|reference draws - paper|"] == "1.00" and row["draws against draws"].startswith("open (1 reference")
    assert len(script.draws(draws, {0: lead}, ["MUTAG", "PROTEINS"])) == 1


def test_the_draw_sd_is_over_the_draws_that_hold_all_30_folds():
    at = dict.fromkeys(script.BASELINES, 0.8)
    draws = {0: _runs("MUTAG", at, 30), 1: _runs("MUTAG", {**at, "nn_mean": 0.84}, 30),
             2: _runs("MUTAG", {**at, "nn_mean": 0.5}, 29)}                  # 29 folds: not a draw of the cell
    sd = script.draw_sd(draws, ["MUTAG"])
    assert set(sd) == {("MUTAG", m) for m in script.BASELINES}
    assert abs(sd[("MUTAG", "nn_mean")] - pd.Series([80.0, 84.0]).std()) < 1e-9 and sd[("MUTAG", "deepsets")] == 0


def test_without_a_draw_to_compare_the_draws_table_says_na():
    at = dict.fromkeys(script.BASELINES, 0.8)
    row = script.draws({0: _runs("MUTAG", at, 5)}, {0: _runs("MUTAG", at, 12)}, ["MUTAG"]).iloc[0]   # lacks folds 5-11
    assert row["folds"] == 12 and row["paper's wording draws"] == 0 and row["|draws - paper|"] == ""
    assert pd.isna(row["reference closer than every draw"])


def test_three_reference_draws_against_three_of_the_papers_wording_read_toward_only_when_all_lie_below():
    paper = script.reported_results().set_index(["dataset", "method"])["mean"]
    at = {m: paper[("IMDB-BINARY", m)] / 100 for m in script.BASELINES}

    def off(points, folds=30):
        return _runs("IMDB-BINARY", {m: a - points / 100 for m, a in at.items()}, folds)

    wording = {0: off(3), 1: off(2), 2: off(4)}
    row = script.draws(wording, {0: off(1), 1: off(1.5), 2: off(-1.9)}, ["IMDB-BINARY"]).iloc[0]
    assert row["|reference draws - paper|"] == "1.00, 1.50, 1.90" and row["draws against draws"] == "toward"
    row = script.draws(wording, {0: off(1), 1: off(1.5), 2: off(2.5)}, ["IMDB-BINARY"]).iloc[0]   # 2.5 > 2
    assert row["draws against draws"] == "cannot tell"
    assert script.draw_reading([5.0, 4.5, 6.0], [3.0, 2.0, 4.0], 30) == "away"
    assert script.draw_reading([2.0, 2.0, 2.0], [2.0, 3.0, 4.0], 30) == "cannot tell"   # a tie is not below
    row = script.draws(wording, {0: off(1), 1: off(1.5), 2: off(1.2, folds=29)}, ["IMDB-BINARY"]).iloc[0]
    assert row["draws against draws"] == "open (2 reference draws, 3 of the paper's wording, 30 folds)"
    assert script.draw_reading([1.0, 1.0, 1.0], [2.0, 2.0, 2.0], 29).startswith("open")


def test_the_draws_verdict_needs_three_datasets_toward_and_is_decided_when_too_few_can_be():
    def noise(readings):
        return pd.DataFrame({"dataset": script.JUDGED, "draws against draws": readings})

    outcome, reason = script.draws_verdict(noise(["toward", "toward", "cannot tell", "toward"]))
    assert outcome == "toward" and reason == "MUTAG toward; IMDB-BINARY toward; IMDB-MULTI cannot tell; PROTEINS toward"
    assert script.draws_verdict(noise(["toward", "toward", "open (1 reference draws)", "away"]))[0] == "open"
    assert script.draws_verdict(noise(["toward", "cannot tell", "open (1 reference draws)", "away"]))[0] == "not toward"
    outcome, reason = script.draws_verdict(noise(["toward", "toward", "toward", "away"]).iloc[:2])
    assert outcome == "open" and reason.endswith("IMDB-MULTI open (not measured); PROTEINS open (not measured)")


def _judged(rows: list[tuple[str, int, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["dataset", "folds", "|record - paper|", "|reference - paper|"])


def _noise(rows: list[tuple[str, int, bool]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["dataset", "folds", "reference closer than every draw"])


def test_the_verdict_needs_three_datasets_passing_both_conditions_and_the_pooled_row_lower():
    judged = _judged([("MUTAG", 30, 3.0, 2.0), ("IMDB-BINARY", 30, 1.2, 1.1), ("IMDB-MULTI", 30, 1.4, 0.8),
                      ("PROTEINS", 30, 5.0, 4.0), ("all", 30, 2.6, 2.0)])
    noise = _noise([("MUTAG", 30, True), ("IMDB-BINARY", 30, False), ("IMDB-MULTI", 30, True), ("PROTEINS", 30, True)])
    outcome, reason = script.verdict(judged, noise)
    assert outcome == "toward" and reason.startswith("3 of 4 datasets pass (MUTAG, IMDB-MULTI, PROTEINS)")
    assert "IMDB-BINARY (baselines within the draws)" in reason
    worse_pool = judged.assign(**{"|reference - paper|": [2.0, 1.1, 0.8, 4.0, 2.7]})
    assert script.verdict(worse_pool, noise)[0] == "not toward"        # three pass, the pooled row does not
    tie = judged.assign(**{"|reference - paper|": [3.0, 1.1, 0.8, 4.0, 2.0]})
    outcome, reason = script.verdict(tie, noise)                         # equal distance is not closer
    assert outcome == "not toward" and "MUTAG (farther from the paper)" in reason


def test_the_verdict_is_open_until_the_folds_are_in_unless_too_few_can_pass():
    judged = _judged([("MUTAG", 30, 3.0, 4.0), ("IMDB-BINARY", 30, 1.2, 1.1), ("IMDB-MULTI", 23, 1.4, 0.8),
                      ("PROTEINS", 16, 5.0, 4.0)])
    noise = _noise([("MUTAG", 30, False), ("IMDB-BINARY", 30, True), ("IMDB-MULTI", 23, True), ("PROTEINS", 8, True)])
    outcome, reason = script.verdict(judged, noise)
    assert outcome == "open" and reason.endswith("still open: IMDB-MULTI, PROTEINS")
    noise.loc[1, "reference closer than every draw"] = False              # IMDB-BINARY's baselines within the draws
    outcome, reason = script.verdict(judged, noise)
    assert outcome == "not toward" and reason.endswith("fewer than 3 can pass")
    assert "MUTAG (farther from the paper; baselines within the draws)" in reason
    assert script.verdict(judged, noise, with_draws=False)[0] == "open"   # the rule without the draw condition
    assert script.verdict(judged.iloc[:2], noise.iloc[:2], with_draws=False)[0] == "open"   # missing rows are open


def test_a_dataset_without_measured_cells_gets_a_note_per_paper_cell_saying_so():
    rows = pd.DataFrame({"dataset": ["MUTAG"], "model": ["repset"], "folds": ["30 (0-29)"]})
    notes = script.unmeasured_notes(rows, ["MUTAG", "REDDIT-BINARY"], "not toward", "0 of 4 datasets pass")
    assert [(n["dataset"], n["method"]) for n in notes] == [("REDDIT-BINARY", m) for m in script.MODELS]
    assert {n["finding"] for n in notes} == {"inconclusive"}
    assert notes[0]["result"].startswith("not measured on this dataset") and notes[0]["result"].endswith(
        "the judgement reads: not toward: 0 of 4 datasets pass")
