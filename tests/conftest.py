"""Shared test setup. Shared helpers (paths, solver and set checks) live in tests/helpers/, on pytest's
pythonpath."""
import pytest


@pytest.fixture(autouse=True)
def _no_callers_data_mirror(monkeypatch):
    """Tests do not see a caller's exported ``REPSET_DATA_MIRROR`` (``repset.datasets.registry.MIRROR_ENV``,
    named here so that collecting the tests imports no library): a test that wants a mirror variable sets
    it itself. ``repo_paths.MIRROR``, where the mirror-backed tests find real data, still follows it."""
    monkeypatch.delenv("REPSET_DATA_MIRROR", raising=False)
