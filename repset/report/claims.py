"""The paper's claims about its results, each judged against the records: one row per claim with a verdict and the
numbers behind it (REPORT.md's findings, :mod:`repset.report.findings`).

What a claim says is a fact of the paper (Skianis et al., AISTATS 2020: which datasets, which ranks, which
models); whether it holds here is computed from our numbers, never written down. A claim about several datasets
(or sweep points, or checks) gets :func:`agreement`: **holds** where every one agrees with the paper's statement,
**partly** where at least half do, **does not hold** where fewer do; **not measured** where none was run here.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import pandas as pd

from repset.datasets.registry import get_spec
from repset.report.reported import reported_results
from repset.report.tables import DISPLAY, VARIANTS

__all__ = ["VERDICTS", "NOT_JUDGED", "GROWTH_EXPONENT", "CONSIDERABLY", "ALIGNED", "SENSITIVITY_POINTS", "agreement",
           "paper_claims"]

VERDICTS = ("holds", "partly", "does not hold", "not measured")
#: a time grows "markedly" with a parameter when it scales at least as its square root (log-log slope between the
#: sweep's ends), "slowly" below that
GROWTH_EXPONENT = 0.5
#: "considerably faster": the median ratio of epoch times at least this
CONSIDERABLY = 2.0
#: hidden elements "point to the classes" when their mean largest cosine with a class direction is at least this
#: multiple of random vectors' (the initialisation study's ``align chance``)
ALIGNED = 1.5
#: "m matters little" on TWITTER: the test error moves by at most this many points across m, for most |Y|
SENSITIVITY_POINTS = 3.0

#: DeepSets and its variants, and the Set Transformer: the neural baselines of both tables
NEURAL = ("deepsets", "nn_mean", "nn_max", "nn_attention", "set_transformer")
PROPOSED = ("repset", "approx_repset")
#: what the findings say of the paper's statements about its results that no number here can judge
NOT_JUDGED = ("Not judged, for want of a measurable criterion: that the proposed models are on par with the state of "
              "the art, that RepSet stays competitive on MUTAG without node labels, that DeepSets and its variants come "
              "close, and the supplement's toy example (not part of this report).")
#: the paper's graph-table ranks of RepSet (1 = best)
GRAPH_RANKS = {"IMDB-BINARY": 1, "IMDB-MULTI": 2, "REDDIT-BINARY": 3, "MUTAG": 3}


def agreement(agrees: Sequence[bool]) -> str:
    """The verdict of a claim over several units (datasets, points, checks), each True where ours agrees with it."""
    if not len(agrees):
        return "not measured"
    n = sum(bool(a) for a in agrees)
    return "holds" if n == len(agrees) else "does not hold" if 2 * n < len(agrees) else "partly"


@lru_cache(maxsize=1)
def _labels() -> dict[str, str]:
    """The paper's name of each method it reports (PSCN k=10, ...)."""
    paper = reported_results()
    return dict(zip(paper["method"], paper["method_label"]))


def _name(method: str) -> str:
    return DISPLAY.get(method) or _labels().get(method, method)


def _d(dataset: str) -> str:
    return get_spec(dataset).display


def _means(frame: pd.DataFrame, table: str) -> dict[str, dict[str, float]]:
    """dataset -> method -> mean of the paper's methods in ``frame`` (``ours_long`` rows or the paper's)."""
    part = frame[(frame["table"] == table) & frame["mean"].notna()]
    out: dict[str, dict[str, float]] = {}
    for r in part.itertuples():
        out.setdefault(get_spec(r.dataset).name, {})[r.method] = float(r.mean)
    return out


