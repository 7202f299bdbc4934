"""The paper's claims judged on a small fixture record: each claim's verdict where ours agrees with it, where it
partly does, where it does not, and where nothing was run."""
import pandas as pd
import pytest

from repset.report.claims import ALIGNED, CONSIDERABLY, GROWTH_EXPONENT, agreement, paper_claims
from repset.report.document import ranks

METHODS = ["repset", "approx_repset", "wmd", "deepsets", "nn_mean", "nn_max", "nn_attention", "set_transformer"]
TEXT = ["bbcsport", "twitter", "ohsumed", "classic", "reuters"]


def text_record(**changes: dict) -> dict:
    """Test error (%) per text dataset and method, as the paper says it goes: RepSet lowest but on OHSUMED and CLASSIC
    (WMD lowest there), ApproxRepSet below RepSet on REUTERS only; ``changes`` (dataset -> method -> mean) apply."""
    values = {d: dict(zip(METHODS, [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0])) for d in TEXT}
    for d in ("ohsumed", "classic"):
        values[d]["wmd"] = 5.0
    values["reuters"]["approx_repset"] = 9.0
    for dataset, methods in changes.items():
        values.setdefault(dataset, {}).update(methods)
    return values


def graph_record(**changes: dict) -> dict:
    """Accuracy (%) per graph dataset and method as the paper's claims have it (ranks among every method of its
    graph table, the reported-only baselines at the paper's numbers)."""
    base = dict(zip(METHODS[:2] + METHODS[3:], [0.0] * 7))
    values = {"MUTAG": {**base, "repset": 89.5, "approx_repset": 80.0},           # 2nd, behind RetGK's 90.30
              "IMDB-BINARY": {**base, "repset": 80.0, "approx_repset": 75.0},     # 1st
              "IMDB-MULTI": {**base, "repset": 60.0, "approx_repset": 55.0, "set_transformer": 70.0},   # 2nd
              "PROTEINS": {**base, "repset": 70.0, "approx_repset": 69.0, "nn_mean": 72.0, "nn_attention": 80.0},
              "REDDIT-BINARY": {**base, "repset": 90.0, "approx_repset": 85.0, "nn_attention": 95.0}}   # 3rd
    for dataset, methods in changes.items():
        values[dataset].update(methods)
    return values


def ours(text: dict, graph: dict) -> pd.DataFrame:
    rows = [{"table": table, "dataset": d, "method": m, "mean": v, "std": 0.5, "std_over": "splits", "source": "ours"}
            for table, values in (("text", text), ("graph", graph)) for d, methods in values.items()
            for m, v in methods.items() if not (table == "graph" and m == "wmd")]
    return pd.DataFrame(rows)


def runtime(**growth: float) -> pd.DataFrame:
    """Epoch seconds at the two ends of each sweep (the parameter x16): DeepSets 1 s, ApproxRepSet 2 s and RepSet
    8 s at the first point, each growing by ``growth[f"{variant}:{parameter}"]`` (default: RepSet x16 but over N,
    the others x1)."""
    start = {"deepsets": 1.0, "approx_repset": 2.0, "repset/numba": 8.0}
    rows = []
    for parameter in ("m", "hidden_set_size", "d", "n_sets", "set_size"):
        for variant, seconds in start.items():
            factor = growth.get(f"{variant}:{parameter}", 16.0 if variant == "repset/numba" and parameter != "n_sets"
                                else 1.0)
            rows += [{"parameter": parameter, "value": 10, "variant": variant, "epoch_seconds": seconds},
                     {"parameter": parameter, "value": 160, "variant": variant, "epoch_seconds": seconds * factor}]
    return pd.DataFrame(rows)


def study(trained: float, moved: float, chance: float = 0.2) -> pd.DataFrame:
    rows = [("BBCSPORT", "uniform", 0.97, trained, moved, chance), ("BBCSPORT", "small", 0.5, 0.5, 0.5, chance)]
    return pd.DataFrame(rows, columns=["dataset", "init", "cos to start", "align trained", "align moved",
                                       "align chance"]).set_index(["dataset", "init"])


