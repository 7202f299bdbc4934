"""Data-stage glue (repset.pipeline.data): struc2vec of a real dataset and the embeddings table."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from repo_paths import MIRROR

from repset.datasets.download import ChecksumError
from repset.datasets.graphs import GraphCollection, build_graph_collection
from repset.datasets.store import load_collection
from repset.pipeline.data import embedding_table, graph_embedding, graph_store, read_benchmark

needs_mirror = pytest.mark.skipif(not (MIRROR / "SHA256SUMS").is_file(), reason="data mirror not present")
SMALL = {"walks_per_node": 1, "walk_length": 40, "epochs": 1}   # 0.13 M tokens: ~2 s


def write_benchmark(path, wall_s: float, rss_mb: float, cpu_s: float):
    """A Snakemake ``benchmark:`` TSV (its header, one row)."""
    path.write_text("s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
                    f"{wall_s}\t0:01:39\t{rss_mb}\t1170.79\t249.38\t323.74\t0.06\t11.98\t75.36\t{cpu_s}\n")
    return path


def test_read_benchmark_takes_the_snakemake_columns(tmp_path):
    path = write_benchmark(tmp_path / "b.tsv", 99.44, 401.10, 75.52)
    assert read_benchmark(path) == {"wall_s": 99.44, "cpu_s": 75.52, "max_rss_mb": 401.10}
    assert read_benchmark(tmp_path / "absent.tsv") is None
    # older than the output it measured: an earlier run's, not reported
    output = tmp_path / "out.npy"
    output.write_bytes(b"")
    stamp = output.stat().st_mtime
    os.utime(path, (stamp - 10, stamp - 10))
    assert read_benchmark(path, output=output) is None
    os.utime(path, (stamp + 10, stamp + 10))
    assert read_benchmark(path, output=output) == {"wall_s": 99.44, "cpu_s": 75.52, "max_rss_mb": 401.10}


@needs_mirror
def test_mutag_embedding_and_table(tmp_path):
    out = tmp_path / "MUTAG.npy"
    # the paper wording's rules, on which the agreement bounds below were measured (the reference's: 0.55 at these walks)
    info = graph_embedding("MUTAG", str(MIRROR), str(out), {"dim": 8, "variant": "paper", **SMALL}, seed=0)
    emb = np.load(out)
    assert info["nodes"] == 3371 and emb.shape == (3371, 8) and emb.dtype == np.float32
    table = embedding_table(["MUTAG"], [str(out)], [str(tmp_path / "none.tsv")], [SMALL], str(MIRROR),
                            str(tmp_path / "embeddings"), seed=0)
    row = table.loc["MUTAG"]
    assert row["nodes"] == 3371 and row["tokens_M"] == round(3371 * 40 / 1e6, 1) and row["workers"] == 1
    assert row["wall_min"] == "-"   # no benchmark file: not measured, not invented
    # structure survives even these short walks: neighbours share the 1-hop role far above chance
    # (measured 0.84 and 0.89 against chances of 0.15 and 0.36)
    assert row["nn_ring1_agreement"] > 0.7 and row["nn_ring1_chance"] < 0.2
    assert row["nn_degree_agreement"] > 0.7 and row["nn_degree_chance"] < 0.4
    assert row["dim"] == 8
    # a benchmark file older than the embedding belongs to an earlier run: not reported
    bench = write_benchmark(tmp_path / "MUTAG.tsv", 120.0, 400.0, 90.0)
    stamp = out.stat().st_mtime
    os.utime(bench, (stamp - 10, stamp - 10))
    stale = embedding_table(["MUTAG"], [str(out)], [str(bench)], [SMALL], str(MIRROR), str(tmp_path / "e2"))
    assert stale.loc["MUTAG", "wall_min"] == "-"
    os.utime(bench, (stamp + 10, stamp + 10))
    fresh = embedding_table(["MUTAG"], [str(out)], [str(bench)], [SMALL], str(MIRROR), str(tmp_path / "e2"))
    assert (fresh.loc["MUTAG", "wall_min"], fresh.loc["MUTAG", "cpu_min"], fresh.loc["MUTAG", "max_rss_GB"]) == (2.0, 1.5, 0.39)
    written = pd.read_csv(tmp_path / "embeddings.csv", index_col=0)
    assert written.loc["MUTAG", "nodes"] == 3371 and (tmp_path / "embeddings.md").read_text().count("MUTAG") == 1


PROBE = """import sys
from repset.embed.resumable import CheckpointBusy, held
try:
    with held(sys.argv[1]):
        print("held")
except CheckpointBusy:
    print("busy")
