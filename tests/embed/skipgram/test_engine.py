"""Tests of the skip-gram engines (repset.embed.skipgram.engine): what the numba engine refuses, and why."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gensim")

from repset.embed.skipgram import ENGINES, EngineUnsupported, check_numba, new_model, train  # noqa: E402
from repset.embed.skipgram.engine import gensim_exp_table, vocabulary_arrays  # noqa: E402


def model(**kw):
    return new_model(np.array([4, 3, 2, 1]), dim=kw.pop("dim", 20), window=2, epochs=1, hs=True, negative=2,
                     seed=0, workers=kw.pop("workers", 1))


def test_an_unknown_engine_is_named():
    with pytest.raises(ValueError, match="engine: 'fast' is not one of gensim, numba"):
        train(model(), "walks.txt", 10, engine="fast")
    assert ENGINES == ("gensim", "numba")


def test_more_than_one_worker_or_cbow_is_refused():
    with pytest.raises(EngineUnsupported, match="with 2 workers"):
        check_numba(model(workers=2))
    cbow = model()
    cbow.sg = 0
    with pytest.raises(EngineUnsupported, match="sg=0"):
        check_numba(cbow)


def test_a_dim_where_openblas_takes_its_block_kernel_is_refused():
    with pytest.raises(EngineUnsupported, match="dim 32"):
        check_numba(model(dim=32))


def test_the_vocabulary_arrays_hold_gensims_paths_and_a_key_that_is_no_node_id_is_refused():
    m = model()
    arrays = vocabulary_arrays(m.wv)
    for key, index in m.wv.key_to_index.items():
        assert arrays["key_to_vocab"][int(key)] == index
        start, end = arrays["code_offsets"][index:index + 2]
        assert arrays["codes"][start:end].tolist() == m.wv.expandos["code"][index].tolist()
        assert arrays["points"][start:end].tolist() == m.wv.expandos["point"][index].tolist()
    m.wv.key_to_index["07"] = 0
    with pytest.raises(ValueError, match="'07' is no node id"):
        vocabulary_arrays(m.wv)


def test_the_sigmoid_table_is_gensims_own():
    table = gensim_exp_table()
    x = (np.arange(1000) / 1000 * 2 - 1) * 6
    assert table.dtype == np.float32 and np.allclose(table, 1 / (1 + np.exp(-x)), atol=1e-6)
