"""Text corpora: parsers for each raw format of the mirror, and the WMD-style bag-of-words preprocessing.

Preprocessing follows Kusner et al.'s WMD code: tokenise, drop SMART stop words, keep only words that have
an embedding, drop documents left empty; a document is its unique words with their counts.
"""
from __future__ import annotations

import csv
import html
import re
import string
import tarfile
from collections import Counter
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

__all__ = ["ParseError", "RawCorpus", "BagOfWords", "PARSERS", "parse", "tokenize", "load_stopwords",
           "bag_of_words", "parse_bbcsport", "parse_twitter", "parse_r8", "parse_ohsumed", "parse_classic",
           "parse_amazon", "parse_20ng"]


class ParseError(ValueError):
    """A raw file does not have the expected format; names the file and the 1-based line."""

    def __init__(self, path: str | Path, line: int | None, message: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path, self.line = str(path), line


@dataclass
class RawCorpus:
    """Documents as raw strings with string labels; ``parts`` is 'train'/'test' for predefined splits, else ''."""

    texts: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    def add(self, text: str, label: str, part: str = "", doc_id: str = "") -> None:
        self.texts.append(text)
        self.labels.append(label)
        self.parts.append(part)
        self.ids.append(doc_id)

    def __len__(self) -> int:
        return len(self.texts)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# ---- parsers ---------------------------------------------------------------------------------------------------

def parse_bbcsport(paths: Sequence[Path]) -> RawCorpus:
    """BBC Sport CSV with columns ``text`` and ``topic`` (quoted multi-line fields)."""
    (path,) = paths
    out = RawCorpus()
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        try:
            header = next(reader)
        except StopIteration:
            raise ParseError(path, 1, "empty file") from None
        if "text" not in header or "topic" not in header:
            raise ParseError(path, 1, f"header must have columns 'text' and 'topic', got {header}")
        ti, li = header.index("text"), header.index("topic")
        try:
            for row in reader:
                if not row:
                    continue
                if len(row) != len(header):
                    raise ParseError(path, reader.line_num, f"expected {len(header)} fields, got {len(row)}")
                out.add(row[ti], row[li].strip(), doc_id=str(len(out)))
        except csv.Error as e:
            raise ParseError(path, reader.line_num, f"CSV error: {e}") from e
    return out


def _tab_lines(path: Path, part: str, out: RawCorpus, quoted: bool) -> None:
    """``label<TAB>text`` lines of ``path`` into ``out``; each line (a document) decoded as :func:`_decode`
    decodes the other parsers' documents: UTF-8, else latin-1 (a latin-1 "café" keeps its "é", not U+FFFD)."""
    for lineno, raw in enumerate(Path(path).read_bytes().splitlines(), 1):
        line = _decode(raw)
        if not line.strip():
            continue
        if "\t" not in line:
            raise ParseError(path, lineno, "expected 'label<TAB>text'")
        label, text = line.split("\t", 1)
        label = label.strip()
        if quoted:
            if len(label) < 2 or label[0] != '"' or label[-1] != '"':
                raise ParseError(path, lineno, f'expected a quoted label like "positive", got {label!r}')
            label = label[1:-1]
        if not label:
            raise ParseError(path, lineno, "empty label")
        out.add(text, label, part, f"{path.name}:{lineno}")


def parse_twitter(paths: Sequence[Path]) -> RawCorpus:
    """WMD's ``all_twitter_by_line.txt``: ``"label"<TAB>text`` per line."""
    out = RawCorpus()
    _tab_lines(Path(paths[0]), "", out, quoted=True)
    return out


def parse_r8(paths: Sequence[Path]) -> RawCorpus:
    """R8 ``train.txt`` and ``test.txt``: ``label<TAB>text`` per line (predefined split)."""
    out = RawCorpus()
    for path in paths:
        part = "test" if Path(path).stem.startswith("test") else "train"
        _tab_lines(Path(path), part, out, quoted=False)
    return out


def _tar_docs(path: Path) -> list[tuple[PurePosixPath, bytes]]:
    with tarfile.open(path, "r:*") as tar:
        return [(PurePosixPath(m.name), tar.extractfile(m).read()) for m in tar.getmembers() if m.isfile()]


def parse_ohsumed(paths: Sequence[Path], classes: Sequence[str] = tuple(f"C{i:02d}" for i in range(1, 11)),
                  multilabel: str = "first") -> RawCorpus:
    """OHSUMED tar.gz with ``<root>/{training,test}/Cxx/<id>``; keeps ``classes`` (the first 10 by default).

    Works for the single-label ``ohsumed-single-23`` and the multi-label ``ohsumed-first-20000-docs`` (a document
    filed under several classes). ``multilabel``: 'first' keeps it once under its first class, 'drop' drops it,
    'all' keeps one copy per class. ``meta['variant']`` records which layout was found.
    """
    if multilabel not in ("first", "drop", "all"):
        raise ValueError(f"multilabel must be 'first', 'drop' or 'all', got {multilabel!r}")
    (path,) = paths
    keep = set(classes)
    found: dict[tuple[str, str], list[str]] = {}
    texts: dict[tuple[str, str], str] = {}
    for name, data in _tar_docs(Path(path)):
        parts = name.parts
        idx = [i for i, p in enumerate(parts) if p in ("training", "test")]
        if not idx or len(parts) < idx[-1] + 3:
            continue
        i = idx[-1]
        part, cls, doc = ("train" if parts[i] == "training" else "test"), parts[i + 1], parts[i + 2]
        if not re.fullmatch(r"C\d\d", cls):
            raise ParseError(path, None, f"member {name}: expected a class folder like C01, got {cls!r}")
        found.setdefault((part, doc), []).append(cls)
        texts[(part, doc)] = _decode(data)
    n_multi = sum(len(v) > 1 for v in found.values())
    out = RawCorpus(meta={"variant": "multi-label" if n_multi else "single-label", "archive": Path(path).name,
                          "multilabel_policy": multilabel, "n_multilabel_docs_all_classes": n_multi})
    rows = []
    for (part, doc), cls_list in found.items():
        kept = sorted(c for c in set(cls_list) if c in keep)
        if not kept or (multilabel == "drop" and len(set(cls_list)) > 1):
            continue
        for c in (kept if multilabel == "all" else kept[:1]):
            rows.append((part != "train", c, doc, part))
    for _, c, doc, part in sorted(rows):
        out.add(texts[(part, doc)], c, part, doc)
    return out


_SMART_MARK = re.compile(r"^\.([A-Z])(?:\s+(.*))?$")


def parse_classic(paths: Sequence[Path], fields: Sequence[str] = ("T", "W")) -> RawCorpus:
    """CLASSIC: four SMART files (``.I n`` then ``.T``/``.W``/... fields); class = collection (file) name.

    The text of a record is its ``fields`` joined; records with empty text are skipped (counted in meta).
    """
    out = RawCorpus(meta={"fields": list(fields), "skipped_empty": []})
    for path in paths:
        path = Path(path)
        label = path.name.split(".")[0].lower()
        records: list[tuple[str, int, dict[str, list[str]]]] = []
        current: dict[str, list[str]] | None = None
        mark = None
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                line = line.rstrip("\n\r")
                m = _SMART_MARK.match(line)
                if m and m.group(1) == "I":
                    rid = (m.group(2) or "").strip()
                    if not rid.isdigit():
                        raise ParseError(path, lineno, f"'.I' must be followed by a record number, got {line!r}")
                    current, mark = {}, None
                    records.append((rid, lineno, current))
                elif m and current is not None:
                    mark = m.group(1)
                    current.setdefault(mark, [])
                    if m.group(2):
                        current[mark].append(m.group(2))
                elif current is None:
                    if line.strip():
                        raise ParseError(path, lineno, "text before the first '.I' record marker")
                elif mark is not None:
                    current[mark].append(line)
        for rid, lineno, rec in records:
            text = "\n".join(" ".join(rec.get(k, [])) for k in fields).strip()
            if not text:
                out.meta["skipped_empty"].append(f"{path.name}:{lineno} (.I {rid})")
                continue
            out.add(text, label, "", f"{label}:{rid}")
    return out


def parse_amazon(paths: Sequence[Path]) -> RawCorpus:
    """Blitzer multi-domain reviews (pseudo-XML ``<review>`` blocks); text = ``<review_text>``, HTML-unescaped;
    class = product domain (the file's folder name)."""
    out = RawCorpus()
    for path in sorted(map(Path, paths), key=lambda p: (p.parent.name, p.name)):
        domain = path.parent.name
        open_line, buf, in_text, n_text = None, [], False, 0
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, raw in enumerate(f, 1):
                tag = raw.strip()
                if tag == "<review>":
                    if open_line is not None:
                        raise ParseError(path, lineno, f"<review> inside the review opened at line {open_line}")
                    open_line, buf, n_text = lineno, [], 0
                elif tag == "</review>":
                    if open_line is None:
                        raise ParseError(path, lineno, "</review> without <review>")
                    if in_text or n_text != 1:
                        raise ParseError(path, lineno, "review without exactly one closed <review_text>")
                    out.add(html.unescape("\n".join(buf)), domain, "", f"{domain}/{path.stem}:{open_line}")
                    open_line = None
                elif tag == "<review_text>":
                    if open_line is None:
                        raise ParseError(path, lineno, "<review_text> outside a <review>")
                    in_text, n_text = True, n_text + 1
                elif tag == "</review_text>":
                    if not in_text:
                        raise ParseError(path, lineno, "</review_text> without <review_text>")
                    in_text = False
                elif in_text:
                    buf.append(raw.rstrip("\n"))
        if open_line is not None:
            raise ParseError(path, open_line, "review not closed before the end of the file")
    return out


def parse_20ng(paths: Sequence[Path], strip_headers: bool = False) -> RawCorpus:
    """20 Newsgroups bydate tar.gz (``20news-bydate-{train,test}/<group>/<id>``), raw messages.

    ``strip_headers`` drops the mail header (everything before the first blank line).
    """
    (path,) = paths
    rows = []
    for name, data in _tar_docs(Path(path)):
        if len(name.parts) < 3 or not name.parts[-3].startswith("20news-bydate-"):
            continue
        part = name.parts[-3].rsplit("-", 1)[1]
        if part not in ("train", "test"):
            raise ParseError(path, None, f"member {name}: expected 20news-bydate-train or -test")
        text = _decode(data)
        if strip_headers:
            text = text.split("\n\n", 1)[1] if "\n\n" in text else ""
        doc = name.parts[-1]
        rows.append((part != "train", name.parts[-2], int(doc) if doc.isdigit() else doc, doc, part, text))
    out = RawCorpus(meta={"strip_headers": strip_headers})
    for _, group, _, doc, part, text in sorted(rows, key=lambda r: r[:3]):
        out.add(text, group, part, f"{group}/{doc}")
    return out


PARSERS: dict[str, Callable[..., RawCorpus]] = {
    "bbcsport_csv": parse_bbcsport, "twitter_tsv": parse_twitter, "r8_tsv": parse_r8,
    "ohsumed_tar": parse_ohsumed, "classic_smart": parse_classic, "amazon_xml": parse_amazon,
    "20ng_tar": parse_20ng,
}


def parse(parser: str, paths: Sequence[Path], **options) -> RawCorpus:
    """Run the named parser on the source files (in registry order)."""
    if parser not in PARSERS:
        raise ValueError(f"unknown text parser {parser!r}; valid: {', '.join(PARSERS)}")
    return PARSERS[parser](list(map(Path, paths)), **options)


# ---- preprocessing ---------------------------------------------------------------------------------------------

_LETTERS = re.compile(r"[A-Za-z]+")
_PUNCT = str.maketrans("", "", string.punctuation)


def tokenize(text: str, lowercase: bool = True, mode: str = "letters") -> list[str]:
    """Words of ``text``: runs of ASCII letters ('letters'), or, as WMD's script did, whitespace-separated
    tokens after deleting ASCII punctuation ('wmd'); lowercased unless ``lowercase=False``."""
    if lowercase:
        text = text.lower()
    if mode == "letters":
        return _LETTERS.findall(text)
    if mode == "wmd":
        return text.translate(_PUNCT).split()
    raise ValueError(f"unknown tokenizer mode {mode!r}; valid: letters, wmd")


def load_stopwords(path: str | Path) -> frozenset[str]:
    """One stop word a line (blank lines ignored)."""
    return frozenset(w.strip() for w in Path(path).read_text(encoding="utf-8").splitlines() if w.strip())


@dataclass
class BagOfWords:
    """Ragged bag-of-words: document i has words ``vocab[word_ids[offsets[i]:offsets[i+1]]]`` with ``counts``.

    ``kept`` maps each document back to its index in the corpus (empty documents were dropped).
    Words appear in order of first occurrence in the document; ``vocab`` is sorted.
    """

    vocab: list[str]
    word_ids: np.ndarray
    counts: np.ndarray
    offsets: np.ndarray
    kept: np.ndarray

    def __len__(self) -> int:
        return len(self.kept)

    def doc(self, i: int) -> dict[str, int]:
        s = slice(self.offsets[i], self.offsets[i + 1])
        return {self.vocab[w]: int(c) for w, c in zip(self.word_ids[s], self.counts[s])}


def bag_of_words(texts: Sequence[str], stopwords: Container[str], vocabulary: Container[str] | None = None,
                 lowercase: bool = True, mode: str = "letters") -> BagOfWords:
    """Tokenise, drop stop words and words outside ``vocabulary`` (None keeps all), drop empty documents."""
    docs: list[dict[str, int]] = []
    kept: list[int] = []
    for i, text in enumerate(texts):
        bag = {w: c for w, c in Counter(tokenize(text, lowercase, mode)).items()
               if w not in stopwords and (vocabulary is None or w in vocabulary)}
        if bag:
            docs.append(bag)
            kept.append(i)
    vocab = sorted({w for d in docs for w in d})
    index = {w: j for j, w in enumerate(vocab)}
    lengths = np.array([len(d) for d in docs], dtype=np.int64)
    word_ids = np.fromiter((index[w] for d in docs for w in d), dtype=np.int32, count=int(lengths.sum()))
    counts = np.fromiter((c for d in docs for c in d.values()), dtype=np.int32, count=int(lengths.sum()))
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return BagOfWords(vocab, word_ids, counts, offsets, np.asarray(kept, dtype=np.int64))
