"""Atomic file output: write to a temporary file beside the target, then rename."""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto ``target`` only on success.
    The file gets the permissions a plain ``open`` would give it (0666 minus the umask; mkstemp's
    own 0600 would hide results from the group on a shared cluster folder)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix + ".part", dir=target.parent)
    os.fchmod(fd, 0o666 & ~_umask())
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
