"""The toy target writes its figure and a run record with the metrics and provenance."""
import json

from repset.pipeline.toy import run_toy


def test_run_toy_writes_figure_and_record(tmp_path):
    out = {k: tmp_path / f"toy.{k}" for k in ("pdf", "png")}
    record = run_toy({"n_hidden_sets": 2, "hidden_set_size": 2, "epochs": 300}, solver="scipy", seed=0,
                     pdf=out["pdf"], png=out["png"], record=tmp_path / "record.json")
    saved = json.loads((tmp_path / "record.json").read_text())
    assert saved["metrics"]["train"]["accuracy"] == record["metrics"]["train"]["accuracy"] == 1.0
    assert saved["provenance"]["seed"] == 0 and saved["provenance"]["config"]["solver"] == "scipy"
    assert len(saved["hidden_sets"]) == 2 and out["pdf"].exists() and out["png"].exists()
