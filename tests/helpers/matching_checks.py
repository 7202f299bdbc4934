"""Shared checks of matching solvers: layer-shaped instances and validity of a result."""
import numpy as np
import pytest


def layer_like(rng, B, N, m, K, dtype=np.float32, d=8):
    """ReLU(V H) of shape (B, N, m, K), returned as the solver sees it: a (B, m, N, K) view."""
    F = np.maximum(rng.normal(size=(B * N, d)) @ rng.normal(size=(d, m * K)), 0).astype(dtype)
    return F.reshape(B, N, m, K).transpose(0, 2, 1, 3)


def check_matching(w, rows, cols, result, exact_value=True):
    """Every problem's pairs form a valid matching of min(n, k) pairs inside the block (padding never
    matched) whose weight is the reported value."""
    w = np.asarray(w, dtype=np.float64)
    batch = w.shape[:-2]
    rows = np.broadcast_to(rows if rows is not None else w.shape[-2], batch)
    cols = np.broadcast_to(cols if cols is not None else w.shape[-1], batch)
    r_idx, c_idx = result.pairs()
    for index in np.ndindex(*batch):
        n, k = int(rows[index]), int(cols[index])
        r, c = r_idx[index], c_idx[index]
        keep = r >= 0
        assert np.array_equal(keep, c >= 0)
        r, c = r[keep], c[keep]
        assert len(r) == min(n, k), (index, n, k, r, c)
        assert len(set(r.tolist())) == len(r) and len(set(c.tolist())) == len(c)
        assert np.all(r < n) and np.all(c < k)
        if exact_value:
            assert result.value[index] == pytest.approx(w[index][r, c].sum(), rel=1e-12, abs=1e-300)
