"""Library side of the data stages of the workflow: fetch, build stores, embed graphs, tables.

Each function maps files to files so that the Snakemake scripts stay one call long.
"""
from __future__ import annotations

import contextlib
import inspect
import json
import logging
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pandas as pd

from repset.datasets import build_graph_collection, build_text_dataset, get_spec, graph_cv_splits
from repset.datasets.download import OfflineError, choose_sources, damaged_in_mirror, fetch, sha256_file
from repset.datasets.registry import STOPWORDS
from repset.datasets.store import SetCollection, load_collection, save_store
from repset.io import write_json

log = logging.getLogger(__name__)


def download_sources(dataset: str, raw_dir: str, mirror: str | None, manifest: str | os.PathLike) -> dict:
    """Fetch (verify) every raw file of ``dataset`` into ``raw_dir``; write a manifest of paths and hashes. A
    file that can be neither found nor downloaded is named with the mirror folder looked in and, where the
    mirror holds other files of the dataset that fail their checksum (a damaged archive), those files."""
    spec = get_spec(dataset)
    label, chosen = choose_sources(spec, raw_dir, mirror)
    sources = list(chosen) + ([STOPWORDS] if spec.kind == "text" and spec.available else [])
    files = {}
    for source in sources:
        try:
            path = fetch(source, raw_dir, mirror)
        except OfflineError as err:
            damaged = damaged_in_mirror(spec.sources + spec.alt_sources, mirror)
            if not damaged:
                raise
            raise OfflineError(f"{err}; of {spec.name}'s files in the data mirror, {'; '.join(damaged)}") from None
        files[source.path] = {"url": source.url, "sha256": source.sha256 or sha256_file(path), "cached": str(path)}
        log.info("fetched %s", path)
    record = {"dataset": spec.name, "source": label, "files": files,
              "note": "" if spec.available else f"no public raw files; use the WMD .mat {spec.wmd_mat}"}
    write_json(manifest, record)
    return record


def text_store(dataset: str, vectors: str, raw_dir: str, out: str, *, seed: int, val_fraction: float,
               wmd_mat: str | None = None, mirror: str | None = None, manifest: str | None = None) -> SetCollection:
    """Build the text store of ``dataset`` from the raw files in ``raw_dir`` that the download rule fetched
    (its ``manifest`` says which source: the registry's or the alternative); a file whose sha256 no longer
    matches is fetched again from ``mirror`` or its URL."""
    alternative = manifest is not None and json.loads(Path(manifest).read_text()).get("source") == "alternative"
    return build_text_dataset(dataset, vectors, mirror, cache_dir=raw_dir, seed=seed, val_fraction=val_fraction,
                              wmd_mat=wmd_mat, out=out, alt_source=alternative, progress=False)


def graph_embedding(dataset: str, raw_dir: str, out: str, options: dict, seed: int, mirror: str | None = None) -> dict:
    """struc2vec node embeddings of the disjoint union of all graphs of ``dataset`` (as the paper); raw
    files as in :func:`text_store`. ``options["checkpoint"]``: build in the folder ``<out>.ckpt``, which a rerun
    continues (:mod:`repset.embed.resumable`) and a finished build removes, holding it until then (a second build
    on it is refused, even while the first one removes it)."""
    from repset.embed import struc2vec
    from repset.embed.resumable import held
    from repset.io import atomic_path
    from repset.provenance import openblas_kernels

    coll = build_graph_collection(dataset, mirror, cache_dir=raw_dir, progress=False)
    start = time.perf_counter()
    options = {"workers": 1, **options}   # one Word2Vec thread: bit-reproducible embeddings
    checkpoint = f"{out}.ckpt" if options.pop("checkpoint", False) else None   # resumable: kept until done
    with held(checkpoint) if checkpoint is not None else contextlib.nullcontext():   # through its removal
        emb = struc2vec(int(coll.n_nodes.sum()), coll.edges, seed=seed, checkpoint_dir=checkpoint, **options)
        seconds = time.perf_counter() - start
        with atomic_path(out) as tmp:
            with open(tmp, "wb") as f:
                np.save(f, emb.astype(np.float32))
        if checkpoint is not None:
            shutil.rmtree(checkpoint)   # the walks and the skip-gram's checkpoint: the embedding is written
    kernels = openblas_kernels()   # the skip-gram's floats follow scipy's OpenBLAS kernels (docs/record.md)
    log.info("struc2vec %s: %d nodes in %.1f s; OpenBLAS kernels %s, OPENBLAS_CORETYPE %s", dataset, len(emb), seconds,
             kernels, os.environ.get("OPENBLAS_CORETYPE"))
    return {"nodes": len(emb), "seconds": seconds, "openblas": kernels}


