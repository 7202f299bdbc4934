"""Training a set classifier: the model (a set layer + MLP head), the trainer (seeded Adam with early
stopping, size-bucketed batches) and one run on one split (train, select the best epoch, evaluate).

Public API: :class:`SetClassifier`, :func:`build_layer`, :class:`TrainConfig`, :func:`fit`,
:func:`evaluate`, :func:`seed_everything`, :func:`batch_indices`, :func:`train_run`.
Stands on :mod:`repset.layers` and :mod:`repset.sets`.
"""
from .classifier import SetClassifier, build_layer
from .run import train_run
from .trainer import TrainConfig, batch_indices, evaluate, fit, seed_everything

__all__ = ["SetClassifier", "build_layer", "TrainConfig", "batch_indices", "evaluate", "fit", "seed_everything",
           "train_run"]
