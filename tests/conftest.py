"""Shared test setup. Shared helpers (paths, solver and set checks) live in tests/helpers/, on pytest's
pythonpath."""
