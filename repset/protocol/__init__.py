"""The benchmark protocol as data and code: which datasets, splits, models and grid points a config asks
for (:mod:`.plan`), the grid and its search over splits (:mod:`.grid`), model selection on validation and
aggregation over splits (:mod:`.selection`), and what the whole protocol costs before it runs
(:mod:`.budget`). Stands on :mod:`repset.training` and :mod:`repset.datasets`."""
from .grid import grid_points, point_id, run_grid
from .plan import (Run, check_protocol, datasets, layer_options, model_points, runs, split_count, store_path, store_stem,
                   struc2vec_options, text_datasets, train_settings, wmd_mat_path)
from .selection import aggregate, records_frame, select, selected_point

__all__ = ["grid_points", "point_id", "run_grid", "Run", "check_protocol", "datasets", "layer_options", "model_points",
           "runs", "split_count", "store_path", "store_stem", "struc2vec_options", "text_datasets", "train_settings",
           "wmd_mat_path", "aggregate", "records_frame", "select", "selected_point"]
