"""Atomic writes leave either the complete new file or the old one."""
import json
import os
import stat

import pytest

from repset.io import write_atomic, write_json


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
