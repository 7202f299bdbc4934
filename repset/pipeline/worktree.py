"""The uncommitted change a record was trained with. A record names its commit (``provenance.git_commit``),
``+dirty`` where tracked files differ from it; that commit alone does not say what ran. A training job from
such a tree therefore records the diff of the code against that commit (``git diff HEAD --binary``, which
``git apply`` restores on it) and the diff's sha256, so that the code of every record can be rebuilt. The
diff leaves out what does not run (:data:`NOT_CODE`: the record folder, whose archives change at each export,
the documentation); a tree dirty only there records the empty diff."""
from __future__ import annotations

import base64
import hashlib
import os
import subprocess
from pathlib import Path

from repset.provenance import COMMIT_ENV, git_commit

__all__ = ["tree_diff", "CHECKOUT", "NOT_CODE"]

#: the checkout holding this package (its commit is the one ``provenance.git_commit`` names first)
CHECKOUT = Path(__file__).resolve().parents[1]
#: git pathspecs of tracked files that no training job reads: left out of the recorded diff
NOT_CODE = (":(exclude)reproduction", ":(exclude)docs", ":(exclude)*.md")


def tree_diff(path: str | os.PathLike | None = None) -> dict[str, str]:
    """``{"git_diff_sha256", "git_diff"}`` (``git_diff_base64`` for a diff that is not UTF-8) of the repository
    holding ``path`` (default: this package's checkout, else the working folder, as
    :func:`~repset.provenance.provenance` finds its commit) where its tracked files differ from HEAD;
    ``{}`` for a clean tree, outside git, or where the commit is declared (:data:`~repset.provenance.COMMIT_ENV`:
    a copy whose .git does not describe it). The diff is of the whole repository but :data:`NOT_CODE`, new
    files included (:func:`_code_diff`). RuntimeError where git names a dirty tree but cannot diff it."""
    if os.environ.get(COMMIT_ENV, "").strip():
        return {}
    for where in [Path(path)] if path is not None else [CHECKOUT, Path.cwd()]:
        commit = git_commit(where)
        if commit is None:
            continue
        if not commit.endswith("+dirty"):
            return {}
        diff = _code_diff(Path(_git(where, "rev-parse", "--show-toplevel").decode().strip()))
        out = {"git_diff_sha256": hashlib.sha256(diff).hexdigest()}
        try:
            out["git_diff"] = diff.decode("utf-8")
        except UnicodeDecodeError:
            out["git_diff_base64"] = base64.b64encode(diff).decode("ascii")
        return out
    return {}


def _code_diff(top: Path) -> bytes:
    """The diff of the tracked files against HEAD, then each untracked file that git does not ignore as a new
    file (a module not committed yet), all but :data:`NOT_CODE`."""
    diff = _git(top, "diff", "HEAD", "--binary", "--no-color", "--no-ext-diff", "--", ".", *NOT_CODE)
    new = _git(top, "ls-files", "--others", "--exclude-standard", "-z", "--", ".", *NOT_CODE)
    for name in sorted(n for n in new.decode("utf-8", "surrogateescape").split("\0") if n):
        diff += _git(top, "diff", "--no-index", "--binary", "--no-color", "--", "/dev/null", name, ok=(0, 1))
    return diff


def _git(where: Path, *args: str, ok: tuple[int, ...] = (0,)) -> bytes:
    """``git <args>``'s output in ``where``; RuntimeError naming the command where it fails."""
    done = subprocess.run(["git", *args], cwd=where, capture_output=True, timeout=60)
    if done.returncode not in ok:
        why = done.stderr.decode(errors="replace").strip()
        raise RuntimeError(f"{where}: `git {' '.join(args[:2])}` failed ({why}); the record could not say what code ran")
    return done.stdout
