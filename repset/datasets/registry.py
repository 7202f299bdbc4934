"""Dataset registry: raw sources (URL, mirror path, sha256), parser, split protocol, expected and paper counts.

The URLs and checksums are those of ``SOURCES.md`` in the data mirror. A mirror directory (config key
``data_mirror`` or environment variable ``REPSET_DATA_MIRROR``) laid out like ``Source.path`` serves as a
download cache; see :mod:`repset.datasets.download`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Source", "ExpectedText", "ExpectedGraph", "PaperText", "PaperGraph", "DatasetSpec", "STOPWORDS",
    "TEXT_DATASETS", "GRAPH_DATASETS", "get_spec", "dataset_names", "tu_official_source",
    "stratified_split", "carve_validation", "random_splits", "stratified_kfold", "cv_splits", "predefined_split",
    "MIRROR_ENV", "CONFIG_KEY",
]

MIRROR_ENV = "REPSET_DATA_MIRROR"
CONFIG_KEY = "data_mirror"
_GH = "https://raw.githubusercontent.com"
_TEXTGCN_COMMIT = "962223652e9bb164ac2d83cd09fc7b8845ce860b"
_TEXTGCN = f"{_GH}/yao8839836/text_gcn/{_TEXTGCN_COMMIT}/data"
_TEXTGCN_TREE = f"https://api.github.com/repos/yao8839836/text_gcn/git/trees/{_TEXTGCN_COMMIT}?recursive=1"


def _textgcn_packed(path: str, folder: str, sha: str, size: int, tree: str) -> Source:
    """An archive the mirror packed from text_gcn's ``data/<folder>/``; downloadable file by file."""
    return _s(path, f"{_TEXTGCN}/{folder}/...", sha, size, packed=True, tree_sha256=tree, listing=_TEXTGCN_TREE,
              listing_root="data/", members=f"{folder}/", member_base=_TEXTGCN)
_WMD = f"{_GH}/mkusner/wmd/8522da3231cacbe91f94bad95651372bdf03762c"
_IHGNN = f"{_GH}/yeweiysh/IHGNN/b17214636dd0a0f83b05849cc6dc9ec2ebd4efbf/data"
_GBGC = f"{_GH}/SuperVillian/GBGC/bc6a710ff57010dfccef68f5e4a294692ccbf242/dataset"
_AMAZON = f"{_GH}/ephyros/nlp/0ce4ee4b2334f8f13e4150909f4aff08fbbf7380/data/sorted_data_acl"
TU_OFFICIAL = "https://www.chrsmrrs.com/graphkerneldatasets/{name}.zip"


@dataclass(frozen=True)
class Source:
    """One raw file: where it lives publicly and where it sits in the mirror/cache layout.

    ``sha256=None`` means the checksum is unknown: :func:`~repset.datasets.download.fetch` refuses such a
    download unless ``allow_unverified=True``. ``packed=True`` marks an archive that the mirror packed
    deterministically from the many files at ``url`` (a pattern): it cannot be downloaded as one file.
    ``url=None`` marks a file with no pinned public URL (it must be supplied in the mirror).

    A packed archive can still be downloaded where ``listing`` names a JSON listing of a repository at a
    pinned commit (GitHub's git/trees API): its entries under ``listing_root + members`` are fetched one
    by one from ``member_base`` and packed here. Such an archive's bytes differ from the mirror's, so
    both are verified by ``tree_sha256``, a hash of their content (:func:`~repset.datasets.download.tree_sha256`).
    """

    path: str
    url: str | None
    sha256: str | None
    size: int | None = None
    packed: bool = False
    note: str = ""
    tree_sha256: str | None = None
    listing: str | None = None
    listing_root: str = ""
    members: str = ""
    member_base: str | None = None


@dataclass(frozen=True)
class ExpectedText:
    """Raw counts in the mirror (SOURCES.md), before preprocessing drops empty documents."""

    n_docs: int
    classes: int
    n_train: int | None = None
    n_test: int | None = None
    exact: bool = False  # equal to the paper's corpus


