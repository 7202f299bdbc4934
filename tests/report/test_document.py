"""REPORT.md: the findings first, then the setup, the result tables with each cell's verdict marked and linked to
its section of the cell page, the comparison's counts and ranks; comparison, verdicts and ranks themselves."""
import copy
import math
import re

import pandas as pd
import yaml
from repo_paths import ROOT

from repset.report.claims import VERDICTS
from repset.report.html import anchor

CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())


def test_verdicts_and_their_summary():
    import pandas as pd

    from repset.report.document import verdict, verdict_summary

    assert [verdict(x) for x in (0.4, -1.0, 1.5, -2.5, float("nan"))] == [
        "within 1 sigma", "within 1 sigma", "within 2 sigma", "outside 2 sigma", "no paper std"]
    comp = pd.DataFrame({"table": ["text"] * 4 + ["graph"] * 2,
                         "verdict": ["within 1 sigma", "within 2 sigma", "outside 2 sigma", "no paper std",
                                     "within 1 sigma", "no sigma verdict (one repetition: std over folds)"]})
    summary = verdict_summary(comp)
    assert summary.loc["text"].tolist() == [4, 1, 2, 1, 1, 0] and summary.loc["graph"].tolist() == [2, 1, 1, 0, 0, 1]


def test_a_graph_cell_of_one_repetition_gets_no_sigma_verdict():
    import pandas as pd

    from repset.report.document import comparison

    ours = pd.DataFrame({"table": ["graph"] * 2, "dataset": ["MUTAG", "IMDB-BINARY"], "method": ["repset"] * 2,
                         "mean": [80.0, 70.0], "std": [5.0, 1.0], "std_over": ["folds", "repetitions"],
                         "source": ["ours"] * 2})
    comp = comparison(ours).set_index("dataset")
    verdicts = comp["verdict"]
    assert verdicts["MUTAG"] == "no sigma verdict (one repetition: std over folds)"
    assert verdicts["IMDB BINARY"].startswith(("within", "outside"))
    # its delta is given in points only: in paper sigma it would compare one repetition with a mean of ten
    assert pd.isna(comp.loc["MUTAG", "delta_in_paper_sigma"]) and abs(comp.loc["MUTAG", "delta"] - (80.0 - 88.63)) < 1e-9
    assert not pd.isna(comp.loc["IMDB BINARY", "delta_in_paper_sigma"])


def test_ranks_put_lower_error_and_higher_accuracy_first():
    import pandas as pd

    from repset.report.document import ranks

    ours = pd.DataFrame({"table": ["text"] * 3 + ["graph"] * 2, "dataset": ["bbcsport"] * 3 + ["MUTAG"] * 2,
                         "method": ["repset", "approx_repset", "deepsets", "repset", "deepsets"],
                         "mean": [2.0, 5.0, 3.0, 80.0, 90.0], "std": [0.1] * 5, "source": ["ours"] * 5})
    r = ranks(ours).set_index(["dataset", "method"])
    assert r.loc[("BBCSPORT", "RepSet"), "rank ours"] == 1 and r.loc[("BBCSPORT", "ApproxRepSet"), "rank ours"] == 3
    assert r.loc[("BBCSPORT", "RepSet"), "rank paper"] is not None
    # graphs: among the paper's graph table, ours where we ran them and the paper's reported-only baselines
    from repset.report.reported import reported_results

    paper = reported_results()
    baselines = paper[(paper["dataset"] == "MUTAG") & (paper["role"] == "reported_only")]["mean"].dropna().astype(float)
    assert r.loc[("MUTAG", "RepSet"), "rank ours"] == 2 + int((baselines > 80.0).sum())    # DeepSets' 90 is ahead
    assert r.loc[("MUTAG", "RepSet"), "of"] == 2 + len(baselines)
    assert r.loc[("MUTAG", "RepSet"), "rank paper"] == 3          # the paper: RepSet third on MUTAG


