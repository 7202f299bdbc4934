"""Paths the tests share: the repository root and the data mirror."""
import os
from pathlib import Path

#: the repository root
ROOT = Path(__file__).resolve().parents[2]

#: the data mirror (``REPSET_DATA_MIRROR`` or ``../shared/data/mirror`` beside the repository)
MIRROR = Path(os.environ.get("REPSET_DATA_MIRROR") or ROOT / "../shared/data/mirror")