@dataclass(frozen=True)
class ExpectedGraph:
    """Graph, node and (undirected, unique) edge counts of the mirror (SOURCES.md)."""

    n_graphs: int
    n_nodes: int
    n_edges: int
    classes: int


@dataclass(frozen=True)
class PaperText:
    """The paper's text dataset table (supplement): n = training-set size; test size from Kusner et al."""

    n_train: int
    n_test: int
    vocabulary: int
    avg_unique_words: float
    classes: int


@dataclass(frozen=True)
class PaperGraph:
    """The paper's graph dataset table (supplement)."""

    n_graphs: int
    classes: int
    avg_nodes: float
    avg_edges: float


@dataclass(frozen=True)
class DatasetSpec:
    """Everything needed to fetch, parse and split one dataset."""

    name: str
    display: str
    kind: str  # "text" | "graph"
    sources: tuple[Source, ...]
    parser: str
    split: str  # "predefined" | "random_70_30" | "10fold"
    n_splits: int
    expected: ExpectedText | ExpectedGraph | None
    paper: PaperText | PaperGraph
    alt_sources: tuple[Source, ...] = ()
    wmd_mat: str | None = None  # file name of the WMD authors' .mat (Dropbox, no pinned URL)
    n_repeats: int = 1
    notes: str = ""
    parser_options: tuple[tuple[str, object], ...] = ()  # defaults for the parser, e.g. strip_headers
    remove_stopwords: bool = True

    @property
    def available(self) -> bool:
        """Whether the primary sources exist as public files (RECIPE exists only in the WMD .mat)."""
        return bool(self.sources)


def _s(path: str, url: str | None, sha: str | None, size: int | None, **kw) -> Source:
    return Source(path=path, url=url, sha256=sha, size=size, **kw)


STOPWORDS = _s("stopwords/stop_words.txt", f"{_WMD}/stop_words.txt",
               "901735f24091f99b185fcd34690280bcbe42b149835009a854ccaa3428cb5eff", 4158)

_AMAZON_SHA = {
    ("books", "negative"): ("d974ad1bc84029ea1aae77d7fbaca9327f132895a427e6b83c253990b97cb71e", 1538113),
    ("books", "positive"): ("d4b32b8e38173ece27e5cb1c83d58a23d719bacf1afff256b7d8c8945450c590", 1510898),
    ("dvd", "negative"): ("740259c8bbe6694ee350305c46f2777454803d00000f5d3402db7f282b4b5910", 1589766),
    ("dvd", "positive"): ("c6b3bd66bd20a3a94c2c8d8411a5d5330cf68a81053998a11bd00d8511b89589", 1696788),
    ("electronics", "negative"): ("e8ab164d5cdea3be914afed4cffc41706d56de29f832c78acb3cccd541de8021", 1113533),
    ("electronics", "positive"): ("e5b048ded874b6c97354e3ce683f8f106199a6b586e4d9e7632d2fe021f4263d", 1105030),
    ("kitchen_&_housewares", "negative"): ("fc647f24f10e65e14d26f788185125c016451a45940252fa40aedfde51ed6902", 1019958),
    ("kitchen_&_housewares", "positive"): ("fb05321a83f44c8fa7066f433696f6c475b1572990f9aebdfffb496d8669c41f", 1019001),
}