def _row(section: str, claim: str, outcomes: Sequence[tuple[bool, str]], lead: str = "", tail: str = "",
         verdict: str | None = None) -> dict:
    """A claim's row from its units' ``outcomes`` (agrees with the claim, what ours shows): the verdict
    (:func:`agreement` unless given) and the numbers: ``lead``, each unit marked ✓ (agrees) or ✗, those that agree
    first, then ``tail``."""
    units = [f"✓ {text}" for ok, text in outcomes if ok] + [f"✗ {text}" for ok, text in outcomes if not ok]
    numbers = "; ".join(part for part in (f"{lead}: " * bool(lead and units) + ", ".join(units) or lead, tail) if part)
    return {"section": section, "claim": claim, "verdict": verdict or agreement([ok for ok, _ in outcomes]),
            "numbers": numbers or "not run here"}


def _best(values: dict[str, float], methods: Sequence[str], lower: bool) -> tuple[str, float] | None:
    present = [(m, values[m]) for m in methods if m in values]
    if not present:
        return None
    return (min if lower else max)(present, key=lambda mv: mv[1])


def _text_claims(ours: dict, paper: dict) -> list[dict]:
    datasets = [d for d in paper if d in ours and any(m in ours[d] for m in PROPOSED)]
    missing = [_d(d) for d in paper if d not in datasets]
    absent = f"not run here: {', '.join(missing)}" if missing else ""

    # a proposed model has the lowest error everywhere but OHSUMED and CLASSIC
    outcomes = []
    for d in datasets:
        own, other = _best(ours[d], PROPOSED, True), _best(ours[d], [m for m in ours[d] if m not in PROPOSED], True)
        wins = other is None or own[1] < other[1]
        shown = f"{_name(own[0])} {own[1]:.2f}" + ("" if other is None else f", {_name(other[0])} {other[1]:.2f}")
        outcomes.append((wins == (d not in ("ohsumed", "classic")),
                         f"{_d(d)} {'lowest' if wins else 'not lowest'} ({shown})"))
    rows = [_row("text", "RepSet or ApproxRepSet has the lowest error on every dataset but OHSUMED and CLASSIC "
                 "(six of eight)", outcomes, tail=absent)]

    # RepSet ahead of DeepSets, its variants and the Set Transformer on every dataset
    def ahead(values: dict) -> tuple[bool, tuple[str, float] | None]:
        rival = _best(values, NEURAL, True)
        return rival is None or values["repset"] < rival[1], rival
    outcomes = []
    for d in (d for d in datasets if "repset" in ours[d]):
        wins, rival = ahead(ours[d])
        outcomes.append((wins, _d(d) if wins else f"{_d(d)} ({_name(rival[0])} {rival[1]:.2f}, RepSet "
                                                   f"{ours[d]['repset']:.2f})"))
    own_table = [_d(d) for d in paper if "repset" in paper[d] and not ahead(paper[d])[0]]
    rows.append(_row("text", "RepSet beats DeepSets, NN-mean, NN-max, NN-attention and the Set Transformer on every "
                     "dataset", outcomes,
                     tail=f"the paper's own table: behind on {', '.join(own_table)}" if own_table else ""))

    # exact RepSet ahead of ApproxRepSet everywhere but REUTERS
    outcomes = []
    for d in (d for d in datasets if {"repset", "approx_repset"} <= set(ours[d])):
        exact = ours[d]["repset"] < ours[d]["approx_repset"]
        outcomes.append((exact == (d != "reuters"), f"{_d(d)} {'RepSet' if exact else 'ApproxRepSet'} lower "
                         f"({ours[d]['repset']:.2f} against {ours[d]['approx_repset']:.2f})"))
    rows.append(_row("text", "RepSet has a lower error than ApproxRepSet on every dataset but REUTERS", outcomes))

    # RepSet's gains over S-WMD, the best competitor, on 20NG, TWITTER and RECIPE (S-WMD: the paper's numbers)
    outcomes, unrun = [], []
    for d in ("20ng", "twitter", "recipe"):
        if "s_wmd" not in paper.get(d, {}):
            continue
        claimed = paper[d]["s_wmd"] - paper[d]["repset"]
        if "repset" in ours.get(d, {}):
            gain = paper[d]["s_wmd"] - ours[d]["repset"]
            outcomes.append((gain > 0, f"{_d(d)} {gain:+.2f} (the paper {claimed:+.2f})"))
        else:
            unrun.append(_d(d))
    rows.append(_row("text", "RepSet's error is below S-WMD's, the best competitor, on 20NG, TWITTER and RECIPE",
                     outcomes, lead="points below S-WMD's reported error (S-WMD is not run here)",
                     tail=f"not run here: {', '.join(unrun)}" if unrun else ""))
    return rows


