"""The benchmark protocol as data and code: which datasets, splits, models and grid points a config asks
for (:mod:`.plan`), the training jobs at the grain of one run per split and grid point (:mod:`.jobs`),
the grid and its search over splits in one process (:mod:`.grid`), model selection on validation and
aggregation over splits (:mod:`.selection`), a model across draws of its input on the same folds
(:mod:`.draws`), a lead's runs paired fold by fold with the record's (:mod:`.paired`), where a model stands
against the others with paired tests (:mod:`.standing`), and what the whole protocol costs before it runs
(:mod:`.budget`). Stands on :mod:`repset.training` and :mod:`repset.datasets`."""
from .draws import compare_draws, draw_means
from .grid import grid_points, point_id, run_grid
from .jobs import (CHOSEN, Run, check_run, choice_repetitions, grid_blocks, grid_choice_inputs, grid_choice_of,
                   grid_choice_path, model_runs, run_settings, runs, searched_splits, wildcard_patterns)
from .paired import paired_table, repetition_means, repetition_std
from .plan import (check_protocol, datasets, external_models, layer_options, model_points, split_count, store_path,
                   store_stem, struc2vec_options, text_datasets, train_settings, wmd_mat_path)
from .selection import aggregate, records_frame, select, selected_point
from .standing import rank_table, standing_table

__all__ = ["compare_draws", "draw_means",
           "grid_points", "point_id", "run_grid",
           "CHOSEN", "Run", "check_run", "choice_repetitions", "grid_blocks", "grid_choice_inputs", "grid_choice_of",
           "grid_choice_path", "model_runs", "run_settings", "runs", "searched_splits", "wildcard_patterns",
           "paired_table", "repetition_means", "repetition_std",
           "check_protocol", "datasets", "external_models", "layer_options", "model_points", "split_count",
           "store_path", "store_stem", "struc2vec_options", "text_datasets", "train_settings", "wmd_mat_path",
           "aggregate", "records_frame", "select", "selected_point",
           "rank_table", "standing_table"]
