"""Cell notes: read and checked (errors name the file and entry), and named as the report names its cells."""
import pytest
import yaml

from repo_paths import ROOT
from repset.report.notes import FIELDS, displayed, read_notes

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


def test_notes_take_the_reports_names_of_datasets_and_methods(tmp_path):
    notes = read_notes(_write(tmp_path, [NOTE, {**NOTE, "dataset": "MUTAG", "table": "graph",
                                                "method": "repset_init_small"}]))
    shown = displayed(notes)
    assert shown[["dataset", "method"]].values.tolist() == [["CLASSIC", "NN-max"], ["MUTAG", "RepSet (init small)"]]
    assert shown["lead"].tolist() == notes["lead"].tolist() and notes["dataset"].tolist() == ["classic", "MUTAG"]
    assert displayed(None).empty and list(displayed(None).columns) == list(FIELDS)
