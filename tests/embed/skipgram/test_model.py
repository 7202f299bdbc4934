"""Tests of the shared skip-gram setup (repset.embed.skipgram.model)."""
import numpy as np
import pytest

pytest.importorskip("gensim")

from repset.embed.skipgram.model import new_model, node_vectors  # noqa: E402


def test_vocabulary_is_the_nodes_with_tokens_and_vectors_come_back_in_node_order():
    counts = np.array([3, 0, 5, 1])
    model = new_model(counts, dim=4, window=2, epochs=1, hs=True, negative=5, seed=0, workers=1)
    assert set(model.wv.key_to_index) == {"0", "2", "3"} and model.sg == 1 and model.hs == 1
    with pytest.raises(KeyError):
        node_vectors(model, 4)                      # node 1 had no token: no vector to return
    kept = new_model(np.array([3, 2, 5]), dim=4, window=2, epochs=1, hs=False, negative=5, seed=0, workers=1)
    vectors = node_vectors(kept, 3)
    assert vectors.shape == (3, 4) and vectors.dtype == np.float32
    for i in range(3):
        np.testing.assert_array_equal(vectors[i], kept.wv[str(i)])