def load_embedding(embedding: str | os.PathLike, dataset: str, n_nodes: int, dim: int | None) -> np.ndarray:
    """The struc2vec embedding file of ``dataset``, checked: ValueError naming the file unless it is an
    ``(n_nodes, dim)`` array of finite values (any dimension for ``dim=None``)."""
    emb = np.load(embedding)
    redo = "delete it and rerun its struc2vec job"
    if emb.ndim != 2:
        raise ValueError(f"{embedding}: a {emb.ndim}-D array of shape {emb.shape}; expected (nodes, dim) = "
                         f"({n_nodes}, {dim}): {redo}")
    if len(emb) != n_nodes:
        raise ValueError(f"{embedding}: {len(emb)} embeddings for {n_nodes} nodes of {dataset}: {redo}")
    if dim is not None and emb.shape[1] != dim:
        raise ValueError(f"{embedding}: dimension {emb.shape[1]}, but struc2vec dim is {dim} for {dataset} "
                         f"(config struc2vec.dim or its per_dataset override): {redo}")
    bad = int((~np.isfinite(emb)).any(axis=1).sum())
    if bad:
        raise ValueError(f"{embedding}: {bad} of {n_nodes} nodes have NaN or infinite values: {redo}")
    return emb


def graph_store(dataset: str, raw_dir: str, embedding: str, out: str, *, seed: int, val_fraction: float,
                options: dict, mirror: str | None = None) -> SetCollection:
    """A set store for a graph dataset: each graph = the set of its nodes' struc2vec embeddings (raw files
    as in :func:`text_store`; the embedding checked by :func:`load_embedding`)."""
    from repset.embed import struc2vec

    coll = build_graph_collection(dataset, mirror, cache_dir=raw_dir, progress=False)
    dim = options.get("dim", inspect.signature(struc2vec).parameters["dim"].default)   # the configured, else the default
    emb = load_embedding(embedding, dataset, int(coll.n_nodes.sum()), dim)
    offsets = np.concatenate([[0], np.cumsum(coll.n_nodes)])
    # the skip-gram engine is how the embedding was trained, not what: its engines give the same floats, so the store
    # (and its sha256, which records name) does not depend on it
    recorded = {k: v for k, v in options.items() if k != "skipgram_engine"}
    meta = {"dataset": get_spec(dataset).name, "kind": "graph", "embedding": "struc2vec", "struc2vec": recorded,
            "embedding_sha256": sha256_file(embedding), "seed": seed,
            "split": {"protocol": "10-fold CV x 10 repeats", "val_fraction": val_fraction, "seed": seed}}
    sets = SetCollection(offsets=offsets, labels=coll.labels, class_names=[str(c) for c in coll.class_names],
                         splits=graph_cv_splits(coll, val_fraction=val_fraction, seed=seed), values=emb, meta=meta)
    save_store(out, sets)
    return sets


