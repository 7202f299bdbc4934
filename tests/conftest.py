"""Shared test setup. Importing repset first sets OMP_WAIT_POLICY before torch loads OpenMP.
Shared helpers (paths, solver and set checks) live in tests/helpers/, on pytest's pythonpath."""
import repset  # noqa: F401  (must precede torch: see repset/__init__.py)
