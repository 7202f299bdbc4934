"""What a reader sees: result tables in Markdown/LaTeX/CSV (:mod:`.tables`), the paper's reported numbers
(:mod:`.reported`), REPORT.md (:mod:`.document`), the figures (:mod:`.figures`, :mod:`.sensitivity`) and the
latent-set interpretation (:mod:`.latent_sets`). Draws what :mod:`repset.protocol` and :mod:`repset.bench`
produce. Submodules are imported on use."""