def twitter_runs(spread: float) -> pd.DataFrame:
    """RepSet's grid on TWITTER (|Y| 10 and 20, m 20 and 50), the test error moving by ``spread`` points over m."""
    return pd.DataFrame([{"dataset": "twitter", "model": "repset", "split": s, "point": f"k{k}-m{m}", "seed": 0,
                          "test_error": (0.25 + (spread / 100 if m == 50 else 0))} for s in range(2) for k in (10, 20)
                         for m in (20, 50)])


def verdicts(record: pd.DataFrame, **inputs) -> dict[str, str]:
    claims = paper_claims(record, ranks(record, ["repset", "approx_repset"]), **inputs)
    return dict(zip(claims["claim"], claims["verdict"]))


def by_start(found: dict[str, str], start: str) -> str:
    (verdict,) = [v for claim, v in found.items() if claim.startswith(start)]
    return verdict


def test_agreement_holds_partly_or_not():
    assert [agreement(a) for a in ([True, True], [True, False], [True, False, False], [False], [])] == [
        "holds", "partly", "does not hold", "does not hold", "not measured"]


def test_every_claim_holds_on_a_record_that_agrees_with_the_paper():
    found = verdicts(ours(text_record(), graph_record()), runtime=runtime(), study=study(0.4, 0.4),
                     study_baseline="uniform", runs=twitter_runs(2.0))
    assert len(found) == 15 and set(found.values()) == {"holds"}, found


@pytest.mark.parametrize("start, text, graph, verdict", [
    # one dataset of five against the claim: partly; three: does not hold
    ("RepSet or ApproxRepSet has the lowest", {"bbcsport": {"nn_max": 2.0}}, {}, "partly"),
    ("RepSet or ApproxRepSet has the lowest", {d: {"wmd": 1.0} for d in ("bbcsport", "twitter", "reuters")}, {},
     "does not hold"),
    ("RepSet beats DeepSets", {"bbcsport": {"nn_max": 2.0}}, {}, "partly"),
    ("RepSet has a lower error than ApproxRepSet", {"reuters": {"approx_repset": 12.0}}, {}, "partly"),
    ("RepSet's error is below S-WMD's", {"20ng": {"repset": 40.0}}, {}, "partly"),       # TWITTER below, 20NG not
    ("RepSet ranks first on IMDB-BINARY", {}, {"IMDB-BINARY": {"repset": 70.0}, "MUTAG": {"repset": 80.0},
                                              "IMDB-MULTI": {"repset": 40.0}}, "does not hold"),
    ("RepSet ranks first on IMDB-BINARY", {}, {"IMDB-BINARY": {"repset": 70.0}}, "partly"),
    ("NN-attention beats RepSet", {}, {"REDDIT-BINARY": {"nn_attention": 60.0}}, "partly"),
    ("The Set Transformer beats both", {}, {"MUTAG": {"set_transformer": 95.0}}, "partly"),
    ("The Set Transformer beats both", {}, {d: {"set_transformer": 99.0} for d in
                                            ("MUTAG", "PROTEINS", "REDDIT-BINARY")}, "does not hold"),
    ("On PROTEINS every baseline", {}, {"PROTEINS": {"nn_max": 75.0}}, "partly"),
])
def test_a_claim_against_the_record_is_partly_or_not_held(start, text, graph, verdict):
    found = verdicts(ours(text_record(**text), graph_record(**graph)))
    assert by_start(found, start) == verdict
    unchanged = verdicts(ours(text_record(), graph_record()))
    assert by_start(unchanged, start) == "holds"


