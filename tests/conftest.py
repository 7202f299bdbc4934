"""Shared test setup. Importing repset first sets OMP_WAIT_POLICY before torch loads OpenMP."""
import repset  # noqa: F401  (must precede torch: see repset/__init__.py)
