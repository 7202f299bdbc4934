"""The code a record was trained with: a dirty tree's diff against its commit, new files included, which
rebuilds that tree from the commit."""
import hashlib
import subprocess

import pytest

from repset.pipeline.worktree import tree_diff
from repset.provenance import COMMIT_ENV

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]


def git(repo, *args):
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository with one commit: a module, a record folder and a README."""
    monkeypatch.delenv(COMMIT_ENV, raising=False)
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "reproduction").mkdir()
    (root / "pkg" / "model.py").write_text("LR = 0.01\n")
    (root / "reproduction" / "runs.csv").write_text("a\n1\n")
    (root / "README.md").write_text("# r\n")
    (root / ".gitignore").write_text("results/\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


def test_a_clean_tree_or_a_declared_commit_records_no_diff(repo, monkeypatch):
    assert tree_diff(repo) == {}
    (repo / "pkg" / "model.py").write_text("LR = 0.1\n")
    monkeypatch.setenv(COMMIT_ENV, "abc1234")           # a copy whose .git does not describe it
    assert tree_diff(repo) == {}


def test_a_dirty_trees_diff_rebuilds_its_code_from_the_commit(repo, tmp_path):
    (repo / "pkg" / "model.py").write_text("LR = 0.1\n")
    (repo / "pkg" / "new_layer.py").write_text("WIDTH = 3\n")          # not added to git yet
    (repo / "results").mkdir()
    (repo / "results" / "run.json").write_text("{}")                   # ignored: no code
    (repo / "reproduction" / "runs.csv").write_text("a\n2\n")          # the record folder: no code
    (repo / "README.md").write_text("# changed\n")
    found = tree_diff(repo)
    assert found["git_diff_sha256"] == hashlib.sha256(found["git_diff"].encode()).hexdigest()
    assert "pkg/model.py" in found["git_diff"] and "pkg/new_layer.py" in found["git_diff"]
    assert not any(name in found["git_diff"] for name in ("runs.csv", "README", "run.json"))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    (tmp_path / "code.diff").write_text(found["git_diff"])
    git(clone, "apply", str(tmp_path / "code.diff"))
    for name in ("pkg/model.py", "pkg/new_layer.py"):
        assert (clone / name).read_text() == (repo / name).read_text()


def test_a_tree_dirty_only_outside_the_code_records_the_empty_diff(repo):
    (repo / "reproduction" / "runs.csv").write_text("a\n2\n")
    assert tree_diff(repo) == {"git_diff_sha256": hashlib.sha256(b"").hexdigest(), "git_diff": ""}


def test_a_diff_that_is_not_utf8_is_kept_whole(repo):
    import base64

    (repo / "pkg" / "model.py").write_bytes("LR = 0.1  # café\n".encode("latin-1"))
    found = tree_diff(repo)
    raw = base64.b64decode(found["git_diff_base64"])
    assert "git_diff" not in found and hashlib.sha256(raw).hexdigest() == found["git_diff_sha256"]
    assert "café".encode("latin-1") in raw


def test_outside_git_there_is_no_diff(tmp_path, monkeypatch):
    monkeypatch.delenv(COMMIT_ENV, raising=False)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert tree_diff(tmp_path) == {}
