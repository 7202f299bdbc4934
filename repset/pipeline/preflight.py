"""What a job checks before its work: that it can write every folder its outputs go to, so that a read-only
folder fails the job at its start, not after hours of training, and a restore writes all its files or none."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["check_writable"]


def check_writable(paths: Iterable[str | os.PathLike], why: str = "") -> None:
    """Create the folder of each of ``paths`` (files to be written) and a file in it, removed at once; where
    that fails, an OSError of the same kind (PermissionError for a read-only folder) names the folder and the
    file meant for it. ``why``: what the caller has not done yet (``"nothing was trained"``), added to it."""
    seen = set()
    for path in map(Path, paths):
        folder = path.parent
        if folder in seen:
            continue
        seen.add(folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=folder)
            os.close(fd)
            os.unlink(probe)
        except OSError as err:
            raise type(err)(f"{folder}: cannot write {path.name} there ({err.strerror or err}); make the folder "
                            "writable and run again" + (f" ({why})" if why else "")) from None