TEXT_DATASETS: dict[str, DatasetSpec] = {s.name: s for s in [
    DatasetSpec(
        "bbcsport", "BBCSPORT", "text",
        (_s("bbcsport/bbcsport.csv", _GH + "/jbesomi/texthero/37d09f0299fe14329b4fae5002c3a1950e4f563e"
            "/dataset/bbcsport.csv",
            "ad56de1360804050726562ec9b6621d5000eb61029c82fb27ff7f6341d185795", 1463394),),
        "bbcsport_csv", "random_70_30", 5, ExpectedText(737, 5), PaperText(517, 220, 13243, 117, 5),
        wmd_mat="bbcsport-emd_tr_te_split.mat",
        notes="whole original corpus; the WMD 5 random splits are not public as text"),
    DatasetSpec(
        "twitter", "TWITTER", "text",
        (_s("twitter/all_twitter_by_line.txt", f"{_WMD}/all_twitter_by_line.txt",
            "fede45a913a2ab6e6035428c37b88c7bbfe454275cc4b439997fa86f370a4623", 277393),),
        "twitter_tsv", "random_70_30", 5, ExpectedText(3115, 3), PaperText(2176, 932, 6344, 9.9, 3),
        wmd_mat="twitter-emd_tr_te_split.mat", remove_stopwords=False,
        notes="7 tweets more than the paper (empty after filtering); stop words kept, as WMD's script did for "
              "twitter ('except for twitter!'): gives 10.7 unique words/tweet vs the paper's 9.9 (6.2 if removed)"),
    DatasetSpec(
        "recipe", "RECIPE", "text", (), "wmd_mat", "random_70_30", 5, None, PaperText(3059, 1311, 5708, 48.5, 15),
        alt_sources=(_s("recipe/recipe2-emd_tr_te_split.mat", None, None, None,
                        note="WMD authors' Dropbox folder; no pinned URL"),),
        wmd_mat="recipe2-emd_tr_te_split.mat", notes="exists only inside the WMD .mat files: not available offline"),
    DatasetSpec(
        "ohsumed", "OHSUMED", "text",
        (_textgcn_packed("ohsumed/ohsumed-single-23.tar.gz", "ohsumed_single_23",
                         "7a3846b302810004e51dd52e708044bdd5ab96d441ac7ff6744aca956ade853e", 3402241,
                         "a0e5f2c719fe567bbc1b875ac0f4e65d23b8d77a2ebcf766896c5b6db31ff869"),),
        "ohsumed_tar", "predefined", 1, ExpectedText(2881, 10, 1249, 1632), PaperText(3999, 5153, 31789, 59.2, 10),
        alt_sources=(_s("ohsumed/ohsumed-first-20000-docs.tar.gz",
                        "http://disi.unitn.it/moschitti/corpora/ohsumed-first-20000-docs.tar.gz", None, None,
                        note="the paper's multi-label corpus (same layout); checksum unknown"),),
        wmd_mat="ohsumed-emd_tr_te_ix.mat",
        notes="PARTIAL: single-label subset; the paper used the multi-label ohsumed-first-20000-docs"),
    DatasetSpec(
        "classic", "CLASSIC", "text",
        (_s("classic/cacm.all", _GH + "/cw417/inverted-index-search"
            "/6461457e5ea7f8578cc8cdda1eff1ffa68e1389d/cacm.all",
            "ac03f89f9a7ff22293654baec71a426a31545cb852f8a9ef49f33e021da6e2a1", 2187735),
         _s("classic/CISI.ALL", _GH + "/Shakiba-Alipour/Information-Retrieval-on-CISI"
            "/7a23c34602e8949d795bb1835004546e00d1d1ba/CISI.ALL",
            "c13934ad921234b571e7b424af3461fe39dccb16757cb21954b3aea5250d072e", 2119351),
         _s("classic/cran.all.1400", _GH + "/michael-xander/SimpleIRSystem"
            "/c93b0424c31f2a4846e58ad958aac312955102a8/cran.all.1400",
            "3de216d503bf5710dedef63b4283bbb7d5ae0d7e71de0fcb6cd5773a8e7258fe", 1644714),
         _s("classic/med.all", _GH + "/konstantinoskostis/SimpleMedicalSearchEngine"
            "/e069554ccd4a78462ccb4e1fa47c7020fe236c9e/med.all",
            "2de528cbcd142cd2619e50b1a99e5261e63ce334da17c7cbd7fe8d30f6f119ce", 1091141)),
        "classic_smart", "random_70_30", 5, ExpectedText(7095, 4), PaperText(4965, 2128, 24277, 38.6, 4),
        wmd_mat="classic-emd_tr_te_split.mat", notes="cran.all.1400 has one empty extra record .I 1401"),
    DatasetSpec(
        "reuters", "REUTERS", "text",
        (_s("reuters/train.txt", f"{_TEXTGCN}/R8/train.txt",
            "3ed60c905aaa95b96c3fc4afb6d14ad2e20106c59c5b9dda950dcb3075eecfbe", 3354423),
         _s("reuters/test.txt", f"{_TEXTGCN}/R8/test.txt",
            "2ba368c42e6808bc3dc68b8f7879eb07a2810ed137f0b304e2213b689677e561", 1195260)),
        "r8_tsv", "predefined", 1, ExpectedText(7674, 8, 5485, 2189, exact=True), PaperText(5485, 2189, 22425, 37.1, 8),
        wmd_mat="r8-emd_tr_te3.mat", notes="exact (Cachopo all-terms R8 split)"),
    DatasetSpec(
        "amazon", "AMAZON", "text",
        tuple(_s(f"amazon/sorted_data_acl/{d}/{p}.review", f"{_AMAZON}/{d}/{p}.review", sha, size)
              for (d, p), (sha, size) in _AMAZON_SHA.items()),
        "amazon_xml", "random_70_30", 5, ExpectedText(8000, 4, exact=True), PaperText(5600, 2400, 42063, 45.0, 4),
        wmd_mat="amazon-emd_tr_te_split.mat", notes="complete; class = product domain"),
    DatasetSpec(
        "20ng", "20NG", "text",
        (_textgcn_packed("20ng/20news-bydate.tar.gz", "20ng",
                         "69231f7214c9b3f7e43f1b4c5b6338634b34333c5c466aff8bda7f68192f9e57", 14388013,
                         "5f162faaa9930819152c6b6f49e23c6756e13f2a406734a392d4f239214a51c7"),),
        "20ng_tar", "predefined", 1, ExpectedText(18846, 20, 11314, 7532), PaperText(11293, 7528, 29671, 72, 20),
        alt_sources=(_s("20ng/official/20news-bydate.tar.gz", "https://ndownloader.figshare.com/files/5975967",
                        "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610", None,
                        note="official bydate archive (checksum as in scikit-learn); same layout"),),
        wmd_mat="20ng2_500-emd_tr_te.mat", parser_options=(("strip_headers", True),),
        notes="raw bydate messages; mail headers stripped by default (leaves 11,292 + 7,514 non-empty docs with "
              "GloVe vs the paper's 11,293 + 7,528; with headers nothing becomes empty)"),
]}


