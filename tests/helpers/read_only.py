"""A folder that refuses new files for the length of a test, also for root (who ignores mode bits)."""
import os
import shutil
import stat
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest


def _writable(folder: Path) -> bool:
    try:
        fd, probe = tempfile.mkstemp(dir=folder)
    except OSError:
        return False
    os.close(fd)
    os.unlink(probe)
    return True


@contextmanager
def read_only(folder: Path):
    """``folder`` without write permission (mode 0555), made immutable where that is not enough (root:
    ``chattr +i``); the test is skipped where neither holds. Restored on exit."""
    folder.mkdir(parents=True, exist_ok=True)
    mode, immutable = stat.S_IMODE(folder.stat().st_mode), False
    folder.chmod(0o555)
    try:
        if _writable(folder) and shutil.which("chattr"):
            immutable = subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode == 0
        if _writable(folder):
            pytest.skip("cannot make a folder read-only here (root without chattr)")
        yield folder
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(mode)
