"""The toy target: train RepSet on the supplement's toy sets, draw the figure, write the run record."""
from __future__ import annotations

from repset.bench.toy import ToyConfig, train_toy
from repset.io import write_json
from repset.provenance import provenance
from repset.report.figures import plot_toy


def run_toy(options: dict, solver: str, seed: int, pdf, png, record) -> dict:
    """Train, plot and write a JSON run record (metrics + provenance); return the record."""
    config = ToyConfig(**options, seed=seed)
    model, metrics = train_toy(config, solver=solver)
    plot_toy(model, pdf, png)
    result = {
        "experiment": "toy",
        "metrics": metrics,
        "hidden_sets": [h.tolist() for h in model.layer.hidden_sets()],
        "provenance": provenance({"toy": options, "solver": solver, "seed": seed}, seed=seed, solver=solver),
    }
    write_json(record, result)
    return result