"""


@needs_mirror
def test_a_checkpointed_embedding_resumes_and_its_folder_goes_once_written(tmp_path, monkeypatch):
    from gensim.models import Word2Vec

    options = {"dim": 8, "variant": "reference", **SMALL, "walks_per_node": 2}
    whole = tmp_path / "whole.npy"
    graph_embedding("MUTAG", str(MIRROR), str(whole), {**options, "checkpoint": True}, seed=0)
    assert not (tmp_path / "whole.npy.ckpt").exists()
    out, real, calls = tmp_path / "MUTAG.npy", Word2Vec.train, []

    def stop_second_chunk(self, *args, **kwargs):   # the job dies in its second skip-gram chunk
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Word2Vec, "train", stop_second_chunk)
    with pytest.raises(KeyboardInterrupt):
        graph_embedding("MUTAG", str(MIRROR), str(out), {**options, "checkpoint": True}, seed=0)
    assert not out.exists() and (tmp_path / "MUTAG.npy.ckpt" / "skipgram" / "chunks.json").exists()
    monkeypatch.setattr(Word2Vec, "train", real)
    removals, rmtree = [], shutil.rmtree

    def remove_while_probing(path, *args, **kwargs):   # a second build that starts while the folder goes is refused
        if str(path) == f"{out}.ckpt":
            removals.append(subprocess.run([sys.executable, "-c", PROBE, path], capture_output=True, text=True).stdout)
        rmtree(path, *args, **kwargs)

    monkeypatch.setattr("repset.pipeline.data.shutil.rmtree", remove_while_probing)
    graph_embedding("MUTAG", str(MIRROR), str(out), {**options, "checkpoint": True}, seed=0)   # the rerun
    np.testing.assert_array_equal(np.load(out), np.load(whole))
    assert removals == ["busy\n"]
    assert not (tmp_path / "MUTAG.npy.ckpt").exists()


@needs_mirror
def test_a_corrupted_raw_file_heals_from_the_mirror(tmp_path):
    raw = tmp_path / "raw"
    coll = build_graph_collection("MUTAG", MIRROR, cache_dir=raw, progress=False)       # fetched, verified
    path = max((p for p in raw.rglob("*") if p.is_file()), key=lambda p: p.stat().st_size)
    path.write_bytes(path.read_bytes()[:100])                                          # corrupted later
    with pytest.raises(ChecksumError, match="corrupted or truncated after it was fetched: delete it and"):
        build_graph_collection("MUTAG", raw)                                           # read in place: named
    emb = np.zeros((int(coll.n_nodes.sum()), 2), dtype=np.float32)
    np.save(tmp_path / "emb.npy", emb)
    graph_store("MUTAG", str(raw), str(tmp_path / "emb.npy"), str(tmp_path / "MUTAG.npz"), seed=0, val_fraction=0.1,
                options={"dim": 2}, mirror=str(MIRROR))                                # the rule's call heals it
    assert load_collection(tmp_path / "MUTAG.npz")[0].labels.tolist() == coll.labels.tolist()
    assert build_graph_collection("MUTAG", raw).labels.tolist() == coll.labels.tolist()


def tiny_graphs(name: str, *args, **kwargs) -> GraphCollection:
    """20 two-node graphs (one edge each), 10 per class: what the test's graph_store reads instead of MUTAG."""
    return GraphCollection("MUTAG", np.full(20, 2), np.arange(40).reshape(20, 2), np.arange(20) % 2, ["-1", "1"])


@pytest.mark.parametrize("embedding, message", [
    (np.full((40, 4), np.nan, np.float32), r"emb\.npy: 40 of 40 nodes have NaN or infinite values"),
    (np.ones((40, 3), np.float32), r"emb\.npy: dimension 3, but struc2vec dim is 4"),
    (np.ones(40, np.float32), r"emb\.npy: a 1-D array of shape \(40,\); expected \(nodes, dim\) = \(40, 4\)"),
    (np.ones((39, 4), np.float32), r"emb\.npy: 39 embeddings for 40 nodes of MUTAG"),
])
def test_graph_store_refuses_a_bad_embedding_naming_the_file(tmp_path, monkeypatch, embedding, message):
    monkeypatch.setattr("repset.pipeline.data.build_graph_collection", tiny_graphs)
    path = tmp_path / "emb.npy"
    np.save(path, embedding)
    with pytest.raises(ValueError, match=message):
        graph_store("MUTAG", str(tmp_path), str(path), str(tmp_path / "MUTAG.npz"), seed=0, val_fraction=0.1,
                    options={"dim": 4})
    assert not (tmp_path / "MUTAG.npz").exists()
    np.save(path, np.ones((40, 20), np.float32))        # struc2vec's default dim when the options name none
    graph_store("MUTAG", str(tmp_path), str(path), str(tmp_path / "MUTAG.npz"), seed=0, val_fraction=0.1, options={})
    assert load_collection(tmp_path / "MUTAG.npz")[0].dim == 20


def test_a_damaged_archive_as_the_only_copy_in_the_mirror_is_named_with_the_mirror(tmp_path, monkeypatch):
    """MUTAG with only a damaged MUTAG.zip in the configured mirror, offline: the error names the mirror folder
    it looked in, the file it looked for and the file that failed its checksum (not only a URL); nothing is
    cached."""
    import urllib.error

    from repset.datasets import download
    from repset.datasets.download import OfflineError
    from repset.pipeline.data import download_sources

    mirror = tmp_path / "mirror"
    (mirror / "MUTAG").mkdir(parents=True)
    (mirror / "MUTAG" / "MUTAG.zip").write_bytes(b"PK\x03\x04 not the archive")

    def offline(*args, **kwargs):
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(download.urllib.request, "urlopen", offline)
    monkeypatch.setattr(download.time, "sleep", lambda seconds: None)
    with pytest.raises(OfflineError) as err:
        download_sources("MUTAG", str(tmp_path / "raw"), str(mirror), tmp_path / "MUTAG.sources.json")
    message = str(err.value)
    assert f"looked in the data mirror {mirror}: no MUTAG/MUTAG_A.txt there" in message
    assert f"{mirror / 'MUTAG' / 'MUTAG.zip'} fails its checksum" in message
    assert not (tmp_path / "MUTAG.sources.json").exists()
    assert not [p for p in (tmp_path / "raw").rglob("*") if p.is_file()]
