"""Atomic writes leave either the complete new file or the old one."""
import json
import os
import socket
import stat
import subprocess
import sys

import pytest

from repset.io import scratch_dir, write_atomic, write_json


def test_write_json_round_trip(tmp_path):
    path = write_json(tmp_path / "a" / "r.json", {"x": 1})
    assert json.loads(path.read_text()) == {"x": 1}
    assert list(path.parent.iterdir()) == [path]


def test_failed_writer_keeps_old_file_and_leaves_no_temp(tmp_path):
    target = tmp_path / "r.txt"
    target.write_text("old")

    def broken(p):
        p.write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_atomic(target, broken)
    assert target.read_text() == "old" and list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_files_respect_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        write_json(tmp_path / "r.json", {"a": 1})
        text = write_atomic(tmp_path / "t.txt", lambda p: p.write_text("x"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == mode
    assert stat.S_IMODE(text.stat().st_mode) == mode


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_temporaries_of_killed_writers_are_removed_by_the_next(tmp_path):
    host = socket.gethostname().replace(".", "_")
    dead = _dead_pid()
    orphan = tmp_path / f".r.json.{host}-{dead}-abc.json.part"
    live = tmp_path / f".r.json.{host}-{os.getppid()}-abc.json.part"       # a running process: kept
    other_host = tmp_path / f".r.json.elsewhere-{dead}-abc.json.part"      # another node's: kept
    for p in (orphan, live, other_host):
        p.write_text("half")
    write_json(tmp_path / "r.json", {"a": 1})
    assert not orphan.exists() and live.exists() and other_host.exists()


def test_scratch_dirs_of_killed_runs_are_removed(tmp_path):
    host = socket.gethostname().replace(".", "_")
    orphan = tmp_path / f"struc2vec-{host}-{_dead_pid()}-xyz"
    orphan.mkdir()
    (orphan / "walks.txt").write_text("1 2 3\n")
    with scratch_dir("struc2vec-", tmp_path) as tmp:
        assert tmp.is_dir() and tmp.name.startswith(f"struc2vec-{host}-{os.getpid()}-")
        assert not orphan.exists()
    assert not tmp.exists()
