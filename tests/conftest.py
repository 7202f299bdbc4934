"""Shared test setup. Importing repset first sets OMP_WAIT_POLICY before torch loads OpenMP."""
import repset  # noqa: F401  (must precede torch: see repset/__init__.py)

import os
from pathlib import Path

#: the repository root
ROOT = Path(__file__).resolve().parents[1]

#: the data mirror (``REPSET_DATA_MIRROR`` or ``../shared/data/mirror`` beside the repository)
MIRROR = Path(os.environ.get("REPSET_DATA_MIRROR") or Path(__file__).resolve().parents[1] / "../shared/data/mirror")
