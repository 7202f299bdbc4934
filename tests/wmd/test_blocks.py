"""A WMD search's finished blocks on disk: read back only under their own key."""
import numpy as np

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
