"""A job checks that it can write its outputs' folders before its work."""
import pytest
from read_only import read_only

from repset.pipeline.preflight import check_writable


def test_writable_folders_are_made_and_left_as_they_were(tmp_path):
    check_writable([tmp_path / "a" / "b" / "r.json", tmp_path / "a" / "b" / "s.json", tmp_path / "c.json"])
    assert (tmp_path / "a" / "b").is_dir()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b"]          # no probe file stays


def test_a_read_only_folder_is_named_before_anything_is_written(tmp_path):
    with read_only(tmp_path / "runs"):
        with pytest.raises(PermissionError, match=rf"^{tmp_path / 'runs'}: cannot write r.json there \(.*\); make the "
                                                  r"folder writable and run again \(nothing was trained\)$"):
            check_writable([tmp_path / "ok" / "q.json", tmp_path / "runs" / "r.json"], "nothing was trained")
        with pytest.raises(PermissionError, match=r"runs/sub: cannot write"):       # nor a folder inside it
            check_writable([tmp_path / "runs" / "sub" / "r.json"])


def test_a_file_in_place_of_a_folder_is_named(tmp_path):
    (tmp_path / "runs").write_text("not a folder")
    with pytest.raises(OSError, match=rf"{tmp_path / 'runs' / 'MUTAG'}: cannot write r.json there"):
        check_writable([tmp_path / "runs" / "MUTAG" / "r.json"])
