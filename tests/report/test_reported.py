"""The paper's reported numbers: they load, cover every dataset and method, and equal the LaTeX tables."""
import os
import re
from pathlib import Path

import pytest
from repo_paths import ROOT

from repset.layers import LAYERS
from repset.report.reported import load_reported_yaml, parse_cell, reported_results

TEXT = ["bbcsport", "twitter", "recipe", "ohsumed", "classic", "reuters", "amazon", "20ng"]
GRAPH = ["MUTAG", "PROTEINS", "IMDB-BINARY", "IMDB-MULTI", "REDDIT-BINARY"]
COMPUTED = ["deepsets", "nn_mean", "nn_max", "nn_attention", "set_transformer", "repset", "approx_repset"]


def _paper_tex() -> Path | None:
    candidates = [os.environ.get("REPSET_PAPER_TEX", ""), ROOT / "shared/paper/rep-the-set-aistats2020.tex",
                  ROOT.parent / "shared/paper/rep-the-set-aistats2020.tex"]
    return next((Path(c) for c in candidates if c and Path(c).is_file()), None)


def test_loads_with_source_and_metrics():
    df = reported_results()
    assert set(df["source"]) == {"reported"} and len(df) == 133
    assert set(df.loc[df.table == "text", "metric"]) == {"test_error_pct"}
    assert set(df.loc[df.table == "graph", "metric"]) == {"accuracy_pct"}
    assert df["mean"].between(0, 100).all()
    assert df["citation"].notna().all() and df["citation_key"].notna().all()
    assert not df.duplicated(["table", "dataset", "method"]).any()


def test_covers_expected_datasets_and_methods():
    df = reported_results()
    text, graph = df[df.table == "text"], df[df.table == "graph"]
    assert set(text.dataset) == set(TEXT) and set(graph.dataset) == set(GRAPH)
    assert set(text.method) == {"wmd", "s_wmd", *COMPUTED}
    assert set(graph.method) == {"pscn", "deep_gr", "emd", "dgcnn", "saen", "retgk", "diffpool", *COMPUTED}
    for m in ["s_wmd", "pscn", "deep_gr", "emd", "dgcnn", "saen", "retgk", "diffpool"]:
        assert set(df.loc[df.method == m, "role"]) == {"reported_only"}
    assert set(df.loc[df.method.isin(["repset", "approx_repset"]), "role"]) == {"proposed"}
    assert set(df[df.computed_here].method) <= set(LAYERS) | {"wmd"}
    for m in COMPUTED:                      # every computed model has a paper number on every dataset
        assert len(df[df.method == m]) == len(TEXT) + len(GRAPH)
    assert set(graph[graph.method == "emd"].dataset) == {"MUTAG"}
    assert set(graph[graph.method == "diffpool"].dataset) == {"PROTEINS"}
    assert set(graph[graph.method == "dgcnn"].dataset) == set(GRAPH) - {"REDDIT-BINARY"}
    assert len(reported_results(include_missing=True)) == 8 * 9 + 5 * 14


def test_spot_values_and_missing_std():
    df = reported_results().set_index(["table", "method", "dataset"])
    assert df.loc[("text", "wmd", "bbcsport"), ["mean", "std"]].tolist() == [4.60, 0.70]
    assert df.loc[("text", "repset", "20ng"), "mean"] == 22.98 and df.loc[("text", "repset", "20ng"), "std"] is None
    assert df.loc[("text", "deepsets", "bbcsport"), "std"] == 20.1
    assert df.loc[("graph", "diffpool", "PROTEINS"), ["mean", "std"]].tolist() == [76.25, None]
    assert df.loc[("graph", "set_transformer", "REDDIT-BINARY"), ["mean", "std"]].tolist() == [83.79, 0.83]
    assert df.loc[("graph", "retgk", "MUTAG"), "mean"] == 90.30
    text = df.loc["text"]
    no_std = text[text["std"].isna()].index.get_level_values("dataset")
    assert set(no_std) == {"ohsumed", "reuters", "20ng"}


def test_parse_cell():
    assert parse_cell("4.60 +- 0.70") == (4.6, 0.7)
    assert parse_cell(" 44.50 ") == (44.5, None)
    assert parse_cell("-") is None
    with pytest.raises(ValueError, match="cannot parse"):
        parse_cell("4.60 ± x")


def _latex_rows(tex: str, label: str) -> dict[str, list[list[float]]]:
    """Rows of the table with ``label``: {row label: per cell, the numbers in it}."""
    tables = re.findall(r"\\begin\{table\*\}(.*?)\\end\{table\*\}", tex, flags=re.S)
    body = next(t for t in tables if f"\\label{{{label}}}" in t)
    rows = {}
    for line in body.splitlines():
        line = line.strip()
        if line.startswith("%") or "&" not in line:
            continue
        cells = [c.strip() for c in line.rstrip("\\ ").split("&")]
        numbers = [[float(x) for x in re.findall(r"\d+\.\d+", c)] for c in cells[1:]]
        if any(numbers):                    # header lines hold no decimal numbers
            rows[cells[0].replace("$", "").strip()] = numbers
    return rows


def test_numbers_equal_the_papers_latex_tables():
    path = _paper_tex()
    if path is None:
        pytest.skip("paper LaTeX not available (set REPSET_PAPER_TEX)")
    tex = path.read_text(encoding="utf-8")
    data = load_reported_yaml()
    for spec in data["tables"].values():
        latex = _latex_rows(tex, spec["label"])
        assert len(latex) == len(spec["rows"])
        for row in spec["rows"]:
            parsed = [parse_cell(c) for c in row["cells"]]
            ours = [[] if p is None else [p[0]] + ([p[1]] if p[1] is not None else []) for p in parsed]
            assert ours == latex[row["label"]], row["label"]
