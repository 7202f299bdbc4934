"""fetch(): mirror used as a download cache, verified downloads, checksum refusal, offline errors."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from repset.datasets import download as D
from repset.datasets.registry import Source
from repo_paths import MIRROR, ROOT

DATA = b"hello repset\n" * 100
SHA = hashlib.sha256(DATA).hexdigest()


def _mirror(tmp_path: Path, data: bytes = DATA, rel: str = "ds/file.txt") -> Path:
    m = tmp_path / "mirror"
    (m / rel).parent.mkdir(parents=True)
    (m / rel).write_bytes(data)
    return m


def _leftovers(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*") if p.is_file()] if cache.exists() else []


def test_fetch_copies_from_mirror_and_reuses_cache(tmp_path):
    mirror = _mirror(tmp_path)
    src = Source("ds/file.txt", "https://example.invalid/file.txt", SHA, len(DATA))
    cache = tmp_path / "cache"
    p = D.fetch(src, cache, mirror, progress=False)
    assert p == cache / "ds/file.txt" and p.read_bytes() == DATA
    (mirror / "ds/file.txt").unlink()  # cached copy is reused, no mirror or network needed
    assert D.fetch(src, cache, mirror, progress=False) == p
    assert _leftovers(cache) == [p]


def test_corrupted_mirror_file_raises_and_caches_nothing(tmp_path):
    mirror = _mirror(tmp_path, DATA[:-7])  # truncated
    src = Source("ds/file.txt", "https://example.invalid/file.txt", SHA, len(DATA))
    cache = tmp_path / "cache"
    with pytest.raises(D.ChecksumError) as e:
        D.fetch(src, cache, mirror, progress=False)
    msg = str(e.value)
    assert str(mirror / "ds/file.txt") in msg and SHA in msg
    assert hashlib.sha256(DATA[:-7]).hexdigest() in msg
    assert _leftovers(cache) == []


def test_mirror_from_environment_variable(tmp_path, monkeypatch):
    mirror = _mirror(tmp_path)
    monkeypatch.setenv("REPSET_DATA_MIRROR", str(mirror))
    src = Source("ds/file.txt", None, SHA)
    assert D.fetch(src, tmp_path / "cache", progress=False).read_bytes() == DATA


def test_cached_file_with_wrong_hash_is_replaced(tmp_path):
    mirror = _mirror(tmp_path)
    cache = tmp_path / "cache"
    (cache / "ds").mkdir(parents=True)
    (cache / "ds/file.txt").write_bytes(b"stale")
    p = D.fetch(Source("ds/file.txt", None, SHA), cache, mirror, progress=False)
    assert p.read_bytes() == DATA


def test_download_over_url_verified(tmp_path):
    remote = tmp_path / "remote.bin"
    remote.write_bytes(DATA)
    src = Source("ds/remote.bin", remote.as_uri(), SHA, len(DATA))
    p = D.fetch(src, tmp_path / "cache", mirror=tmp_path / "empty-mirror", progress=True)
    assert p.read_bytes() == DATA


def test_download_with_wrong_checksum_deletes_temp_file(tmp_path):
    remote = tmp_path / "remote.bin"
    remote.write_bytes(DATA)
    src = Source("ds/remote.bin", remote.as_uri(), "0" * 64)
    cache = tmp_path / "cache"
    with pytest.raises(D.ChecksumError) as e:
        D.fetch(src, cache, progress=False)
    assert remote.as_uri() in str(e.value) and "0" * 64 in str(e.value) and SHA in str(e.value)
    assert _leftovers(cache) == []


def test_offline_without_mirror_names_url_and_config(tmp_path, monkeypatch):
    monkeypatch.delenv("REPSET_DATA_MIRROR", raising=False)
    url = "http://127.0.0.1:9/nothing.zip"  # discard port on loopback: connection refused
    with pytest.raises(D.OfflineError) as e:
        D.fetch(Source("x/nothing.zip", url, SHA), tmp_path / "cache", retries=2, backoff=0.0, timeout=5,
                progress=False)
    msg = str(e.value)
    assert url in msg and "data_mirror" in msg and "REPSET_DATA_MIRROR" in msg and "2 attempt" in msg


def test_retries_with_backoff(tmp_path, monkeypatch):
    remote = tmp_path / "remote.bin"
    remote.write_bytes(DATA)
    real_urlopen = urllib.request.urlopen
    calls, sleeps = [], []

    def flaky(req, timeout=None):
        calls.append(req)
        if len(calls) < 3:
            raise urllib.error.URLError("temporary failure")
        return real_urlopen(remote.as_uri(), timeout=timeout)

    monkeypatch.setattr(D.urllib.request, "urlopen", flaky)
    monkeypatch.setattr(D.time, "sleep", sleeps.append)
    p = D.fetch(Source("ds/r.bin", "https://example.invalid/r.bin", SHA), tmp_path / "c", retries=3, backoff=0.5,
                progress=False)
    assert p.read_bytes() == DATA and len(calls) == 3 and sleeps == [0.5, 1.0]


def test_unverified_source_refused_unless_allowed(tmp_path):
    remote = tmp_path / "remote.bin"
    remote.write_bytes(DATA)
    src = Source("ds/remote.bin", remote.as_uri(), None)
    with pytest.raises(D.UnverifiedSourceError, match="allow_unverified=True"):
        D.fetch(src, tmp_path / "cache", progress=False)
    assert not (tmp_path / "cache").exists()
    assert D.fetch(src, tmp_path / "cache", allow_unverified=True, progress=False).read_bytes() == DATA


def test_packed_or_urlless_sources_need_the_mirror(tmp_path, monkeypatch):
    monkeypatch.delenv("REPSET_DATA_MIRROR", raising=False)
    packed = Source("20ng/a.tar.gz", "https://example.invalid/{train,test}/<id>", SHA, packed=True)
    with pytest.raises(D.OfflineError, match="packed from many files"):
        D.fetch(packed, tmp_path / "c", progress=False)
    with pytest.raises(D.OfflineError, match="no public URL"):
        D.fetch(Source("r/recipe.mat", None, SHA), tmp_path / "c", progress=False)


def test_local_paths_verifies_in_place(tmp_path):
    mirror = _mirror(tmp_path, b"tampered")
    src = Source("ds/file.txt", None, SHA)
    with pytest.raises(D.ChecksumError):
        D.local_paths([src], mirror)
    assert D.local_paths([src], mirror, verify=False) == [mirror / "ds/file.txt"]
    with pytest.raises(D.OfflineError, match="not found"):
        D.local_paths([Source("ds/missing.txt", "https://example.invalid/m", SHA)], mirror)


def test_environment_mirror_is_used_where_the_configured_one_does_not_exist(tmp_path, monkeypatch):
    mirror = _mirror(tmp_path)
    monkeypatch.setenv("REPSET_DATA_MIRROR", str(mirror))
    src = Source("ds/file.txt", "https://example.invalid/file.txt", SHA)
    p = D.fetch(src, tmp_path / "cache", tmp_path / "absent-mirror", progress=False)   # config default missing
    assert p.read_bytes() == DATA


@pytest.mark.parametrize("unset", [None, "null", "None", ""])
def test_unset_mirror_values_fall_back_to_the_environment(tmp_path, monkeypatch, unset):
    mirror = _mirror(tmp_path)
    monkeypatch.setenv("REPSET_DATA_MIRROR", str(mirror))
    assert D.resolve_mirror(unset) == mirror
    assert D.fetch(Source("ds/file.txt", None, SHA), tmp_path / f"cache{unset}", unset, progress=False).is_file()


def test_offline_error_names_a_configured_mirror_that_does_not_exist(tmp_path, monkeypatch):
    monkeypatch.delenv("REPSET_DATA_MIRROR", raising=False)
    with pytest.raises(D.OfflineError, match="not a directory: .*nowhere"):
        D.fetch(Source("ds/file.txt", None, SHA), tmp_path / "cache", tmp_path / "nowhere", progress=False)


def _spec(packed: Source, alternative: tuple[Source, ...]):
    from repset.datasets.registry import DatasetSpec, ExpectedText, PaperText

    return DatasetSpec("toy20ng", "TOY", "text", (packed,), "20ng_tar", "predefined", 1, ExpectedText(2, 2),
                       PaperText(1, 1, 1, 1.0, 2), alt_sources=alternative)


def test_the_registrys_sources_are_used_where_they_are_at_hand(tmp_path):
    mirror = _mirror(tmp_path, rel="toy/packed.tar.gz")
    remote = tmp_path / "official.tar.gz"
    remote.write_bytes(DATA)
    packed = Source("toy/packed.tar.gz", "https://example.invalid/<files>", SHA, packed=True)
    official = Source("toy/official/x.tar.gz", remote.as_uri(), SHA)
    spec = _spec(packed, (official,))
    assert D.choose_sources(spec, tmp_path / "cache", mirror) == ("registry", (packed,))
    # no mirror: the packed archive cannot be downloaded, the alternative (pinned) can
    label, sources = D.choose_sources(spec, tmp_path / "cache", tmp_path / "no-mirror")
    assert (label, sources) == ("alternative", (official,))
    assert D.fetch(sources[0], tmp_path / "cache", progress=False).read_bytes() == DATA
    # an alternative without a pinned checksum is never chosen
    unpinned = _spec(packed, (Source("toy/o.tar.gz", remote.as_uri(), None),))
    assert D.choose_sources(unpinned, tmp_path / "c2", tmp_path / "no-mirror")[0] == "registry"


def test_20ng_has_a_downloadable_source_with_scikit_learns_checksum():
    from repset.datasets.registry import get_spec

    options = dict(D.source_options(get_spec("20ng")))
    (official,) = options["alternative"]
    assert official.url == "https://ndownloader.figshare.com/files/5975967" and not official.packed
    assert official.sha256 == "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610"
    assert [label for label, _ in D.source_options(get_spec("ohsumed"))] == ["registry"]   # nothing pinned


def _fake_repo(tmp_path, files: dict[str, bytes]):
    """A repository at a pinned commit as file:// URLs: its git/trees listing and its raw files."""
    import json

    root = tmp_path / "repo"
    for name, data in files.items():
        (root / "data" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "data" / name).write_bytes(data)
    tree = [{"path": f"data/{n}", "type": "blob"} for n in files] + [{"path": "data/corpus", "type": "tree"},
                                                                     {"path": "README.md", "type": "blob"}]
    (tmp_path / "tree.json").write_text(json.dumps({"tree": tree, "truncated": False}))
    return (tmp_path / "tree.json").as_uri(), (root / "data").as_uri()


