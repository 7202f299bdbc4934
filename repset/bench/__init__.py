"""Measurements beyond the accuracy protocol: matching-solver speed and error against scipy
(:mod:`.solvers`), training-epoch seconds against the forward-matmul floor (:mod:`.epoch`), the paper's
runtime sweeps (:mod:`.runtime`), Proposition 1 and LP integrality (:mod:`.proposition`), and the
supplement's toy (:mod:`.toy`). Figures of these live in :mod:`repset.report.figures`.
Submodules are imported on use (``from repset.bench.epoch import epoch_benchmark``)."""