def test_a_model_of_yours_on_a_graph_dataset_is_ranked_among_the_papers_graph_table():
    """A method the paper does not have (docs/your-model.md's sum pooling) on MUTAG: ranked among the paper's graph
    methods, with no paper rank; the paper's methods are still ranked without it."""
    import pandas as pd

    from repset.report.document import ranks
    from repset.report.reported import reported_results

    paper = reported_results()
    baselines = paper[(paper["dataset"] == "MUTAG") & (paper["role"] == "reported_only")]["mean"].dropna().astype(float)
    ours = pd.DataFrame({"table": ["graph"] * 2, "dataset": ["MUTAG"] * 2, "method": ["repset", "sum_pool"],
                         "mean": [80.0, 99.0], "std": [0.1] * 2, "source": ["ours"] * 2})
    r = ranks(ours, ["repset", "sum_pool"]).set_index(["dataset", "method"])
    mine = r.loc[("MUTAG", "sum_pool")]
    assert mine["rank ours"] == 1 and mine["of"] == 2 + len(baselines) and pd.isna(mine["rank paper"])
    assert r.loc[("MUTAG", "RepSet"), "of"] == 1 + len(baselines)        # sum pooling is not among RepSet's rivals


def test_a_variant_is_compared_and_ranked_in_its_paper_methods_place():
    """RepSet (init small) meets the paper's RepSet numbers, takes RepSet's place in the ranking (ours is
    left out there, not ranked against it), and the report counts where it beats the paper's RepSet."""
    import pandas as pd

    from repset.report.document import comparison, ranks, variants_against_paper
    from repset.report.reported import reported_results

    paper = reported_results()
    p_text = float(paper[(paper["dataset"] == "bbcsport") & (paper["method"] == "repset")]["mean"].iloc[0])
    p_graph = float(paper[(paper["dataset"] == "MUTAG") & (paper["method"] == "repset")]["mean"].iloc[0])
    ours = pd.DataFrame({"table": ["text"] * 3 + ["graph"] * 2, "dataset": ["bbcsport"] * 3 + ["MUTAG"] * 2,
                         "method": ["repset", "repset_init_small", "deepsets", "repset", "repset_init_small"],
                         "mean": [p_text + 1, p_text - 0.5, p_text - 0.2, p_graph - 3, p_graph - 1],
                         "std": [0.1] * 5, "std_over": ["splits"] * 3 + ["repetitions"] * 2, "source": ["ours"] * 5})
    comp = comparison(ours)
    small = comp[comp["method"] == "RepSet (init small)"].set_index("dataset")
    assert small.loc["BBCSPORT", "mean_paper"] == p_text and small.loc["MUTAG", "mean_paper"] == p_graph
    r = ranks(ours).set_index(["dataset", "method"])
    assert r.loc[("BBCSPORT", "RepSet (init small)"), "rank ours"] == 1        # ahead of DeepSets, RepSet left out
    assert r.loc[("BBCSPORT", "RepSet"), "rank ours"] == 2 and r.loc[("BBCSPORT", "RepSet"), "of"] == 2
    assert r.loc[("MUTAG", "RepSet (init small)"), "rank paper"] == 3
    against = variants_against_paper(comp).set_index("dataset")
    assert against["beats the paper"].to_dict() == {"BBCSPORT": "yes", "MUTAG": "no"}
    assert against.loc["BBCSPORT", "ours, paper method"] == p_text + 1      # our RepSet on the same data
    from repset.report.document import verdict_summary

    assert verdict_summary(comp)["cells"].sum() == 3          # the paper's methods: RepSet x 2, DeepSets


def test_approx_repset_init_small_stands_for_the_papers_approx_repset():
    import pandas as pd

    from repset.report.document import comparison, variants_against_paper
    from repset.report.reported import reported_results

    paper = reported_results()
    p = float(paper[(paper["dataset"] == "MUTAG") & (paper["method"] == "approx_repset")]["mean"].iloc[0])
    ours = pd.DataFrame({"table": ["graph"] * 2, "dataset": ["MUTAG"] * 2,
                         "method": ["approx_repset", "approx_repset_init_small"], "mean": [p - 2, p + 1],
                         "std": [0.5] * 2, "std_over": ["repetitions"] * 2, "source": ["ours"] * 2})
    small = comparison(ours).set_index("method").loc["ApproxRepSet (init small)"]
    assert small["mean_paper"] == p
    against = variants_against_paper(comparison(ours)).set_index("method")
    assert against.loc["ApproxRepSet (init small)", "beats the paper"] == "yes"
    assert against.loc["ApproxRepSet (init small)", "ours, paper method"] == p - 2


