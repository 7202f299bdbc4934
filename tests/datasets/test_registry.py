"""Registry contents (URLs, checksums, counts, paper figures) and the split protocols."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from repset.datasets import registry as R

from repo_paths import MIRROR  # noqa: E402
needs_mirror = pytest.mark.skipif(not (MIRROR / "SHA256SUMS").is_file(), reason="data mirror not present")

TEXT = ["bbcsport", "twitter", "recipe", "ohsumed", "classic", "reuters", "amazon", "20ng"]
GRAPHS = ["MUTAG", "PROTEINS", "IMDB-BINARY", "IMDB-MULTI", "REDDIT-BINARY"]


def test_all_datasets_registered_in_order():
    assert R.dataset_names("text") == TEXT
    assert R.dataset_names("graph") == GRAPHS
    assert R.dataset_names() == TEXT + GRAPHS


def test_get_spec_unknown_lists_valid_names():
    with pytest.raises(ValueError) as e:
        R.get_spec("nope")
    msg = str(e.value)
    assert "'nope'" in msg and all(n in msg for n in TEXT + GRAPHS)


def test_get_spec_case_insensitive_and_aliases():
    assert R.get_spec("R8").name == "reuters"
    assert R.get_spec("mutag").name == "MUTAG"
    assert R.get_spec("BBCSport").name == "bbcsport"


def test_specs_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        R.get_spec("reuters").name = "x"  # type: ignore[misc]


def test_sources_have_urls_checksums_and_sizes():
    for name in R.dataset_names():
        spec = R.get_spec(name)
        for s in spec.sources:
            assert s.url and s.url.startswith("https://raw.githubusercontent.com/"), s
            assert s.sha256 and len(s.sha256) == 64 and int(s.sha256, 16) >= 0
            assert s.size and s.size > 0
            assert not s.path.startswith("/")
    assert R.STOPWORDS.sha256 == "901735f24091f99b185fcd34690280bcbe42b149835009a854ccaa3428cb5eff"


def test_split_protocols_and_counts():
    assert {R.get_spec(n).split for n in ("reuters", "20ng", "ohsumed")} == {"predefined"}
    for n in ("bbcsport", "twitter", "recipe", "classic", "amazon"):
        assert R.get_spec(n).split == "random_70_30" and R.get_spec(n).n_splits == 5
    for n in GRAPHS:
        spec = R.get_spec(n)
        assert (spec.split, spec.n_splits, spec.n_repeats) == ("10fold", 10, 10)
    r8 = R.get_spec("reuters")
    assert (r8.expected.n_train, r8.expected.n_test, r8.expected.exact) == (5485, 2189, True)
    assert (r8.paper.n_train, r8.paper.vocabulary, r8.paper.avg_unique_words) == (5485, 22425, 37.1)
    assert R.get_spec("amazon").expected.n_docs == 8000
    assert R.get_spec("REDDIT-BINARY").expected == R.ExpectedGraph(2000, 859254, 995508, 2)
    assert R.get_spec("IMDB-MULTI").paper == R.PaperGraph(1500, 3, 13.00, 65.94)
    assert not R.get_spec("recipe").available and R.get_spec("recipe").wmd_mat == "recipe2-emd_tr_te_split.mat"


def test_tu_official_source_is_unverified():
    for n in GRAPHS:
        alt = [s for s in R.get_spec(n).alt_sources if "chrsmrrs" in (s.url or "")]
        assert len(alt) == 1
        assert alt[0].url == f"https://www.chrsmrrs.com/graphkerneldatasets/{n}.zip" and alt[0].sha256 is None
        assert alt[0].path not in {s.path for s in R.get_spec(n).sources}  # no clash with the GIN zip


@needs_mirror
def test_registry_matches_mirror_sha256sums():
    sums = {}
    for line in (MIRROR / "SHA256SUMS").read_text().splitlines():
        if line.strip():
            sha, path = line.split(maxsplit=1)
            sums[path.lstrip("*").removeprefix("./")] = sha
    sources = [s for n in R.dataset_names() for s in R.get_spec(n).sources] + [R.STOPWORDS]
    sources += [s for n in GRAPHS for s in R.get_spec(n).alt_sources if s.sha256]
    for s in sources:
        if s.path in sums:
            assert sums[s.path] == s.sha256, s.path
    data_files = {p for p in sums if not p.endswith(("README.txt", "SOURCES.md"))}
    assert {s.path for s in sources if s.sha256} >= data_files


# ---- split protocols ----

def _labels():
    return np.array([0] * 50 + [1] * 30 + [2] * 20)


def test_stratified_split_exact_per_class_counts_and_determinism():
    y = _labels()
    keep, held = R.stratified_split(y, 0.3, seed=1)
    assert np.bincount(y[held]).tolist() == [15, 9, 6]
    assert len(np.intersect1d(keep, held)) == 0 and len(keep) + len(held) == len(y)
    again = R.stratified_split(y, 0.3, seed=1)
    assert np.array_equal(again[1], held)
    assert not np.array_equal(R.stratified_split(y, 0.3, seed=2)[1], held)


def test_random_splits_partition_with_validation():
    y = _labels()
    splits = R.random_splits(y, n_splits=5, seed=0)
    assert len(splits) == 5
    for s in splits:
        allidx = np.concatenate([s["train"], s["val"], s["test"]])
        assert np.array_equal(np.sort(allidx), np.arange(len(y)))
        assert len(s["test"]) == 30 and len(s["val"]) == 7  # round(.1 * 35) + round(.1 * 21) + round(.1 * 14)
    assert not np.array_equal(splits[0]["test"], splits[1]["test"])


def test_cv_splits_folds_partition_each_repeat():
    y = np.array([0] * 63 + [1] * 125)  # MUTAG-like
    splits = R.cv_splits(y, n_folds=10, n_repeats=3, seed=0)
    assert len(splits) == 30
    for r in range(3):
        tests = [s["test"] for s in splits if int(s["repeat"]) == r]
        assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(len(y)))
        sizes = [len(t) for t in tests]
        assert max(sizes) - min(sizes) <= 1
        for t in tests:
            assert abs(np.sum(y[t] == 0) - 6.3) < 1.01  # stratified
    s = splits[0]
    n_train_fold = len(s["train"]) + len(s["val"])
    assert n_train_fold == len(y) - len(s["test"]) and abs(len(s["val"]) - 0.1 * n_train_fold) <= 1
    assert len(np.intersect1d(s["val"], s["test"])) == 0
    assert not np.array_equal(splits[0]["test"], splits[10]["test"])  # repeats differ


def test_predefined_split_keeps_parts():
    parts = np.array(["train"] * 20 + ["test"] * 10)
    y = np.array([0, 1] * 15)
    (s,) = R.predefined_split(parts, y, 0.1, seed=0)
    assert np.array_equal(s["test"], np.arange(20, 30))
    assert len(s["val"]) == 2 and np.array_equal(np.sort(np.r_[s["train"], s["val"]]), np.arange(20))
