"""REPORT.md says how it was produced and how far its config is from the paper's protocol."""
import copy
import math

import pandas as pd
import yaml
from repo_paths import ROOT

from repset.report.document import config_file_names, protocol_differences, read_training, recorded_training

CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())


def test_the_default_config_departs_only_by_recipe():
    # RECIPE exists only in the WMD authors' .mat files, which are not public
    assert protocol_differences(copy.deepcopy(CONFIG)) == ["text datasets left out: recipe"]


def test_a_reduced_profile_is_named_as_such():
    config = copy.deepcopy(CONFIG)
    config["protocol"].update(text_splits=1, graph_splits=10, grid_splits=1)
    config["models"]["repset"]["grid"] = {"n_hidden_sets": [10, 20], "hidden_set_size": [5, 10]}
    config["datasets"] = {"text": ["bbcsport", "twitter"], "graph": ["MUTAG"]}
    found = protocol_differences(config)
    assert "protocol.text_splits = 1 (paper: 5)" in found and "protocol.graph_splits = 10 (paper: 100)" in found
    assert "protocol.grid_splits = 1 (paper: every split)" in found
    assert any(d.startswith("models.repset.grid") for d in found)
    assert any(d.startswith("graph datasets left out: IMDB-BINARY") for d in found)


REDDIT_LINE = ("REDDIT-BINARY: 10 of the 10 x 10 folds (the first repetition), the grid searched on the first "
               "split only, later splits train the point chosen there")


def test_a_per_dataset_reduction_is_a_departure_naming_the_dataset(tmp_path):
    import pandas as pd

    from repset.report.document import write_report

    config = copy.deepcopy(CONFIG)
    config["protocol"]["per_dataset"] = {"reddit-binary": {"graph_splits": 10, "grid_splits": 1}}
    assert protocol_differences(config) == [REDDIT_LINE, "text datasets left out: recipe"]
    # an override that keeps the paper's protocol for its dataset departs from nothing
    config["protocol"]["per_dataset"] = {"MUTAG": {"graph_splits": 100, "grid_splits": None}}
    assert protocol_differences(config) == ["text datasets left out: recipe"]
    config["protocol"]["per_dataset"] = {"REDDIT-BINARY": {"graph_splits": 10, "grid_splits": 1},
                                      "bbcsport": {"text_splits": 2}}
    empty = pd.DataFrame(columns=["table", "dataset", "method", "mean", "std", "std_over", "source"])
    text = write_report(tmp_path / "REPORT.md", config=config, ours=empty, tables={"text": pd.DataFrame(),
                        "graph": pd.DataFrame()}, store_metas={}).read_text()
    departures = text.split("**Departures from the paper's protocol:** ")[1].split("\n")[0]
    assert REDDIT_LINE in departures and "bbcsport: 2 of the 5 splits" in departures
    splits = next(line for line in text.splitlines() if line.startswith("- splits:"))
    assert f"; {REDDIT_LINE.replace(':', ' (`protocol.per_dataset`):', 1)}" in splits


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


def test_config_files_are_named_relative_to_the_repository_never_by_a_machine_path(tmp_path, monkeypatch):
    repo, outside = tmp_path / "clone", tmp_path / "elsewhere"
    (repo / "profiles").mkdir(parents=True)
    outside.mkdir()
    (repo / "profiles" / "quick.yaml").write_text("a: 1\n")
    (outside / "mine.yaml").write_text("b: 2\n")
    monkeypatch.chdir(repo / "profiles")
    names = config_file_names(["quick.yaml", repo / "config.yaml", outside / "mine.yaml"], repo)
    assert names[:2] == ["profiles/quick.yaml", "config.yaml"]
    assert names[2] == "mine.yaml (outside the repository, sha256 d4eed209fa44)"
    assert not any(str(tmp_path) in n for n in names)


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


def test_the_setup_names_each_recorded_training_path_and_the_runs_per_device(tmp_path):
    training = pd.DataFrame({"dataset": ["NA", "amazon", "bbcsport", "MUTAG", "MUTAG"],
                             "distinct_elements": [False, False, True, False, False], "ragged": [False] * 4 + [True],
                             "max_elements": pd.array([None, None, None, 65536, 65536], dtype="Int64"),
                             "device": ["cpu", "cpu", "cpu", "cpu", "cuda"], "runs": [1, 145, 145, 1658, 1242]})
    training.to_csv(tmp_path / "training.csv", index=False)
    read = read_training(tmp_path / "training.csv")            # a dataset named "NA" stays a name; "" is no bound
    pd.testing.assert_frame_equal(read, training, check_dtype=False)
    assert recorded_training(read) == (
        "- training as recorded (the runs' `train_config` and store): padded batches, at most 65,536 elements per "
        "batch: MUTAG (1,658); padded batches, no element bound: NA (1), amazon (145); padded batches, ragged "
        "(groups of similar size), at most 65,536 elements per batch: MUTAG (1,242); each batch's distinct elements "
        "(matching layers), no element bound: bbcsport (145); runs per device: cpu 1,949, cuda 1,242")


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


