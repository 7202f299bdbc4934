"""Graph-scale bench: the two paths it compares and one measurement on tiny sets."""
import numpy as np

from repset.bench.graph_scale import PATHS, measure
from repset.provenance import LEGACY_DEFAULTS


def test_old_path_is_the_records_and_a_measurement_has_its_figures():
    assert all(PATHS["old"][k] == LEGACY_DEFAULTS[k] for k in PATHS["old"])
    assert PATHS["new"]["max_elements"] is not None
    sizes = {"train": np.random.default_rng(0).integers(1, 30, 70), "val": np.arange(1, 12)}
    out = measure(sizes, "approx_repset", PATHS["new"], dim=3)
    assert out["epoch_seconds"] > 0 and out["val_seconds"] > 0 and out["peak_mb"] > 100
    assert np.isfinite(out["val_loss"])
