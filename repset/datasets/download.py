"""Fetch raw files into a cache: from a local mirror (used like a download cache) or by HTTP, sha256-verified.

Every file lands in ``cache_dir / source.path`` through a temporary file that is renamed only after its
checksum matched; a mismatch deletes the temporary file and raises :class:`ChecksumError`.
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import tarfile
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from repset.io import temp_file_beside

from .registry import CONFIG_KEY, MIRROR_ENV, DatasetSpec, Source

__all__ = ["ChecksumError", "OfflineError", "UnverifiedSourceError", "sha256_file", "resolve_mirror", "fetch",
           "fetch_all", "verify_file", "local_paths", "source_options", "choose_sources", "damaged_in_mirror"]

_CHUNK = 1 << 20


log = logging.getLogger(__name__)


class ChecksumError(RuntimeError):
    """A file's sha256 differs from the registry's."""

    def __init__(self, path: str | os.PathLike, expected: str, actual: str) -> None:
        super().__init__(f"sha256 mismatch for {path}: expected {expected}, got {actual}")
        self.path, self.expected, self.actual = str(path), expected, actual


class OfflineError(RuntimeError):
    """A file is not in the cache or the mirror and cannot be downloaded."""


class UnverifiedSourceError(RuntimeError):
    """A source without a pinned sha256 was requested without ``allow_unverified=True``."""


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def tree_sha256(archive: str | os.PathLike) -> str:
    """Content hash of a tar archive: sha256 of its sorted ``<member path>\t<sha256 of the member>`` lines
    (regular files only), independent of how it was packed (order, timestamps, owners, compression)."""
    lines = []
    with tarfile.open(archive, "r:*") as tar:
        for member in tar:
            if member.isfile():
                lines.append(f"{member.name}\t{hashlib.sha256(tar.extractfile(member).read()).hexdigest()}")
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()


def verify_file(path: str | os.PathLike, source: Source) -> str:
    """Raise :class:`ChecksumError` unless ``path`` has ``source.sha256`` (when known) or, for a packed
    archive, its ``tree_sha256`` (an archive packed here from the same files); return the actual hash."""
    actual = sha256_file(path)
    if source.sha256 is not None and actual != source.sha256:
        if source.packed and source.tree_sha256 is not None and tree_sha256(path) == source.tree_sha256:
            return actual
        raise ChecksumError(path, source.sha256, actual)
    return actual


def _matches(path: Path, source: Source) -> bool:
    try:
        verify_file(path, source)
    except (ChecksumError, tarfile.TarError, OSError, EOFError):
        return False
    return True


#: values of the mirror setting that mean "no mirror" (``--config data_mirror=null`` arrives as a string)
_UNSET = {"", "null", "none", "~"}


def mirror_candidates(mirror: str | os.PathLike | None = None) -> list[Path]:
    """Where a mirror may be, in order: the argument (the config key), then ``$REPSET_DATA_MIRROR``;
    unset values (None, "", "null", "none") are skipped."""
    values = [mirror, os.environ.get(MIRROR_ENV)]
    return [Path(v).expanduser() for v in values if v is not None and str(v).strip().lower() not in _UNSET]


def mirror_dirs(mirror: str | os.PathLike | None = None) -> list[Path]:
    """The mirror directories that exist, in the order of :func:`mirror_candidates`."""
    return [p for p in mirror_candidates(mirror) if p.is_dir()]


def resolve_mirror(mirror: str | os.PathLike | None = None) -> Path | None:
    """The first existing mirror directory of :func:`mirror_candidates`, else None."""
    found = mirror_dirs(mirror)
    return found[0] if found else None


def _hint(mirror: str | os.PathLike | None = None, path: str | None = None) -> str:
    """What to do when a file is neither cached nor downloadable: the mirror folders looked in (each without
    ``path``), the configured ones that are no folder, and how to set one."""
    found = mirror_dirs(mirror)
    missing = [str(p) for p in mirror_candidates(mirror) if not p.is_dir()]
    looked = (f"looked in the data mirror {', '.join(str(d) for d in found)}: no {path} there; " if found and path
              else "")
    return (looked + f"set the config key `{CONFIG_KEY}` or the environment variable {MIRROR_ENV} to a directory "
            f"laid out like the data mirror (see SOURCES.md)"
            + (f"; not a directory: {', '.join(missing)}" if missing else ""))


def damaged_in_mirror(sources: tuple[Source, ...] | list[Source], mirror: str | os.PathLike | None = None) -> list[str]:
    """A line for each of ``sources`` (with a pinned sha256) whose copy in a mirror folder fails its checksum:
    the file, and both sha256."""
    out = []
    for source in sources:
        for folder in mirror_dirs(mirror):
            path = folder / source.path
            if source.sha256 is not None and path.is_file():
                try:
                    verify_file(path, source)
                except ChecksumError as err:
                    out.append(f"{path} fails its checksum (sha256 {err.actual}, not {err.expected}: damaged or "
                               "truncated; replace it)")
                except (tarfile.TarError, OSError, EOFError) as err:
                    out.append(f"{path} cannot be read ({err}; replace it)")
    return out


@contextmanager
def _landing(target: Path, total: int | None, unit: str, progress: bool):
    """``(fd, tmp, advance)``: a temporary file beside ``target`` and a progress callback (a tqdm bar
    when ``progress``). Leaving the block normally renames the file onto ``target``; an exception deletes
    it. The bar is closed either way."""
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=total, unit=unit, unit_scale=unit == "B", desc=target.name, leave=False)
    fd, tmp = temp_file_beside(target)
    try:
        yield fd, tmp, (bar.update if bar is not None else (lambda n: None))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        if bar is not None:
            bar.close()


def _copy_verified(src_stream, target: Path, source: Source, label: str, total: int | None, progress: bool) -> Path:
    """Stream into a temp file beside ``target``, hashing; rename onto ``target`` only if the hash matches."""
    h = hashlib.sha256()
    with _landing(target, total, "B", progress) as (fd, _, advance):
        with os.fdopen(fd, "wb") as out:
            while chunk := src_stream.read(_CHUNK):
                h.update(chunk)
                out.write(chunk)
                advance(len(chunk))
        actual = h.hexdigest()
        if source.sha256 is not None and actual != source.sha256:
            raise ChecksumError(label, source.sha256, actual)
    return target


def _with_url(url: str, use, retries: int, backoff: float, timeout: float, mirror, path: str | None = None) -> object:
    """``use(response)`` for ``url``, retried with exponential backoff on network and server errors;
    OfflineError saying what failed (a client error such as 404 is not retried) and where ``path`` (the
    file's place in the mirror layout) was looked for."""
    last: Exception | None = None
    for attempt in range(max(1, retries)):
        if attempt:
            time.sleep(backoff * 2 ** (attempt - 1))
        try:
            req = urllib.request.Request(url, headers={"User-Agent": "repset-data/0.1"})
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return use(resp)
        except urllib.error.HTTPError as e:
            if e.code < 500 and e.code != 429:  # permanent: not found, forbidden, ...
                raise OfflineError(f"cannot download {url}: HTTP {e.code}; {_hint(mirror, path)}") from e
            last = e
        except (urllib.error.URLError, OSError, TimeoutError) as e:
            last = e
    raise OfflineError(f"cannot download {url} after {max(1, retries)} attempt(s) ({last}); "
                       f"offline? {_hint(mirror, path)}") from last


def _download(source: Source, target: Path, retries: int, backoff: float, timeout: float, progress: bool,
              mirror: str | os.PathLike | None = None) -> Path:
    assert source.url is not None

    def copy(resp) -> Path:
        length = resp.headers.get("Content-Length") if hasattr(resp, "headers") else None
        return _copy_verified(resp, target, source, source.url, int(length) if length else source.size, progress)

    return _with_url(source.url, copy, retries, backoff, timeout, mirror, source.path)


def _get(url: str, retries: int, backoff: float, timeout: float, mirror, path: str | None = None) -> bytes:
    """The bytes at ``url`` (see :func:`_with_url`)."""
    return _with_url(url, lambda resp: resp.read(), retries, backoff, timeout, mirror, path)


def _download_packed(source: Source, target: Path, retries: int, backoff: float, timeout: float, progress: bool,
                     mirror: str | os.PathLike | None = None) -> Path:
    """Fetch the members of a packed source one by one (from its pinned listing), pack them into
    ``target`` (sorted, no timestamps) and keep it only if its content hash is ``source.tree_sha256``."""
    listing = json.loads(_get(source.listing, retries, backoff, timeout, mirror, source.path))
    if listing.get("truncated"):
        raise OfflineError(f"{source.listing}: the listing is truncated; place {source.path} in a mirror instead")
    prefix = source.listing_root + source.members
    names = sorted(e["path"][len(source.listing_root):] for e in listing.get("tree", [])
                   if e.get("type") == "blob" and e["path"].startswith(prefix))
    if not names:
        raise OfflineError(f"{source.listing} lists no file under {prefix}")
    with _landing(target, len(names), "file", progress) as (fd, tmp, advance):
        with os.fdopen(fd, "wb") as out, tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
            for name in names:
                data = _get(f"{source.member_base}/{name}", retries, backoff, timeout, mirror, source.path)
                info = tarfile.TarInfo(name)
                info.size, info.mode, info.mtime = len(data), 0o644, 0
                tar.addfile(info, io.BytesIO(data))
                advance(1)
        actual = tree_sha256(tmp)
        if actual != source.tree_sha256:
            raise ChecksumError(f"{source.path} packed from {source.member_base}/{source.members} (content hash)",
                                source.tree_sha256, actual)
    log.info("%s: %d files fetched and packed, content hash verified", target, len(names))
    return target


def fetch(source: Source, cache_dir: str | os.PathLike, mirror: str | os.PathLike | None = None, *,
          allow_unverified: bool = False, retries: int = 3, backoff: float = 1.0, timeout: float = 60.0,
          progress: bool = True) -> Path:
    """Return the path of ``source`` in ``cache_dir``, fetching it first if needed.

    Order: a cached file with the right hash is reused; else the mirror copy (the first of the argument
    and ``$REPSET_DATA_MIRROR`` that holds it: :func:`mirror_dirs`) is copied in and verified; else the URL is downloaded (retries with
    exponential backoff) and verified before the rename. Sources without a pinned sha256 are refused
    unless ``allow_unverified=True``. Raises :class:`ChecksumError` or :class:`OfflineError`.
    """
    if source.sha256 is None and not allow_unverified:
        raise UnverifiedSourceError(f"{source.path} has no pinned sha256 (url: {source.url}); pass "
                                    f"allow_unverified=True to use an unverified copy")
    target = Path(cache_dir) / source.path
    if target.is_file():
        if _matches(target, source):
            return target
        log.warning("%s: sha256 differs from the registry's (corrupted or truncated); fetching it again", target)
    mirror_dir = next((d for d in mirror_dirs(mirror) if (d / source.path).is_file()), None)
    if mirror_dir is not None:
        src = mirror_dir / source.path
        if src.resolve() == target.resolve():
            verify_file(src, source)
            return target
        with open(src, "rb") as f:
            return _copy_verified(f, target, source, str(src), src.stat().st_size, progress=False)
    if source.url is None:
        raise OfflineError(f"{source.path} has no public URL ({source.note or 'not published'}): place it at "
                           f"<mirror>/{source.path}; {_hint(mirror, source.path)}")
    if source.packed:
        if source.listing is None or source.tree_sha256 is None:
            raise OfflineError(f"{source.path} was packed from many files at {source.url} and cannot be downloaded "
                               f"as one file: place it at <mirror>/{source.path}, or use the dataset's alternative "
                               f"source; {_hint(mirror, source.path)}")
        return _download_packed(source, target, retries, backoff, timeout, progress, mirror)
    return _download(source, target, retries, backoff, timeout, progress, mirror)


def _held(source: Source, cache_dir: str | os.PathLike, mirror: str | os.PathLike | None) -> bool:
    """Is ``source`` already at hand: in the cache, verified, or in a mirror directory?"""
    cached = Path(cache_dir) / source.path
    if cached.is_file() and _matches(cached, source):
        return True
    return any((d / source.path).is_file() for d in mirror_dirs(mirror))


def _downloadable(source: Source) -> bool:
    """One public file with a pinned sha256, or a packed archive whose files can be fetched one by one
    and verified by their content hash."""
    if source.packed:
        return source.listing is not None and source.tree_sha256 is not None
    return source.url is not None and source.sha256 is not None


def source_options(spec: DatasetSpec) -> list[tuple[str, tuple[Source, ...]]]:
    """The interchangeable raw sources of a text dataset (same parser, same layout): the registry's own
    and, where it names one with a pinned checksum, its alternative (e.g. 20NG's official archive)."""
    options = [("registry", tuple(spec.sources))]
    alternative = tuple(s for s in spec.alt_sources if not s.path.endswith(".mat"))
    if spec.kind == "text" and alternative and all(s.sha256 is not None for s in alternative):
        options.append(("alternative", alternative))
    return options


def choose_sources(spec: DatasetSpec, cache_dir: str | os.PathLike,
                   mirror: str | os.PathLike | None = None) -> tuple[str, tuple[Source, ...]]:
    """Which of :func:`source_options` to fetch: the first already at hand (cache or mirror), else one
    that can be downloaded with pinned checksums (single files before archives packed from many files),
    else the registry's (whose fetch then says what is missing)."""
    options = source_options(spec)
    for label, sources in options:
        if sources and all(_held(s, cache_dir, mirror) for s in sources):
            return label, sources
    # downloadable ones, fewest packed archives first: one archive beats thousands of single-file requests
    ranked = sorted(options, key=lambda option: sum(s.packed for s in option[1]))
    for label, sources in ranked:
        if sources and all(_downloadable(s) for s in sources):
            return label, sources
    return options[0]


def fetch_all(spec: DatasetSpec, cache_dir: str | os.PathLike, mirror: str | os.PathLike | None = None,
              **kw) -> dict[str, Path]:
    """Fetch every primary source of ``spec``; map ``source.path`` to its cached path."""
    return {s.path: fetch(s, cache_dir, mirror, **kw) for s in spec.sources}



def local_paths(sources: tuple[Source, ...] | list[Source], raw_dir: str | os.PathLike | None = None,
                cache_dir: str | os.PathLike | None = None, *, verify: bool = True, **kw) -> list[Path]:
    """Local files for ``sources``, in order.

    With ``cache_dir``: :func:`fetch` each (``raw_dir`` serving as the mirror). Without: read them in place
    from ``raw_dir`` (default ``$REPSET_DATA_MIRROR``), checking each sha256 unless ``verify=False``.
    """
    if cache_dir is not None:
        return [fetch(s, cache_dir, raw_dir, **kw) for s in sources]
    root = resolve_mirror(raw_dir)
    if root is None:
        raise OfflineError(f"no raw data directory given and no cache_dir; {_hint(raw_dir)}")
    out = []
    for s in sources:
        if s.sha256 is None and not kw.get("allow_unverified", False):
            raise UnverifiedSourceError(f"{s.path} has no pinned sha256; pass allow_unverified=True to use it")
        p = root / s.path
        if not p.is_file():
            raise OfflineError(f"{p} not found (public URL: {s.url}); pass cache_dir= to download it, or {_hint(raw_dir)}")
        if verify:
            try:
                verify_file(p, s)
            except ChecksumError as err:
                raise ChecksumError(f"{p} (corrupted or truncated after it was fetched: delete it and the dataset's "
                                    f"manifest <raw_dir>/<dataset>.sources.json, then rerun; the download rule "
                                    f"fetches it again)", err.expected, err.actual) from None
        out.append(p)
    return out