def test_the_majority_class_is_a_reference_row_of_the_tables_only(tmp_path):
    """results/majority/<dataset>.json (repset.protocol.majority) gives a "Majority class" row in the result
    tables, beside ours and the reported ones (the report passes it to the tables only, never to the comparison,
    verdicts or ranks: it is no paper method)."""
    import json

    from repset.report.document import reference_long, result_tables

    files = []
    for dataset, mean, std, splits in (("PROTEINS", 59.57, 0.01, 100), ("twitter", 31.26, 0.4, 5), ("ohsumed", 80.0, 0.0, 1)):
        path = tmp_path / f"{dataset}.json"
        key = "test_accuracy" if dataset == "PROTEINS" else "test_error"
        path.write_text(json.dumps({"dataset": dataset, "method": "majority", f"{key}_mean": mean, f"{key}_std": std,
                                    "splits": splits, "std_over": "repetitions" if splits == 100 else "splits"}))
        files.append(path)
    reference = reference_long(files)
    assert reference["table"].tolist() == ["graph", "text", "text"] and (reference["source"] == "reference").all()
    assert math.isnan(reference["std"].iloc[2])                          # one split: no std
    ours = pd.DataFrame([{"table": "graph", "dataset": "PROTEINS", "method": "repset", "mean": 70.0, "std": 1.0,
                          "std_over": "repetitions", "source": "ours"},
                         {"table": "text", "dataset": "twitter", "method": "repset", "mean": 26.0, "std": 1.0,
                          "std_over": "splits", "source": "ours"}])
    tables = result_tables(ours, None, ["twitter", "ohsumed"], ["PROTEINS"], reference)
    assert tables["graph"].loc["Majority class", "PROTEINS"] == "59.57 ± 0.01"
    assert tables["graph"].index[0] == "RepSet" and tables["graph"].index[-1] == "Majority class"
    assert tables["text"].loc["Majority class"].tolist() == ["31.26 ± 0.40", "80.00"]


def test_where_your_model_stands_follows_the_result_tables_in_the_report_and_its_html(tmp_path):
    from repset.report.document import write_report
    from repset.report.html import write_markdown_page

    empty = pd.DataFrame(columns=["table", "dataset", "method", "mean", "std", "std_over", "source"])
    tables = {"text": pd.DataFrame(), "graph": pd.DataFrame()}
    section = "Models from outside the package ...\n\n| dataset | rank |\n|---|---|\n| MUTAG | 2-3 |\n"
    text = write_report(tmp_path / "REPORT.md", config=copy.deepcopy(CONFIG), ours=empty, tables=tables,
                        store_metas={}, standing=section).read_text()
    assert text.index("## Graph classification") < text.index("## Where your model stands") < text.index(
        "## Paper vs reproduced")
    assert "## Where your model stands\n\nModels from outside the package ...\n\n| dataset | rank |" in text
    page = write_markdown_page(tmp_path / "REPORT.md", tmp_path / "REPORT.html").read_text()
    assert '<h2 id="where-your-model-stands">Where your model stands</h2>' in page and "<td>2-3</td>" in page
    plain = write_report(tmp_path / "REPORT.md", config=copy.deepcopy(CONFIG), ours=empty, tables=tables,
                         store_metas={}).read_text()
    assert "Where your model stands" not in plain


