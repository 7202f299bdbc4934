"""Atomic file output: write to a temporary file beside the target, then rename. Temporary files and
folders carry the host and process id in their names, so the ones a killed process left behind
(kill -9, a node lost) are removed by the next writer on the same host."""
from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _owner_tag() -> str:
    return f"{socket.gethostname().replace('.', '_')}-{os.getpid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_orphans(folder: str | os.PathLike, prefix: str) -> list[Path]:
    """Delete ``<folder>/<prefix><host>-<pid>-*`` files and folders whose process (on this host) is gone;
    return them. Entries of other hosts are left alone (their pids mean nothing here)."""
    host, removed = socket.gethostname().replace(".", "_"), []
    for path in Path(folder).glob(f"{prefix}{host}-*"):
        pid = path.name[len(prefix) + len(host) + 1:].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def temp_file_beside(target: str | os.PathLike, suffix: str = ".part") -> tuple[int, Path]:
    """``mkstemp`` beside ``target`` (``.<name>.<host>-<pid>-<random><suffix>``, mode 0666 minus the
    umask: mkstemp's own 0600 would hide results from the group on a shared cluster folder), after
    removing the ones killed writers of ``target`` left. Returns ``(fd, path)``."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_orphans(target.parent, f".{target.name}.")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{_owner_tag()}-", suffix=suffix, dir=target.parent)
    os.fchmod(fd, 0o666 & ~_umask())
    return fd, Path(tmp)


@contextmanager
def scratch_dir(prefix: str, parent: str | os.PathLike | None = None) -> Iterator[Path]:
    """A temporary folder ``<parent or $TMPDIR>/<prefix><host>-<pid>-<random>``, removed on exit; those
    that killed processes left are removed first."""
    parent = Path(parent or tempfile.gettempdir())
    remove_orphans(parent, prefix)
    with tempfile.TemporaryDirectory(dir=parent, prefix=f"{prefix}{_owner_tag()}-") as tmp:
        yield Path(tmp)


@contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path in the target's folder (:func:`temp_file_beside`); rename it onto
    ``target`` only on success."""
    target = Path(target)
    fd, tmp = temp_file_beside(target, target.suffix + ".part")
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(target: str | os.PathLike, writer: Callable[[Path], None]) -> Path:
    """Call ``writer(tmp_path)`` and move the result onto ``target`` atomically."""
    with atomic_path(target) as tmp:
        writer(tmp)
    return Path(target)


def write_json(target: str | os.PathLike, record: dict) -> Path:
    """Write ``record`` as indented JSON, atomically."""
    text = json.dumps(record, indent=2, sort_keys=True, default=str) + "\n"
    return write_atomic(target, lambda p: p.write_text(text))


def save_figure(fig, *paths: str | os.PathLike, dpi: int = 150) -> None:
    """Save a matplotlib figure to each path (format from the suffix: pdf, png, ...) atomically, then close it."""
    import matplotlib.pyplot as plt

    for path in paths:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=Path(path).suffix.lstrip("."), dpi=dpi)
    plt.close(fig)