def _graph_claims(ours: dict, paper: dict, ranked: pd.DataFrame) -> list[dict]:
    # RepSet's ranks among every method of the graph table
    mine = ranked[(ranked["table"] == "graph") & (ranked["method"] == "RepSet")].set_index("dataset")
    outcomes = [(int(mine.loc[_d(d), "rank ours"]) <= claimed,
                 f"{_d(d)} {int(mine.loc[_d(d), 'rank ours'])} of {int(mine.loc[_d(d), 'of'])} (the paper {claimed})")
                for d, claimed in GRAPH_RANKS.items() if _d(d) in mine.index]
    rows = [_row("graph", "RepSet ranks first on IMDB-BINARY, second on IMDB-MULTI, third on REDDIT-BINARY and "
                 "MUTAG, among every method of the graph table", outcomes, lead="RepSet's rank here")]

    def ahead_of_both(values: dict, method: str) -> tuple[bool, str] | None:
        if method not in values or not all(m in values for m in PROPOSED):
            return None
        return values[method] > max(values[m] for m in PROPOSED), (
            f"{values[method]:.2f} against RepSet {values['repset']:.2f}, ApproxRepSet {values['approx_repset']:.2f}")

    # NN-attention ahead of both proposed models on PROTEINS and REDDIT-BINARY
    outcomes = []
    for d in ("PROTEINS", "REDDIT-BINARY"):
        found = ahead_of_both(ours.get(d, {}), "nn_attention")
        if found is not None:
            outcomes.append((found[0], f"{_d(d)} {'ahead' if found[0] else 'behind'} ({found[1]})"))
    rows.append(_row("graph", "NN-attention beats RepSet and ApproxRepSet on PROTEINS and REDDIT-BINARY", outcomes))

    # the Set Transformer ahead of both on IMDB-MULTI only
    outcomes = []
    for d, values in ours.items():
        found = ahead_of_both(values, "set_transformer")
        if found is not None:
            outcomes.append((found[0] == (d == "IMDB-MULTI"),
                             f"{_d(d)} {'ahead' if found[0] else 'behind'}" + (f" ({found[1]})" if found[0] else "")))
    rows.append(_row("graph", "The Set Transformer beats both proposed models on IMDB-MULTI only", outcomes))

    # on PROTEINS both proposed models trail every baseline but DeepSets, NN-max and the Set Transformer
    here, outcomes = dict(ours.get("PROTEINS", {})), []
    if all(m in here for m in PROPOSED):
        top = max(here[m] for m in PROPOSED)
        for method, value in {**paper.get("PROTEINS", {}), **here}.items():   # reported-only: the paper's numbers
            if method in PROPOSED or (method not in here and method in NEURAL):
                continue
            wins = value > top
            outcomes.append((wins == (method not in ("deepsets", "nn_max", "set_transformer")),
                             f"{_name(method)} {value:.2f} {'ahead' if wins else 'behind'}"))
    rows.append(_row("graph", "On PROTEINS every baseline but DeepSets, NN-max and the Set Transformer beats both "
                     "proposed models", outcomes,
                     lead=f"RepSet {here['repset']:.2f}, ApproxRepSet {here['approx_repset']:.2f}" if outcomes else ""))
    return rows


#: runtime sweep parameter -> its symbol
SYMBOL = {"m": "m", "hidden_set_size": "|Y|", "d": "d", "n_sets": "N", "set_size": "|X|"}