def _record() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A small record: ours on BBCSPORT, TWITTER and MUTAG (every paper method), RepSet's grid runs on BBCSPORT (two
    points tied on validation error on split 0) and one cell note."""
    from repset.report.reported import reported_results

    paper = reported_results()
    paper = paper[paper["dataset"].isin(["bbcsport", "twitter", "MUTAG"]) & (paper["role"] != "reported_only")]
    ours = pd.DataFrame({"table": paper["table"], "dataset": paper["dataset"], "method": paper["method"],
                         "mean": paper["mean"].astype(float) + 1.0, "std": 0.5,
                         "std_over": paper["table"].map({"text": "splits", "graph": "repetitions"}), "source": "ours"})
    runs = pd.DataFrame([{"dataset": "bbcsport", "model": "repset", "split": s, "seed": 0, "point": p, "val_error": v,
                          "val_loss": loss, "test_error": e, "test_accuracy": 1 - e}
                         for s in range(2) for p, v, loss, e in (("k10-m20", 0.1, 0.3, 0.05), ("k10-m50", 0.1, 0.2, 0.03),
                                                                 ("k20-m20", 0.2, 0.1, 0.02), ("k20-m50", 0.3, 0.1, 0.02))])
    notes = pd.DataFrame([{"table": "text", "dataset": "bbcsport", "method": "repset", "lead": "the seed (one per split)",
                           "measurement": "five seeds", "result": "a spread of 1.2", "finding": "partly explains"}])
    return ours, runs, notes


def test_the_report_opens_with_the_findings_and_links_every_cell_to_its_section(tmp_path):
    from repset.report.document import result_tables, write_report

    ours, runs, notes = _record()
    config = copy.deepcopy(CONFIG)
    config["datasets"] = {"text": ["bbcsport", "twitter"], "graph": ["MUTAG"]}
    tables = result_tables(ours, None, ["bbcsport", "twitter"], ["MUTAG"])
    path = write_report(tmp_path / "REPORT.md", config=config, ours=ours, tables=tables, store_metas={}, notes=notes,
                        runs=runs, extra_sections=[("Validation ties in the grid choice", "from an older script")])
    text, cells = path.read_text(), (tmp_path / "cells.md").read_text()
    lines = text.splitlines()
    sections = [line for line in lines if line.startswith("## ")]
    assert sections[:3] == ["## Findings", "## Setup", "## Text categorisation: test error (%)"]
    first = "\n".join(lines[:60])
    assert "| on | claim | verdict | numbers |" in first and first.count("\n| ") >= 16     # header, rule, 15 claims
    assert "(no cell" not in first and "Text: of " in first
    heads = {anchor(h) for h in re.findall(r"^#+ (.+)$", cells, re.M)}
    links = re.findall(r"\]\(cells\.md#([\w-]+)\)", text)
    assert len(set(links)) == len(ours) and set(links) <= heads                 # every cell, each to its section
    assert "| solver | numba" in text and "{'" not in text
    assert "## Validation ties in the grid choice" in cells and "from an older script" not in text + cells
    assert "BBCSPORT: RepSet" in cells and "partly explained: the seed" in cells


def test_a_note_of_an_earlier_store_speaks_for_no_cell(tmp_path):
    """The same note tied to the store the cell's records read tells the cell's story; tied to another, it is set
    aside: neither on the cell page nor in the findings, but counted under "Paper vs reproduced"."""
    from repset.report.document import result_tables, write_report

    ours, runs, notes = _record()
    config = copy.deepcopy(CONFIG)
    config["datasets"] = {"text": ["bbcsport", "twitter"], "graph": ["MUTAG"]}
    tables = result_tables(ours, None, ["bbcsport", "twitter"], ["MUTAG"])
    ours.loc[(ours["dataset"] == "bbcsport") & (ours["method"] == "repset"), "mean"] += 20.0   # outside 2 sigma
    training = pd.DataFrame([{"dataset": "bbcsport", "distinct_elements": False, "ragged": False, "max_elements": None,
                              "device": "cpu", "store": "a" * 64, "runs": 8}])
    for store, shown in (("a" * 12, True), ("b" * 12, False)):
        path = write_report(tmp_path / "REPORT.md", config=config, ours=ours, tables=tables, store_metas={},
                            notes=notes.assign(store=store), runs=runs, store_sha256={"bbcsport": "c" * 64},
                            training=training)     # the runs' store decides, not the store read here
        text, cells = path.read_text(), (tmp_path / "cells.md").read_text()
        findings = text.split("## Setup")[0]
        assert "BBCSPORT RepSet" in findings
        assert ("partly explained: the seed" in cells) is shown and ("partly explained: the seed" in findings) is shown
        assert ("Notes set aside, measured on another store of their dataset than its records read (`store` in "
                "`cell_notes`): bbcsport 1 (store bbbbbbbbbbbb)." in text) is not shown


def test_the_committed_report_is_short_and_opens_with_every_claim():
    """reproduction/report/REPORT.md as the report rule wrote it from the record: under 60 KB, its findings within
    its first 60 lines, each cell linked to its section of reproduction/report/cells.md."""
    report = ROOT / "reproduction" / "report" / "REPORT.md"
    text, cells = report.read_text(encoding="utf-8"), (report.parent / "cells.md").read_text(encoding="utf-8")
    assert len(text.encode()) < 60_000
    first = text.splitlines()[:60]
    assert [line for line in text.splitlines() if line.startswith("## ")][0] == "## Findings"
    claims = [line for line in first if line.startswith("| ") and line.count(" | ") >= 3][1:]
    assert len(claims) == 15 and all(any(f"| **{v}** |" in c for v in VERDICTS) for c in claims)
    heads = {anchor(h) for h in re.findall(r"^#+ (.+)$", cells, re.M)}
    links = set(re.findall(r"\]\(cells\.md#([\w-]+)\)", text))
    assert links and links <= heads
