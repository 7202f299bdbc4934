""".ci/tree_aside.sh: record tables leave the working tree for a GPU call and come back from HEAD, byte for byte;
what a call reads stays, and uncommitted changes are never put at risk."""
import shutil
import subprocess

import pytest
from repo_paths import ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _run(repo, action):
    return subprocess.run(["bash", str(repo / ".ci" / "tree_aside.sh"), action], capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path):
    files = {"reproduction/runs.csv": "a,b\n1,2\n", "reproduction/x/records/m.tar.gz": "archive",
             "reproduction/x/records/SHA256SUMS": "sums", "reproduction/budget/graphs_stores.csv": "budget",
             "reproduction/completed.yaml": "k: v\n", "repset/code.csv": "kept"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "tree_aside.sh", tmp_path / ".ci" / "tree_aside.sh")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "records")
    return tmp_path


def test_out_removes_record_tables_only_and_back_restores_them(repo):
    out = _run(repo, "out")
    assert out.returncode == 0 and out.stdout.startswith("3 files set aside")
    gone = {"reproduction/runs.csv", "reproduction/x/records/m.tar.gz", "reproduction/x/records/SHA256SUMS"}
    assert all(not (repo / name).exists() for name in gone)
    assert all((repo / name).exists() for name in ("reproduction/budget/graphs_stores.csv",
                                                   "reproduction/completed.yaml", "repset/code.csv"))
    back = _run(repo, "back")
    assert back.returncode == 0 and _git(repo, "status", "--porcelain") == ""
    assert (repo / "reproduction/runs.csv").read_text() == "a,b\n1,2\n"


def test_out_refuses_when_a_table_has_uncommitted_changes(repo):
    (repo / "reproduction/runs.csv").write_text("a,b\n1,2\n3,4\n")
    out = _run(repo, "out")
    assert out.returncode == 1 and "reproduction/runs.csv" in out.stdout
    assert (repo / "reproduction/runs.csv").read_text() == "a,b\n1,2\n3,4\n"
    assert (repo / "reproduction/x/records/m.tar.gz").exists()
