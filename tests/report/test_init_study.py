"""REPORT.md's interpretability paragraph from the initialisation study's table."""
import pandas as pd

from repset.report.init_study import init_study_section


def study_table():
    rows = []
    for init, mean, gain, cos in (("uniform", 4.0, 0.0, 0.98), ("small", 2.5, 1.5, 0.5), ("scaled", 6.0, -2.0, 0.99)):
        rows.append({"dataset": "BBCSPORT", "init": init, "metric": "error %", "splits": 5, "mean": mean, "std": 1.0,
                     "paper": 2.0, "paper std": 0.89, "gain over paper (sigma)": (2.0 - mean) / 0.89,
                     "gain over uniform (pp)": gain, "wins/losses": "4/1", "cos to start": cos,
                     "moved / start norm": 0.2, "align trained": 0.2, "align moved": 0.4, "align chance": 0.18})
    return pd.DataFrame(rows).set_index(["dataset", "init"])


def test_section_names_the_best_init_and_its_gains():
    text = init_study_section(study_table(), "uniform", "results/tables/latent_sets_by_init.md")
    line = next(l for l in text.splitlines() if l.startswith("- **BBCSPORT**"))
    assert "from `uniform` the elements end at cosine 0.980" in line
    assert "Best other init: `small`, error % 2.50 +- 1.00 against 4.00 +- 1.00 (paired gain +1.50 points" in line
    assert "-0.56 paper sigma (not better), `uniform` -2.25" in line
    assert "`results/tables/latent_sets_by_init.md`" in text
    assert "| BBCSPORT" in text and "align moved" in text and "moved / start norm" not in text


def test_section_after_a_round_trip_through_csv(tmp_path):
    study_table().to_csv(tmp_path / "s.csv")
    table = pd.read_csv(tmp_path / "s.csv", index_col=[0, 1])
    assert "Best other init: `small`" in init_study_section(table, "uniform")
    assert "Best other init" not in init_study_section(table.loc[[("BBCSPORT", "uniform")]], "uniform")
