"""A WMD search's finished blocks on disk: read back only under their own key."""
import numpy as np
import pytest

from repset.wmd import blocks
from repset.wmd.blocks import BlockStore


def test_a_block_is_read_back_under_its_key_only(tmp_path):
    store = BlockStore(tmp_path / "blocks", "store+split|wmd")
    assert store.load("val", 5, 0, 64) is None                        # nothing saved yet
    neighbours, distances = np.arange(10).reshape(2, 5), np.linspace(0, 1, 10).reshape(2, 5)
    store.save("val", 5, 0, 2, neighbours, distances, 7)
    got = store.load("val", 5, 0, 2)
    assert np.array_equal(got[0], neighbours) and np.array_equal(got[1], distances) and got[2] == 7
    assert store.load("test", 5, 0, 2) is None and store.load("val", 4, 0, 2) is None   # another phase or K
    assert BlockStore(tmp_path / "blocks", "other store|wmd").load("val", 5, 0, 2) is None
    assert sorted(p.name for p in (tmp_path / "blocks").iterdir()) == ["val-K5-0-2.npz"]  # no temporary left


def test_a_blocks_key_names_its_split_and_its_folder_its_split_record(tmp_path):
    key = blocks.search_key("abc123", "wmd", True, None)
    assert key == "abc123|wmd|True|None" and blocks.split_key_of(key) == "abc123"
    store = BlockStore(tmp_path / "split3.blocks", key)
    store.save("test", 19, 0, 1, np.zeros((1, 19), np.int64), np.zeros((1, 19)), 4)
    path = tmp_path / "split3.blocks" / "test-K19-0-1.npz"
    assert blocks.read_key(path) == key == blocks.read_key(path.read_bytes())
    with pytest.raises(Exception):
        blocks.read_key(b"PK not a zip")
    assert blocks.split_record_path(tmp_path, 3) == tmp_path / "split3.json"
    assert blocks.blocks_folder(tmp_path / "split3.json") == tmp_path / "split3.blocks"
    assert blocks.split_record(tmp_path / "split3.blocks") == tmp_path / "split3.json"