def test_the_runtime_claims_follow_the_sweeps():
    assert GROWTH_EXPONENT == 0.5 and CONSIDERABLY == 2.0
    slow = runtime(**{f"repset/numba:{p}": 2.5 for p in ("m", "hidden_set_size", "d", "n_sets", "set_size")})
    found = verdicts(ours(text_record(), graph_record()), runtime=slow)
    # RepSet 8 s against ApproxRepSet 2 s at each first point, 20 s against 2 s at each last: 4-10x, considerably
    assert by_start(found, "ApproxRepSet trains considerably faster") == "holds"
    assert by_start(found, "RepSet's epoch grows markedly with m") == "partly"            # RepSet x2.5 over x16: 0.33
    assert by_start(found, "RepSet's epoch grows markedly with the input") == "partly"    # |X| no, N slowly yes
    close = runtime(**{"approx_repset:m": 100.0, "deepsets:d": 16.0})
    found = verdicts(ours(text_record(), graph_record()), runtime=close)
    assert by_start(found, "ApproxRepSet trains considerably faster") == "partly"   # the last m: 200 s against 128
    assert by_start(found, "DeepSets trains fastest") == "partly"                   # not at the last m nor the last d
    assert by_start(found, "RepSet's epoch grows markedly with m") == "partly"      # ApproxRepSet x100 over m
    assert by_start(found, "RepSet's epoch grows markedly with the dimension") == "partly"   # DeepSets x16 over d
    inverted = runtime(**{"deepsets:m": 100.0, "deepsets:hidden_set_size": 100.0, "deepsets:d": 100.0,
                          "deepsets:n_sets": 100.0, "deepsets:set_size": 100.0})
    assert by_start(verdicts(ours(text_record(), graph_record()), runtime=inverted), "DeepSets trains fastest") == "partly"


def test_the_latent_set_claim_reads_the_initialisation_study():
    assert ALIGNED == 1.5
    record = ours(text_record(), graph_record())
    for trained, moved, verdict in ((0.4, 0.1, "holds"), (0.25, 0.35, "partly"), (0.25, 0.25, "does not hold")):
        found = verdicts(record, study=study(trained, moved), study_baseline="uniform")
        assert by_start(found, "RepSet's hidden sets are interpretable") == verdict
    claims = paper_claims(record, ranks(record), study=study(0.25, 0.25), study_baseline="uniform")
    numbers = claims.set_index("section").loc["latent sets", "numbers"]
    assert "cosine 0.970" in numbers and "init small: elements 0.500" in numbers


def test_the_sensitivity_claim_counts_the_rows_within_three_points():
    record = ours(text_record(), graph_record())
    assert by_start(verdicts(record, runs=twitter_runs(2.0)), "On TWITTER") == "holds"
    assert by_start(verdicts(record, runs=twitter_runs(4.0)), "On TWITTER") == "does not hold"


def test_a_claim_without_its_input_is_not_measured_and_says_why():
    record = ours({"amazon": {"repset": 5.0}}, {})
    claims = paper_claims(record, ranks(record)).set_index("claim")
    measured = claims[claims["verdict"] != "not measured"]
    assert measured.index.str.startswith(("RepSet or ApproxRepSet", "RepSet beats")).all() and len(measured) == 2
    assert set(measured["verdict"]) == {"holds"}                                # AMAZON: RepSet alone, lowest
    assert claims.loc[claims.index.str.startswith("ApproxRepSet trains"), "numbers"].item() == \
        "no runtime sweep in this report"
    assert claims.loc[claims.index.str.startswith("RepSet's error is below"), "numbers"].item() == \
        "points below S-WMD's reported error (S-WMD is not run here); not run here: 20NG, TWITTER, RECIPE"


def test_the_numbers_mark_each_dataset_and_give_ours_beside_the_papers():
    record = ours(text_record(bbcsport={"nn_max": 2.0}), graph_record(**{"IMDB-BINARY": {"repset": 70.0}}))
    claims = paper_claims(record, ranks(record)).set_index("claim")
    first = claims.loc[claims.index.str.startswith("RepSet or ApproxRepSet"), "numbers"].item()
    assert first.startswith("✓ TWITTER lowest (RepSet 10.00, WMD 12.00)")
    assert "✗ BBCSPORT not lowest (RepSet 10.00, NN-max 2.00)" in first
    assert first.endswith("; not run here: RECIPE, AMAZON, 20NG")
    ranks_line = claims.loc[claims.index.str.startswith("RepSet ranks"), "numbers"].item()
    assert ranks_line.startswith("RepSet's rank here: ✓ IMDB MULTI 2 of") and "✗ IMDB BINARY" in ranks_line
    assert "(the paper 1)" in ranks_line