def _tree_hash(files: dict[str, bytes], folder: str) -> str:
    lines = sorted(f"{n}\t{hashlib.sha256(d).hexdigest()}" for n, d in files.items() if n.startswith(folder))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


FILES = {"ohsumed_single_23/training/C01/0000001": b"heart attack\n", "ohsumed_single_23/test/C02/0000002": b"cancer\n",
         "R8/train.txt": b"not a member\n"}


def test_a_packed_archive_is_fetched_file_by_file_and_verified_by_content(tmp_path):
    listing, base = _fake_repo(tmp_path, FILES)
    src = Source("ohsumed/ohsumed-single-23.tar.gz", f"{base}/ohsumed_single_23/...", "0" * 64, packed=True,
                 tree_sha256=_tree_hash(FILES, "ohsumed_single_23/"), listing=listing, listing_root="data/",
                 members="ohsumed_single_23/", member_base=base)
    path = D.fetch(src, tmp_path / "cache", tmp_path / "no-mirror", progress=False)
    with tarfile.open(path) as tar:
        assert sorted(m.name for m in tar) == sorted(n for n in FILES if n.startswith("ohsumed"))
    assert D.tree_sha256(path) == src.tree_sha256 and D.verify_file(path, src)     # bytes differ, content equal
    assert D.fetch(src, tmp_path / "cache", progress=False) == path                 # the cached copy is reused
    changed = dict(FILES, **{"ohsumed_single_23/test/C02/0000002": b"tampered\n"})
    listing, base = _fake_repo(tmp_path / "other", changed)
    bad = Source(src.path, src.url, src.sha256, packed=True, tree_sha256=src.tree_sha256, listing=listing,
                 listing_root="data/", members="ohsumed_single_23/", member_base=base)
    with pytest.raises(D.ChecksumError, match="content hash"):
        D.fetch(bad, tmp_path / "cache2", tmp_path / "no-mirror", progress=False)
    assert _leftovers(tmp_path / "cache2") == []