def _gin(folder: str, zipname: str, sha: str, size: int) -> Source:
    return _s(f"{folder}/{zipname}", f"{_IHGNN}/{zipname}", sha, size)


def _tu(name: str, files: dict[str, tuple[str, int]]) -> tuple[Source, ...]:
    return tuple(_s(f"{name}/{name}_{suf}", f"{_GBGC}/{name}/{name}_{suf}", sha, size)
                 for suf, (sha, size) in files.items())


def tu_official_source(name: str) -> Source:
    """The official TU download of graph dataset ``name`` (checksum unknown: needs ``allow_unverified``)."""
    return _s(f"{name}/tu-official/{name}.zip", TU_OFFICIAL.format(name=name), None, None,
              note="official TU Dortmund collection; sha256 not pinned")


_MUTAG_TU = _tu("MUTAG", {
    "A.txt": ("d9656ca7493f3445d737c711710bb36fd432dddd1c0ea32e1d4713c86ebd28e2", 76940),
    "graph_indicator.txt": ("7d520a4d6c7961c0cdeabe076d8fe27e795b6d373485c9a2b744987e560a2056", 11532),
    "graph_labels.txt": ("a1518ea39ba3426bd42f57396b9c4baffe68e9adc718caeeab0119c6591a5f2c", 439),
    "node_labels.txt": ("678f429965490e84dd27713017538c995fc05d1621beac910848b600015ee863", 6742),
    "edge_labels.txt": ("4669ce755075ff86c3240709345745886400908fa637a49310459b9c267b3e56", 14884),
})
_PROTEINS_TU = _tu("PROTEINS", {
    "A.txt": ("4c4b33e272fc95cac6d27ed6d5d12b9a852c8610e91fff59f8f0dbdd5a20df67", 2022990),
    "graph_indicator.txt": ("8d4ff1e852a5c28561e9bffb44cf9490bc552b13a3b6156dd12dc7f44e9afc4a", 169673),
    "graph_labels.txt": ("c0ef9810c440775252872318d0c8adc385588e14bc4c47a2c34aa96ee3c7cdcd", 2226),
    "node_labels.txt": ("f758e8ad3d6e3c026b50833d75f6f90735b94eb3345e4243707f495ca8afea8d", 86942),
    "node_attributes.txt": ("54eef829abb37e458a5fbf3a3c581e48e5810e220463c2cd951856b9ceb08f07", 478190),
})


