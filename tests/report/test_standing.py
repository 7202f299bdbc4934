"""REPORT.md's "Where your model stands" (repset.report.standing): the ranks and the paired tests behind them."""
import pandas as pd

from repset.report.standing import TITLE, standing_section, write_standing


def _selected(dataset: str, model: str, accuracy: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"dataset": dataset, "model": model, "split": range(len(accuracy)), "seed": 0,
                         "point": "default", "test_accuracy": accuracy, "test_error": [1 - a for a in accuracy]})


FOLDS = [0.80, 0.82, 0.78, 0.85, 0.79, 0.81, 0.84, 0.77, 0.83, 0.80]
SELECTED = pd.concat([_selected("MUTAG", "sum_pool", FOLDS),
                      _selected("MUTAG", "repset", [a + 0.05 + 0.001 * (i % 3) for i, a in enumerate(FOLDS)]),
                      _selected("MUTAG", "nn_mean", [a + (0.02 if i % 2 else -0.02) for i, a in enumerate(FOLDS)]),
                      _selected("ohsumed", "sum_pool", [0.6]), _selected("ohsumed", "deepsets", [0.5])])


def cells(markdown: str) -> list[list[str]]:
    """The body rows of the Markdown tables in ``markdown``, as their cells' text (escapes removed)."""
    return [[c.strip().replace("\\", "") for c in line.strip("|").split("|")] for line in markdown.splitlines()
            if line.startswith("|") and not line.startswith("|--") and not line.startswith("| dataset")]


def test_the_page_ranks_with_ties_and_lists_every_pair(tmp_path):
    pairs = write_standing(SELECTED, ["sum_pool"], tmp_path / "standing.md", tmp_path / "standing.csv")
    text = (tmp_path / "standing.md").read_text()
    assert text.startswith(f"# {TITLE}\n") and "two-sided paired t-test (scipy.stats.ttest_rel)" in text
    assert "p < 0.05 counts" in text
    ranks, rows = text.split("### Rank per dataset")[1].split("### Paired differences")
    # MUTAG: RepSet ahead on every fold, NN-mean level (+-2 points, alternating): rank 2-3 of 3, tied with NN-mean;
    # OHSUMED: one predefined split, no test: every model ties
    assert cells(ranks) == [["OHSUMED", "sum_pool", "error", "40.00", "1-2", "2", "-", "DeepSets", "-"],
                            ["MUTAG", "sum_pool", "accuracy", "80.90", "2-3", "3", "-", "NN-mean", "RepSet"]]
    assert cells(rows) == [
        ["OHSUMED", "sum_pool", "DeepSets", "1", "1 split", "40.00", "50.00", "-10.00", "-", "-", "1 / 0", "tie"],
        ["MUTAG", "sum_pool", "RepSet", "10", "10 folds", "80.90", "85.99", "-5.09", "0.03", "< 0.001", "0 / 10",
         "worse"],
        ["MUTAG", "sum_pool", "NN-mean", "10", "10 folds", "80.90", "80.90", "0.00", "0.67", "1.000", "5 / 5", "tie"]]
    back = pd.read_csv(tmp_path / "standing.csv")                   # the text datasets first, as the result tables
    assert back[["other", "verdict"]].values.tolist() == [["deepsets", "tie"], ["repset", "worse"],
                                                          ["nn_mean", "tie"]]
    assert back["p"].iloc[1] == pairs["p"].iloc[1] < 0.001


def test_no_paired_run_yet_is_a_line_not_an_empty_table():
    text = standing_section(pd.DataFrame(columns=["dataset"]), ["sum_pool"])
    assert "`sum_pool`" in text and text.rstrip().endswith("(none of these models has a run paired with another "
                                                            "model's yet)")
