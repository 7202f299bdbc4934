"""Cell notes: read and checked (errors name the file and entry), joined to the comparison beside each cell."""
import pandas as pd
import pytest
import yaml

from repo_paths import ROOT
from repset.report.notes import FIELDS, notes_table, read_notes

NOTE = {"table": "text", "dataset": "classic", "method": "nn_max", "lead": "epoch cap", "measurement": "epochs_run",
        "result": "18-30", "finding": "rules out"}


def _write(tmp_path, entries):
    path = tmp_path / "notes.yaml"
    path.write_text(yaml.safe_dump(entries))
    return path


def test_the_records_notes_are_valid():
    notes = read_notes(ROOT / "reproduction" / "cell_notes.yaml")
    assert list(notes.columns) == list(FIELDS) and len(notes) >= 9


@pytest.mark.parametrize("change, message", [
    ({"lead": ""}, "entry 0 lacks lead"),
    ({"finding": "maybe"}, "finding must be one of explains"),
    ({"dataset": "clasic"}, "entry 0: unknown dataset 'clasic'"),
    ({"method": "nnmax"}, "entry 0: unknown method 'nnmax'"),
    ({"table": "image"}, "table must be text or graph"),
])
def test_a_bad_note_is_named(tmp_path, change, message):
    with pytest.raises(ValueError, match=message):
        read_notes(_write(tmp_path, [{**NOTE, **change}]))


def test_a_file_that_is_not_yaml_is_named(tmp_path):
    path = tmp_path / "notes.yaml"
    path.write_text("- table: text\n  lead: a: b: c\n")
    with pytest.raises(ValueError, match="notes.yaml: not valid YAML"):
        read_notes(path)


def test_notes_sit_beside_their_cells_and_bare_outside_cells_say_so(tmp_path):
    comp = pd.DataFrame({"table": ["text", "text", "text", "graph"], "dataset": ["CLASSIC", "CLASSIC", "TWITTER", "MUTAG"],
                         "method": ["NN-max", "RepSet", "NN-max", "RepSet"], "mean_ours": [4.85, 3.0, 30.0, 85.9],
                         "mean_paper": [4.21, 3.1, 28.0, 88.6], "delta_in_paper_sigma": [5.8, -0.2, 3.0, -3.2],
                         "verdict": ["outside 2 sigma", "within 1 sigma", "outside 2 sigma", "outside 2 sigma"]})
    notes = read_notes(_write(tmp_path, [NOTE, {**NOTE, "lead": "noise", "finding": "partly explains"},
                                         {**NOTE, "dataset": "amazon"}]))      # a cell this report does not show
    table = notes_table(comp, notes)
    assert table[table["dataset"] == "CLASSIC"]["finding"].tolist() == ["rules out", "partly explains"]
    assert table.set_index("dataset").loc[["TWITTER", "MUTAG"], "finding"].tolist() == ["unexplained: nothing measured yet"] * 2
    assert "AMAZON" not in set(table["dataset"]) and "RepSet" not in set(table[table["dataset"] == "CLASSIC"]["method"])
    assert len(notes_table(comp, None)) == 3                     # without notes: every outside cell, unexplained