def _exponent(sweep: pd.Series) -> float:
    """Log-log slope of a sweep's epoch seconds (index: the parameter's values) between its first and last point."""
    sweep = sweep.dropna().sort_index()
    return math.log(sweep.iloc[-1] / sweep.iloc[0]) / math.log(sweep.index[-1] / sweep.index[0])


def _runtime_claims(runtime: pd.DataFrame | None, solver: str) -> list[dict]:
    claims = ["ApproxRepSet trains considerably faster than RepSet",
              "DeepSets trains fastest, ApproxRepSet next, RepSet slowest",
              "RepSet's epoch grows markedly with m and |Y|, ApproxRepSet's little",
              "RepSet's epoch grows markedly with the input sets' size |X|, slowly with their number N",
              "RepSet's epoch grows markedly with the dimension d, DeepSets' and ApproxRepSet's slowly"]
    variants = set(runtime["variant"]) if runtime is not None and len(runtime) else set()
    exact = f"repset/{solver}" if f"repset/{solver}" in variants else min(
        (v for v in variants if v.startswith("repset")), default=None)
    if exact is None or not {"approx_repset", "deepsets"} <= variants:
        return [_row("runtime", c, [], tail="no runtime sweep in this report") for c in claims]
    wide = runtime.pivot_table(index=["parameter", "value"], columns="variant", values="epoch_seconds")
    wide = wide.rename(columns={exact: "repset"})[["repset", "approx_repset", "deepsets"]]
    ratio = wide["repset"] / wide["approx_repset"]
    faster = int((ratio > 1).sum())
    first = ("holds" if faster == len(ratio) and ratio.median() >= CONSIDERABLY
             else "partly" if 2 * faster >= len(ratio) else "does not hold")
    order = (wide["deepsets"] < wide["approx_repset"]) & (wide["approx_repset"] < wide["repset"])
    fastest = wide.idxmin(axis=1).value_counts()
    sweeps = list(wide.index.unique(0))
    slope = {(p, v): _exponent(wide.loc[p, v]) for p in sweeps for v in wide.columns}

    def checks(pairs: Sequence[tuple[str, str, bool]]) -> list[tuple[bool, str]]:
        """(sweep, variant, grows markedly as claimed) -> outcomes, each shown as ``variant ~ p^exponent``."""
        return [((slope[(p, v)] >= GROWTH_EXPONENT) == marked, f"{_name(v)} ∝ {SYMBOL.get(p, p)}^{slope[(p, v)]:.2f}")
                for p, v, marked in pairs if (p, v) in slope]
    growth = f"epoch time ∝ parameter^exponent between the sweep's ends; markedly: at least {GROWTH_EXPONENT:g}"
    spans = ", ".join(f"{SYMBOL.get(p, p)} {wide.loc[p].index.min()}-{wide.loc[p].index.max()}" for p in sweeps)
    return [
        _row("runtime", claims[0], [], verdict=first,
             tail=f"ApproxRepSet faster at {faster} of {len(ratio)} sweep points ({spans}; one CPU), "
                  f"{ratio.min():.2f}-{ratio.max():.2f}x (median {ratio.median():.1f}x; considerably: at least "
                  f"{CONSIDERABLY:g}x) against RepSet with the {exact.split('/')[-1]} solver"),
        _row("runtime", claims[1], [], verdict=agreement(order.tolist()),
             tail=f"in that order at {int(order.sum())} of {len(order)} points; fastest: "
                  + ", ".join(f"{_name(v)} at {n}" for v, n in fastest.items())),
        _row("runtime", claims[2], checks([("m", "repset", True), ("hidden_set_size", "repset", True),
                                           ("m", "approx_repset", False), ("hidden_set_size", "approx_repset", False)]),
             tail=growth),
        _row("runtime", claims[3], checks([("set_size", "repset", True), ("n_sets", "repset", False)]), tail=growth),
        _row("runtime", claims[4], checks([("d", "repset", True), ("d", "deepsets", False),
                                           ("d", "approx_repset", False)]), tail=growth),
    ]