def _graph(name: str, sources: tuple[Source, ...], parser: str, expected: ExpectedGraph, paper: PaperGraph,
           gin: Source, notes: str = "") -> DatasetSpec:
    return DatasetSpec(name, name.replace("-", " "), "graph", sources, parser, "10fold", 10, expected, paper,
                       alt_sources=((gin,) if gin not in sources else ()) + (tu_official_source(name),),
                       n_repeats=10, notes=notes)


_MUTAG_GIN = _gin("MUTAG", "MUTAG.zip",
                  "545905a7f0782cba6d3f96cb40af67c90e54f26932341999103e1eb94bbbee52", 12363)
_PROTEINS_GIN = _gin("PROTEINS", "PROTEINS.zip",
                     "d28f022559a1fe3f3c0cfd49c96a68a8cb8a1d1e31d5506fb7d93e438eab6f52", 217194)
_IMDBB = _gin("IMDB-BINARY", "IMDBBINARY.zip",
              "0424af4414007a76bd0d7d9f8e7ba845f595745d142894cf42b505b30f5ff7d8", 107488)
_IMDBM = _gin("IMDB-MULTI", "IMDBMULTI.zip",
              "20caee26511d0e5ed130bcb1054b2697b91cc8bb846c72cf0f37a92f99bfc67b", 94934)
_REDDIT = _gin("REDDIT-BINARY", "REDDIT-BINARY.zip",
               "c45536bdd84db7a4913fd6a45ae7616a12a02bf1f444a4effbce903524d62121", 3288201)

GRAPH_DATASETS: dict[str, DatasetSpec] = {s.name: s for s in [
    _graph("MUTAG", _MUTAG_TU, "tu", ExpectedGraph(188, 3371, 3721, 2), PaperGraph(188, 2, 17.93, 19.79), _MUTAG_GIN,
           "= TU original"),
    _graph("PROTEINS", _PROTEINS_TU, "tu", ExpectedGraph(1113, 43471, 81044, 2), PaperGraph(1113, 2, 39.06, 72.82),
           _PROTEINS_GIN, "= TU original"),
    _graph("IMDB-BINARY", (_IMDBB,), "gin_txt", ExpectedGraph(1000, 19773, 96531, 2), PaperGraph(1000, 2, 19.77, 96.53),
           _IMDBB, "graph order and labels equal the TU files"),
    _graph("IMDB-MULTI", (_IMDBM,), "gin_txt", ExpectedGraph(1500, 19502, 98903, 3), PaperGraph(1500, 3, 13.00, 65.94),
           _IMDBM, "= TU original"),
    _graph("REDDIT-BINARY", (_REDDIT,), "gin_txt", ExpectedGraph(2000, 859254, 995508, 2),
           PaperGraph(2000, 2, 429.63, 497.75), _REDDIT, "labels written 0/2: remapped to 0/1"),
]}

_ALIASES = {"r8": "reuters", "20news": "20ng", "20newsgroups": "20ng", "imdb-b": "IMDB-BINARY",
            "imdb-m": "IMDB-MULTI", "reddit-b": "REDDIT-BINARY"}


def dataset_names(kind: str | None = None) -> list[str]:
    """Registered names, text first then graphs (or only one ``kind``)."""
    text = [*TEXT_DATASETS] if kind in (None, "text") else []
    return text + ([*GRAPH_DATASETS] if kind in (None, "graph") else [])