def dataset_table(datasets: list[str], stores: list[str], raw_dir: str, out_dir: str) -> None:
    """The datasets table (ours beside the paper's) from the text stores and the raw graphs (``stores``
    holds a text dataset's store path, anything for a graph dataset)."""
    from repset.datasets.stats import graph_row, text_row, write_dataset_table

    text_rows, graph_rows = [], []
    for name, store in zip(datasets, stores):
        if get_spec(name).kind == "text":
            text_rows.append(text_row(name, load_collection(store)[0]))
        else:
            graph_rows.append(graph_row(name, build_graph_collection(name, raw_dir)))
    write_dataset_table(text_rows, graph_rows, out_dir)


def read_benchmark(path: str | os.PathLike, output: str | os.PathLike | None = None) -> dict | None:
    """Wall seconds, CPU seconds and peak RSS (MB) from a Snakemake ``benchmark:`` TSV.

    None if the file is absent or older than ``output``: Snakemake writes the benchmark after the
    job's output, so an older one belongs to an earlier run."""
    if not os.path.isfile(path) or (output is not None and os.path.getmtime(path) < os.path.getmtime(output)):
        return None
    row = pd.read_csv(path, sep="\t").iloc[-1]
    return {"wall_s": float(row["s"]), "cpu_s": float(row["cpu_time"]), "max_rss_mb": float(row["max_rss"])}


def embedding_table(datasets: list[str], embeddings: list[str], benchmarks: list[str], options: list[dict],
                    raw_dir: str, out_stem: str, seed: int = 0) -> pd.DataFrame:
    """struc2vec per graph dataset: walk settings, tokens, measured cost (the embedding job's benchmark
    file, "-" when absent or older than the embedding) and how often a node's nearest neighbour shares its
    degree / its degree and neighbour degrees, beside chance (:mod:`repset.embed.quality`).
    Written as ``out_stem.{md,tex,csv}``."""
    from repset.embed import struc2vec
    from repset.embed.quality import neighbour_agreement, role_classes
    from repset.embed.struc2vec_dist import build_csr
    from repset.report.tables import write_table

    defaults = {k: p.default for k, p in inspect.signature(struc2vec).parameters.items()
                if p.default is not inspect.Parameter.empty}

    rows = []
    for name, embedding, bench, opts in zip(datasets, embeddings, benchmarks, options):
        coll = build_graph_collection(name, raw_dir)
        n = int(coll.n_nodes.sum())
        emb = load_embedding(embedding, name, n, opts.get("dim"))
        csr = build_csr(n, coll.edges)
        roles = {hops: neighbour_agreement(emb, role_classes(*csr, hops), seed=seed) for hops in (0, 1)}
        cost = read_benchmark(bench, output=embedding)
        opts = {**defaults, **opts}
        tokens = n * opts["walks_per_node"] * opts["walk_length"] * opts["epochs"]
        row = {"dataset": get_spec(name).name, "nodes": n, "dim": emb.shape[1],
               **{k: opts[k] for k in ("walks_per_node", "walk_length", "epochs", "workers")},
               "tokens_M": round(tokens / 1e6, 1),
               "wall_min": round(cost["wall_s"] / 60, 1) if cost else "-",
               "cpu_min": round(cost["cpu_s"] / 60, 1) if cost else "-",
               "max_rss_GB": round(cost["max_rss_mb"] / 1024, 2) if cost else "-"}
        for hops, label in ((0, "nn_degree"), (1, "nn_ring1")):
            row[f"{label}_agreement"] = round(roles[hops]["agreement"], 3)
            row[f"{label}_chance"] = round(roles[hops]["chance"], 3)
        rows.append(row)
    table = pd.DataFrame(rows).set_index("dataset")
    write_table(table, out_stem, caption="struc2vec embeddings: settings, measured cost (the embedding job's "
                "benchmark; - = not run by this workflow) and the share of 2,000 sampled nodes whose nearest "
                "neighbour has the same degree (nn_degree) or the same degree and neighbour degrees (nn_ring1), "
                "beside chance")
    return table
