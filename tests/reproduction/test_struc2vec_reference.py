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