def _latent_claim(study: pd.DataFrame | None, baseline: str | None) -> dict:
    claim = ("RepSet's hidden sets are interpretable: trained on BBCSPORT (m 50, |Y| 20), their elements and centroids "
             "lie near sport terms")
    key = ("BBCSPORT", baseline)
    if study is None or baseline is None or key not in study.index:
        return _row("latent sets", claim, [], tail="no initialisation study of BBCSPORT in this report")
    row = study.loc[key]
    chance = float(row["align chance"])
    trained, moved = float(row["align trained"]), float(row["align moved"])
    verdict = "holds" if trained >= ALIGNED * chance else "partly" if moved >= ALIGNED * chance else "does not hold"
    others = study.loc["BBCSPORT"].drop(index=baseline, errors="ignore")
    best = others["align trained"].astype(float).idxmax() if len(others) else None
    return _row("latent sets", claim, [], verdict=verdict,
                tail=f"init {baseline}: the elements end at cosine {float(row['cos to start']):.3f} with their random "
                     f"start; their alignment with the class directions {trained:.3f}, that of their displacement "
                     f"{moved:.3f}, random vectors' {chance:.3f} (carrying the classes: {ALIGNED:g}x random)"
                     + (f"; init {best}: elements {float(others.loc[best, 'align trained']):.3f}" if best else ""))


def _sensitivity_claim(runs: pd.DataFrame | None) -> dict:
    from repset.report.sensitivity import sensitivity_grid

    claim = "On TWITTER the number of hidden sets m matters little: for most |Y| the error moves 1-3 points across m"
    if runs is None or not ((runs["dataset"] == "twitter") & (runs["model"] == "repset")).any():
        return _row("sensitivity", claim, [], tail="RepSet not run on TWITTER in this report")
    grid = sensitivity_grid(runs, "twitter")
    spread = grid.max(axis=1) - grid.min(axis=1)
    little = int((spread <= SENSITIVITY_POINTS).sum())
    return _row("sensitivity", claim, [], verdict="holds" if 2 * little > len(spread) else "does not hold",
                tail=f"the test error's range over m {', '.join(str(m) for m in grid.columns)} (points; little: at "
                     f"most {SENSITIVITY_POINTS:g}): " + ", ".join(f"|Y| {k}: {s:.2f}" for k, s in spread.items()))


def paper_claims(ours: pd.DataFrame, ranked: pd.DataFrame, *, runtime: pd.DataFrame | None = None,
                 solver: str = "numba", study: pd.DataFrame | None = None, study_baseline: str | None = None,
                 runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per claim of the paper about its results: ``section`` (text, graph, runtime, latent sets,
    sensitivity), ``claim`` (in our words), ``verdict`` (:data:`VERDICTS`) and ``numbers`` (ours, beside the
    paper's where it gives them).

    ``ours``: :func:`~repset.report.document.ours_long` (the paper's methods count; variants and reference rows are
    left out); ``ranked``: :func:`~repset.report.document.ranks` of it; ``runtime``: the runtime sweep
    (:func:`repset.bench.runtime.runtime_sweep` rows), RepSet timed with ``solver``; ``study``: the initialisation
    study's table (index (dataset, init)) with its configured init ``study_baseline``; ``runs``: every run
    (``results/aggregate/runs.csv``), for the sensitivity claim. A claim whose input is missing is "not measured"."""
    papers_methods = set(DISPLAY) - {"majority"} - set(VARIANTS)
    mine = ours[(ours["source"] == "ours") & ours["method"].isin(papers_methods)]
    paper = reported_results()
    rows = _text_claims(_means(mine, "text"), _means(paper, "text"))
    rows += _graph_claims(_means(mine, "graph"), _means(paper, "graph"), ranked)
    rows += _runtime_claims(runtime, solver)
    rows += [_latent_claim(study, study_baseline), _sensitivity_claim(runs)]
    return pd.DataFrame(rows, columns=["section", "claim", "verdict", "numbers"])
