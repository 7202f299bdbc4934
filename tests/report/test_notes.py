"""Cell notes: read and checked (errors name the file and entry), and named as the report names its cells."""
import pytest
import yaml

from repo_paths import ROOT
from repset.report.notes import (COLUMNS, FIELDS, aside_line, cell_stores, displayed, paired_finding, read_notes,
                                 split_by_store)

NOTE = {"table": "text", "dataset": "classic", "method": "nn_max", "lead": "epoch cap", "measurement": "epochs_run",
        "result": "18-30", "finding": "rules out"}


def _write(tmp_path, entries):
    path = tmp_path / "notes.yaml"
    path.write_text(yaml.safe_dump(entries))
    return path


def test_the_records_notes_are_valid():
    notes = read_notes(ROOT / "reproduction" / "cell_notes.yaml")
    assert list(notes.columns) == list(COLUMNS) and len(notes) >= 9


@pytest.mark.parametrize("change, message", [
    ({"lead": ""}, "entry 0 lacks lead"),
    ({"finding": "maybe"}, "finding must be one of explains"),
    ({"dataset": "clasic"}, "entry 0: unknown dataset 'clasic'"),
    ({"method": "nnmax"}, "entry 0: unknown method 'nnmax'"),
    ({"table": "image"}, "table must be text or graph"),
    ({"store": "93bdaa1f"}, r"entry 0: store must be a store's sha256 or its first 12\+ hex digits .*got '93bdaa1f'"),
    ({"store": "93BDAA1F1DB2"}, "store must be"),
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
    assert displayed(None).empty and list(displayed(None).columns) == list(COLUMNS)


def test_several_files_are_read_in_order_and_an_error_names_its_file(tmp_path):
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    first = _write(tmp_path / "a", [NOTE])
    second = _write(tmp_path / "b", [{**NOTE, "dataset": "MUTAG", "table": "graph", "method": "repset"}] * 2)
    notes = read_notes([first, second])
    assert list(notes["dataset"]) == ["classic", "MUTAG", "MUTAG"] and list(notes.columns) == list(COLUMNS)
    assert read_notes([]).empty
    bad = _write(tmp_path, [{**NOTE, "finding": "maybe"}])
    with pytest.raises(ValueError, match=f"{bad}: entry 0"):
        read_notes([first, bad])


def test_a_note_of_another_store_is_set_aside_and_counted(tmp_path):
    """A note whose store is not the start of its dataset's current store speaks for no cell; one without a store,
    or of a dataset without a known store, still does."""
    reddit = {**NOTE, "table": "graph", "dataset": "reddit-binary", "method": "repset"}
    notes = read_notes(_write(tmp_path, [NOTE, {**reddit, "store": "93bdaa1f1db2"}, {**reddit, "store": "f" * 64},
                                         {**reddit, "store": "93bdaa1f1db2", "method": "nn_mean"}, reddit]))
    assert notes["store"].tolist() == ["", "93bdaa1f1db2", "f" * 64, "93bdaa1f1db2", ""]
    kept, aside = split_by_store(notes, {"REDDIT-BINARY": "f" * 64, "MUTAG": "a" * 64})
    assert kept.index.tolist() == [0, 2, 4] and aside.index.tolist() == [1, 3]
    assert aside_line(aside) == ["Notes set aside, measured on another store of their dataset than its records read "
                                 "(`store` in `cell_notes`): REDDIT-BINARY 2 (store 93bdaa1f1db2).", ""]
    kept, aside = split_by_store(notes, {"REDDIT-BINARY": "93bdaa1f1db2" + "0" * 52})
    assert kept.index.tolist() == [0, 1, 3, 4] and aside.index.tolist() == [2]
    assert split_by_store(notes, {})[0].equals(notes) and split_by_store(None, {})[0].empty
    assert split_by_store(notes[list(FIELDS)], {"REDDIT-BINARY": "0" * 64})[0].equals(notes[list(FIELDS)])  # no column


def test_a_cells_store_is_the_one_its_runs_name():
    import pandas as pd

    training = pd.DataFrame({"dataset": ["MUTAG", "MUTAG", "PROTEINS", "PROTEINS", "bbcsport"],
                             "store": ["a" * 64, "a" * 64, "b" * 64, "c" * 64, ""]})
    read = {"mutag": "d" * 64, "PROTEINS": "d" * 64, "bbcsport": "e" * 64, "twitter": "f" * 64}
    assert cell_stores(training, read) == {"MUTAG": "a" * 64, "PROTEINS": "d" * 64, "bbcsport": "e" * 64,
                                           "twitter": "f" * 64}     # two stores or none named: the store read
    assert cell_stores(None, None) == {} and cell_stores(training.iloc[:0], read) == cell_stores(None, read)


@pytest.mark.parametrize("gap, diff, se, finding", [
    (4.0, 3.5, 1.0, "explains"),           # beyond 2 s.e. the gap's way, leaving 0.5 < 2 s.e.
    (4.0, 5.5, 1.0, "explains"),           # past the paper by 1.5, within 2 s.e.
    (4.0, 8.0, 1.0, "partly explains"),    # past the paper by 4: a move, not the paper's cell
    (1.25, 2.17, 0.83, "explains"),        # 0.92 past the paper, within 1.66
    (4.0, 2.5, 0.5, "partly explains"),    # beyond 2 s.e., 1.5 short of the paper (> 1.0)
    (-4.0, -2.5, 0.5, "partly explains"),  # ours above the paper, the lead lowers it
    (4.0, -2.5, 1.0, "rules out"),         # beyond 2 s.e. the other way
    (0.0, 2.5, 1.0, "rules out"),          # no gap to explain
    (4.0, 0.1, 0.9, "rules out"),          # at most 0.1 + 1.8 = 1.9 of the gap's 4: under half
    (4.0, 1.7, 0.9, "inconclusive"),       # up to 3.5 not excluded, and no resolvable move
    (4.0, 1.0, 1.0, "inconclusive"),       # interval -1 to 3
    (4.0, 2.0, 1.0, "inconclusive"),       # exactly 2 s.e.: not beyond
    (1.0, 0.3, 0.5, "inconclusive"),
])
def test_a_paired_measurement_reads_as_a_finding(gap, diff, se, finding):
    assert paired_finding(gap, diff, se) == finding


def test_a_paired_finding_needs_a_standard_error():
    with pytest.raises(ValueError, match="standard error must be positive"):
        paired_finding(1.0, 0.5, 0.0)