def get_spec(name: str) -> DatasetSpec:
    """The spec of dataset ``name`` (case-insensitive; ``r8`` is an alias of ``reuters``)."""
    key = _ALIASES.get(name.lower(), name)
    for table in (TEXT_DATASETS, GRAPH_DATASETS):
        for k, spec in table.items():
            if k.lower() == key.lower():
                return spec
    raise ValueError(f"unknown dataset {name!r}; valid names: {', '.join(dataset_names())}")


# ---- split protocols -------------------------------------------------------------------------------------------

def _rng(seed: int, *stream: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), *map(int, stream)]))


def stratified_split(labels: np.ndarray, test_fraction: float, seed: int, index: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Split ``index`` (default all) into (keep, held-out), holding out ``test_fraction * n_c`` (rounded half up)
    items of each class c.

    Both outputs are sorted. Deterministic in ``seed``.
    """
    labels = np.asarray(labels)
    index = np.arange(len(labels)) if index is None else np.asarray(index)
    rng = _rng(seed)
    held = []
    for c in np.unique(labels[index]):
        members = index[labels[index] == c]
        k = int(np.floor(test_fraction * len(members) + 0.5))
        held.append(rng.permutation(members)[:k])
    held_arr = np.sort(np.concatenate(held)) if held else np.zeros(0, dtype=np.int64)
    keep = np.setdiff1d(index, held_arr)
    return keep.astype(np.int64), held_arr.astype(np.int64)


def carve_validation(train: np.ndarray, labels: np.ndarray, val_fraction: float = 0.1, seed: int = 0
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Stratified, seeded (train, val) carved from the training indices."""
    return stratified_split(labels, val_fraction, seed, index=np.asarray(train))


def random_splits(labels: np.ndarray, n_splits: int = 5, test_fraction: float = 0.3, val_fraction: float = 0.1,
                  seed: int = 0) -> list[dict[str, np.ndarray]]:
    """``n_splits`` stratified train/val/test splits (split k uses the seed stream ``(seed, k)``)."""
    out = []
    for k in range(n_splits):
        s = int(_rng(seed, k).integers(2**31))
        train, test = stratified_split(labels, test_fraction, s)
        train, val = carve_validation(train, labels, val_fraction, s + 1)
        out.append({"train": train, "val": val, "test": test})
    return out


def stratified_kfold(labels: np.ndarray, n_folds: int, seed: int) -> np.ndarray:
    """Fold id per item: classes shuffled within, then dealt round-robin (fold sizes differ by at most 1)."""
    labels = np.asarray(labels)
    rng = _rng(seed)
    order = np.concatenate([rng.permutation(np.flatnonzero(labels == c)) for c in np.unique(labels)])
    folds = np.empty(len(labels), dtype=np.int64)
    folds[order] = np.arange(len(labels)) % n_folds
    return folds


def cv_splits(labels: np.ndarray, n_folds: int = 10, n_repeats: int = 10, val_fraction: float = 0.1,
              seed: int = 0) -> list[dict[str, np.ndarray]]:
    """Repeated stratified k-fold: ``n_repeats * n_folds`` dicts with train/val/test (and repeat, fold ids)."""
    out = []
    for r in range(n_repeats):
        s = int(_rng(seed, r).integers(2**31))
        folds = stratified_kfold(labels, n_folds, s)
        for f in range(n_folds):
            train, val = carve_validation(np.flatnonzero(folds != f), labels, val_fraction, s + 1 + f)
            out.append({"train": train, "val": val, "test": np.flatnonzero(folds == f).astype(np.int64),
                        "repeat": np.array(r), "fold": np.array(f)})
    return out


def predefined_split(parts: np.ndarray, labels: np.ndarray, val_fraction: float = 0.1, seed: int = 0
                     ) -> list[dict[str, np.ndarray]]:
    """The source's own train/test split, with a stratified validation part carved from train."""
    parts = np.asarray(parts)
    train, val = carve_validation(np.flatnonzero(parts == "train"), labels, val_fraction, seed)
    return [{"train": train, "val": val, "test": np.flatnonzero(parts == "test").astype(np.int64)}]