def test_ohsumed_and_20ng_are_downloadable_from_text_gcn_at_a_pinned_commit():
    from repset.datasets.registry import get_spec

    for name in ("ohsumed", "20ng"):
        (packed,) = get_spec(name).sources
        assert packed.packed and packed.tree_sha256 and "962223652e9bb164ac2d83cd09fc7b8845ce860b" in packed.listing
    spec = get_spec("20ng")   # both downloadable: the single official archive is preferred
    assert D.choose_sources(spec, "/nonexistent-cache", "/nonexistent-mirror")[0] == "alternative"


@pytest.mark.skipif(not (MIRROR / "SHA256SUMS").is_file(), reason="data mirror not present")
@pytest.mark.parametrize("name", ["ohsumed", "20ng"])
def test_the_mirrors_packed_archives_have_the_registrys_content_hash(name):
    from repset.datasets.registry import get_spec

    (packed,) = get_spec(name).sources
    assert D.tree_sha256(MIRROR / packed.path) == packed.tree_sha256


@pytest.mark.skipif(not (MIRROR / "SHA256SUMS").is_file(), reason="data mirror not present")
def test_a_callers_exported_mirror_changes_no_test():
    """The suite run by a user who exported REPSET_DATA_MIRROR (the mirror's real ohsumed archive was taken
    instead of a test's own repository): tests/conftest.py clears it; tests that want it set it themselves."""
    tests = [f"{__file__}::test_a_packed_archive_is_fetched_file_by_file_and_verified_by_content",
             f"{__file__}::test_ohsumed_and_20ng_are_downloadable_from_text_gcn_at_a_pinned_commit"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=ROOT,
                          env=dict(os.environ, REPSET_DATA_MIRROR=str(MIRROR)), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]


def test_offline_error_names_the_mirror_folder_it_looked_in(tmp_path, monkeypatch):
    monkeypatch.setattr(D.time, "sleep", lambda seconds: None)
    mirror = _mirror(tmp_path, rel="ds/other.txt")
    with pytest.raises(D.OfflineError, match=rf"looked in the data mirror {mirror}: no ds/file.txt there"):
        D.fetch(Source("ds/file.txt", "http://127.0.0.1:9/file.txt", SHA), tmp_path / "cache", mirror, retries=1,
                timeout=5, progress=False)
    assert D.damaged_in_mirror([Source("ds/other.txt", None, SHA), Source("ds/file.txt", None, SHA)], mirror) == []
    assert D.damaged_in_mirror([Source("ds/other.txt", None, "0" * 64)], mirror) == [
        f"{mirror / 'ds/other.txt'} fails its checksum (sha256 {SHA}, not {'0' * 64}: damaged or truncated; "
        "replace it)"]