def test_the_setup_names_the_stores_the_runs_read_and_the_title_any_disagreement(tmp_path):
    """Each dataset's runs name the store they read (training.csv's ``store``); a dataset whose runs name two
    stores, none, or another store than the one the report reads is stated under the title, never hidden."""
    from repset.report.document import recorded_stores, write_report

    a, b, c = "a" * 64, "b" * 64, "c" * 64
    training = pd.DataFrame({"dataset": ["MUTAG", "MUTAG", "PROTEINS", "bbcsport", "twitter"],
                             "distinct_elements": [False] * 5, "ragged": [False] * 5,
                             "max_elements": pd.array([65536, 65536, 65536, None, None], dtype="Int64"),
                             "device": ["cpu", "cuda", "cpu", "cpu", "cpu"], "store": [a, a, b, c, ""],
                             "runs": [1658, 1242, 2900, 145, 145]})
    training.to_csv(tmp_path / "training.csv", index=False)
    read = read_training(tmp_path / "training.csv")
    assert read["store"].tolist() == [a, a, b, c, ""]
    line, problems = recorded_stores(read, {"MUTAG": a, "PROTEINS": b, "bbcsport": a})
    assert line == ("- stores as recorded (the sha256 each run's record names, first 12 hex digits): MUTAG "
                    f"{a[:12]} (2,900); PROTEINS {b[:12]} (2,900); bbcsport {c[:12]} (145); twitter none named (145)")
    assert problems == [f"bbcsport's runs name {c[:12]}; the store read here is {a[:12]}",
                        "the runs of twitter name no store"]
    two = pd.concat([read, read.iloc[[2]].assign(store=c, runs=3)], ignore_index=True)
    assert f"the runs of PROTEINS name 2 stores ({b[:12]}: 2,900 runs, {c[:12]}: 3 runs)" in recorded_stores(two)[1]
    # agreeing records and stores: a Setup line, nothing under the title; a table of before the column: no line
    agreeing = read.iloc[:3]
    assert recorded_stores(agreeing, {"MUTAG": a, "PROTEINS": b})[1] == []
    assert recorded_stores(read.drop(columns="store")) == ("", [])
    empty = pd.DataFrame(columns=["table", "dataset", "method", "mean", "std", "std_over", "source"])
    tables = {"text": pd.DataFrame(), "graph": pd.DataFrame()}
    text = write_report(tmp_path / "REPORT.md", config=copy.deepcopy(CONFIG), ours=empty, tables=tables,
                        store_metas={}, training=read, store_sha256={"bbcsport": a}).read_text()
    title = text.split("## Setup")[0]
    assert f"**Records and stores disagree:** bbcsport's runs name {c[:12]}; the store read here is {a[:12]}" in title
    assert line in text.split("## Setup")[1]
    text = write_report(tmp_path / "REPORT.md", config=copy.deepcopy(CONFIG), ours=empty, tables=tables,
                        store_metas={}, training=agreeing, store_sha256={"MUTAG": a, "PROTEINS": b}).read_text()
    assert "disagree" not in text and "- stores as recorded" in text


def test_a_per_dataset_embedding_setting_is_an_input_difference():
    from repset.report.document import embedding_differences

    config = copy.deepcopy(CONFIG)
    assert embedding_differences(config) == ["REDDIT-BINARY: struc2vec walks_per_node 1, epochs 1 "
                                             "(the other graph datasets: 10, 5)"]
    config["datasets"]["graph"] = ["MUTAG", "PROTEINS"]          # only the config's datasets are named
    assert embedding_differences(config) == []
    config["struc2vec"]["per_dataset"] = {"mutag": {"dim": 20, "hs": True}}   # a key equal to the default is no difference
    assert embedding_differences(config) == ["MUTAG: struc2vec hs True (the other graph datasets: the default)"]


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
    assert "<h2>Where your model stands</h2>" in page and "<td>2-3</td>" in page
    plain = write_report(tmp_path / "REPORT.md", config=copy.deepcopy(CONFIG), ours=empty, tables=tables,
                         store_metas={}).read_text()
    assert "Where your model stands" not in plain
