"""Run records packed into the repository and restored: same files, same bytes; damage, tampering, wrong
folders and partial exports are refused before anything is written."""
import gzip
import io
import json
import random
import tarfile

import pandas as pd
import pytest

from repset.pipeline.archive import MANIFEST, RecordError
from repset.pipeline.record import export_records, restore_records


def record(dataset, model, point, split, error=0.2):
    return {"dataset": dataset, "model": model, "point": point, "split": split, "seed": 0,
            "train_config": {"seed": 0}, "val": {"error": 0.1, "loss": 0.3}, "test": {"error": error, "accuracy": 1 - error},
            "epoch_seconds_median": 0.5, "epochs_run": 7, "best_epoch": 3, "train_seconds": 4.0, "grid_choice": None,
            "store_meta": {"sha256": "ab" * 32}, "provenance": {"git_commit": "c0ffee", "config_sha256": "12" * 32}}


RUNS = [("bbcsport", "repset", "k10-m20", 0), ("bbcsport", "repset", "k10-m20", 1), ("MUTAG", "deepsets", "default", 0)]


@pytest.fixture
def runs(tmp_path):
    root = tmp_path / "results" / "runs"
    for dataset, model, point, split in RUNS:
        path = root / dataset / model / point / f"split{split}_seed0.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record(dataset, model, point, split), indent=2))
    (root / "bbcsport" / "repset" / "grid_seed0.json").write_text(json.dumps(
        {"dataset": "bbcsport", "model": "repset", "seed": 0, "point": "k10-m20", "per_split": {"0": "k10-m20"}}))
    (tmp_path / "results" / "wmd").mkdir()
    (tmp_path / "results" / "wmd" / "bbcsport.json").write_text(json.dumps({"dataset": "bbcsport", "splits": []}))
    return root


def files(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()} if folder.exists() else {}


def test_export_then_restore_gives_the_same_files(runs, tmp_path):
    table = export_records(runs, tmp_path / "reproduction")
    records = tmp_path / "reproduction" / "records"
    assert sorted(p.name for p in records.iterdir()) == [MANIFEST, "bbcsport.tar.gz", "mutag.tar.gz"]   # lower case
    assert len(table) == 3 and set(table["git_commit"]) == {"c0ffee"}            # the grid choice is no run
    assert len(pd.read_csv(tmp_path / "reproduction" / "runs.csv")) == 3
    assert (tmp_path / "reproduction" / "wmd" / "bbcsport.json").exists()
    fresh = tmp_path / "clone" / "results" / "runs"
    written = restore_records(tmp_path / "reproduction", fresh)
    assert len(written) == 5                                                     # 4 records and the WMD result
    for path in runs.rglob("*.json"):
        assert (fresh / path.relative_to(runs)).read_bytes() == path.read_bytes()
    assert (fresh.parent / "wmd" / "bbcsport.json").read_bytes() == (runs.parent / "wmd" / "bbcsport.json").read_bytes()
    assert restore_records(tmp_path / "reproduction", fresh) == []                # nothing to do twice


def test_a_repetitions_grid_choice_travels_with_the_record(runs, tmp_path):
    """grid_scope: repetition: repetition 1's grid choice (grid_seed0_rep1.json) and the runs it reads and decides
    are exported and restored byte for byte; status counts them by the declared protocol; a choice of a repetition
    the dataset lacks is refused naming it, nothing written."""
    import yaml

    from repo_paths import ROOT
    from repset.pipeline.progress import progress_table

    folder = runs / "MUTAG" / "repset"
    choice = {"dataset": "MUTAG", "model": "repset", "seed": 0, "point": "k10-m20", "per_split": {"10": "k10-m20"}}
    for point, split in (("k10-m20", 10), ("chosen", 11)):
        (folder / point).mkdir(parents=True, exist_ok=True)
        run = {**record("MUTAG", "repset", "k10-m20", split), "grid_choice": choice if point == "chosen" else None,
               "train_config": {"seed": 0, "device": "cpu"}}
        run["provenance"]["machine"] = {"cpu": {"model": "a CPU"}}
        (folder / point / f"split{split}_seed0.json").write_text(json.dumps(run))
    (folder / "grid_seed0_rep1.json").write_text(json.dumps(choice))
    table = export_records(runs, tmp_path / "reproduction")
    assert len(table) == 5 and "MUTAG/repset/grid_seed0_rep1.json" not in set(table["path"])   # the choice is no run
    fresh = tmp_path / "clone" / "results" / "runs"
    restore_records(tmp_path / "reproduction", fresh, datasets=["MUTAG"])
    assert files(fresh / "MUTAG") == files(runs / "MUTAG")
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["datasets"] = {"text": [], "graph": ["MUTAG"]}
    config["models"] = {"repset": config["models"]["repset"]}
    config["protocol"]["per_dataset"] = {"MUTAG": {"graph_splits": 20, "grid_splits": 1, "grid_scope": "repetition"}}
    status = progress_table(tmp_path / "reproduction", config).set_index("model").loc["repset"]
    assert (status["on_record"], status["protocol"], status["extra"]) == (2, 2 * (12 + 9), 0)
    del config["protocol"]["per_dataset"]["MUTAG"]["grid_scope"]      # split 10 trains the choice of split 0 then
    status = progress_table(tmp_path / "reproduction", config).set_index("model").loc["repset"]
    assert (status["on_record"], status["protocol"], status["extra"]) == (1, 12 + 19, 1)
    (folder / "grid_seed0_rep10.json").write_text(json.dumps(choice))
    before = files(tmp_path / "reproduction")
    with pytest.raises(RecordError, match=r"MUTAG/repset/grid_seed0_rep10.json: its fields disagree with its path "
                                          r"\(repetition 10 of MUTAG, whose repetitions after the first are 1..9\)"):
        export_records(runs, tmp_path / "reproduction")
    assert files(tmp_path / "reproduction") == before


def _block(path, key="k|wmd|True|train+val"):     # the split's key "k", then the search's method
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        np.savez(f, key=np.array(key), neighbours=np.zeros((2, 3), dtype=np.int64), distances=np.ones((2, 3)),
                 n_exact=np.array(4))


def test_wmd_checkpoints_travel_with_the_record(runs, tmp_path):
    """A WMD search's finished splits and the blocks of its split under way are exported and restored, so it
    resumes in another session; once its split is finished, the record drops that split's blocks; a folder
    without checkpoints drops none of the record's; an unreadable block is named."""
    wmd = runs.parent / "wmd" / "splits" / "bbcsport"
    wmd.mkdir(parents=True)
    (wmd / "split0.json").write_text(json.dumps({"key": "a", "record": {"error": 0.1}}))
    _block(wmd / "split1.blocks" / "test-K5-0-64.npz")
    out = tmp_path / "reproduction"
    export_records(runs, out)
    assert files(out / "wmd" / "splits") == files(runs.parent / "wmd" / "splits")
    fresh = tmp_path / "clone" / "results" / "runs"
    restore_records(out, fresh)
    assert files(fresh.parent / "wmd" / "splits") == files(runs.parent / "wmd" / "splits")
    # the search goes on: split 1 finishes (its blocks removed), split 2 starts
    (wmd / "split1.json").write_text(json.dumps({"key": "k", "record": {"error": 0.2}}))    # its blocks' key
    (wmd / "split1.blocks" / "test-K5-0-64.npz").unlink()
    (wmd / "split1.blocks").rmdir()
    _block(wmd / "split2.blocks" / "val-K19-0-64.npz")
    export_records(runs, out)
    kept = {str(p) for p in files(out / "wmd" / "splits")}
    assert kept == {"bbcsport/split0.json", "bbcsport/split1.json", "bbcsport/split2.blocks/val-K19-0-64.npz"}
    # restore deletes nothing (the clone's dead split-1 block stays); a runs folder without checkpoints drops none
    restore_records(out, fresh)
    assert (fresh.parent / "wmd" / "splits" / "bbcsport" / "split1.json").exists()
    assert (fresh.parent / "wmd" / "splits" / "bbcsport" / "split1.blocks" / "test-K5-0-64.npz").exists()
    import shutil

    shutil.rmtree(runs.parent / "wmd" / "splits")
    export_records(runs, out)
    assert {str(p) for p in files(out / "wmd" / "splits")} == kept
    # blocks of another search (key) stay beside a finished split in the record, but a restore skips them
    _block(wmd / "split0.blocks" / "test-K3-0-64.npz", key="older store")
    export_records(runs, out)
    assert (out / "wmd" / "splits" / "bbcsport" / "split0.blocks" / "test-K3-0-64.npz").exists()
    other = tmp_path / "other" / "results" / "runs"
    restore_records(out, other)
    assert not (other.parent / "wmd" / "splits" / "bbcsport" / "split0.blocks").exists()
    assert (other.parent / "wmd" / "splits" / "bbcsport" / "split2.blocks" / "val-K19-0-64.npz").exists()
    _block(wmd / "split2.blocks" / "val-K19-64-128.npz")
    (wmd / "split2.blocks" / "val-K19-64-128.npz").write_bytes(b"PK not a zip")
    with pytest.raises(RecordError, match="val-K19-64-128.npz: not a readable WMD checkpoint"):
        export_records(runs, out)


def test_archives_are_deterministic(runs, tmp_path):
    export_records(runs, tmp_path / "a")
    export_records(runs, tmp_path / "b")
    assert files(tmp_path / "a" / "records") == files(tmp_path / "b" / "records")


def test_a_differing_local_record_is_not_overwritten_silently(runs, tmp_path):
    export_records(runs, tmp_path / "reproduction")
    target = runs / "MUTAG" / "deepsets" / "default" / "split0_seed0.json"
    target.write_text("{}")
    with pytest.raises(ValueError, match="split0_seed0.json"):
        restore_records(tmp_path / "reproduction", runs)
    restore_records(tmp_path / "reproduction", runs, overwrite=True)
    assert json.loads(target.read_text())["model"] == "deepsets"


def test_restore_can_take_one_dataset_in_any_case(runs, tmp_path):
    export_records(runs, tmp_path / "reproduction")
    fresh = tmp_path / "clone"
    written = restore_records(tmp_path / "reproduction", fresh, datasets=["mutag"])
    assert [p.relative_to(fresh).parts[0] for p in written] == ["MUTAG"]


def test_no_bit_flip_restores_anything(runs, tmp_path):
    export_records(runs, tmp_path / "reproduction")
    archive = tmp_path / "reproduction" / "records" / "bbcsport.tar.gz"
    clean, rng = archive.read_bytes(), random.Random(0)
    for _ in range(30):
        damaged = bytearray(clean)
        damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        archive.write_bytes(bytes(damaged))
        with pytest.raises(RecordError, match="bbcsport.tar.gz"):
            restore_records(tmp_path / "reproduction", tmp_path / "fresh")
        assert files(tmp_path / "fresh") == {}                              # not even the intact MUTAG archive


def repack(archive, edit):
    """Rewrite ``archive`` with ``edit(members)`` applied, as a tamperer would (valid gzip and tar)."""
    with tarfile.open(archive) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    edit(members)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    archive.write_bytes(buffer.getvalue())


def test_a_tampered_or_truncated_archive_is_named(runs, tmp_path):
    export_records(runs, tmp_path / "reproduction")
    archive = tmp_path / "reproduction" / "records" / "bbcsport.tar.gz"
    clean = archive.read_bytes()
    name = "bbcsport/repset/k10-m20/split0_seed0.json"
    repack(archive, lambda m: m.__setitem__(name, m[name].replace(b'"error": 0.2', b'"error": 0.3')))
    with pytest.raises(RecordError, match=f"bbcsport.tar.gz: sha256 differs from .*{MANIFEST}"):
        restore_records(tmp_path / "reproduction", tmp_path / "fresh")
    archive.write_bytes(clean[: len(clean) // 2])
    with pytest.raises(RecordError, match="bbcsport.tar.gz: (sha256 differs|damaged archive)"):
        restore_records(tmp_path / "reproduction", tmp_path / "fresh")
    assert files(tmp_path / "fresh") == {}


def test_wrong_folders_and_names_are_errors(runs, tmp_path):
    export_records(runs, tmp_path / "reproduction")
    with pytest.raises(RecordError, match="no records/.*tar.gz here"):
        restore_records(tmp_path / "reproduction" / "records", tmp_path / "fresh")
    with pytest.raises(RecordError, match="no archive for dataset.*twiter; archives: bbcsport, mutag"):
        restore_records(tmp_path / "reproduction", tmp_path / "fresh", datasets=["twiter"])
    (tmp_path / "reproduction" / "records" / MANIFEST).unlink()
    with pytest.raises(RecordError, match=f"{MANIFEST} is missing"):
        restore_records(tmp_path / "reproduction", tmp_path / "fresh")


def test_export_keeps_what_a_partial_runs_folder_lacks(runs, tmp_path):
    export_records(runs, tmp_path / "reproduction")
    before = files(tmp_path / "reproduction")
    (runs / "bbcsport" / "repset" / "k10-m20" / "split1_seed0.json").unlink()
    with pytest.raises(RecordError, match="lacks 1 of the 3 records"):
        export_records(runs, tmp_path / "reproduction")
    assert files(tmp_path / "reproduction") == before                      # nothing rewritten
    import shutil

    shutil.rmtree(runs / "bbcsport")                                        # only MUTAG restored: the rest is kept
    table = export_records(runs, tmp_path / "reproduction")
    assert len(table) == 3 and files(tmp_path / "reproduction") == before
    export_records(runs, tmp_path / "reproduction", allow_drop=True)        # MUTAG's archive is all there is here
    (runs / "MUTAG" / "deepsets" / "default" / "split0_seed0.json").write_text('{"dataset": ')
    with pytest.raises(RecordError, match="runs/MUTAG/deepsets/default/split0_seed0.json: not valid JSON"):
        export_records(runs, tmp_path / "reproduction")


def test_the_committed_record_folder_passes_its_checks():
    from repo_paths import ROOT

    from repset.pipeline.record import runs_table

    on_record = pd.read_csv(ROOT / "reproduction" / "runs.csv")
    assert sorted(runs_table(ROOT / "reproduction")["path"]) == sorted(on_record["path"])


def test_check_store_refuses_a_store_other_than_the_records(tmp_path, capsys):
    """``record check-store``: a dataset's store is checked against the sha256 its records name in runs.csv;
    another store is refused with both sha256 named; no records (or no runs.csv): accepted, "none yet"."""
    from set_checks import tiny_text_store

    from repset.pipeline.record import check_store_of_table, main

    store = tmp_path / "bbcsport.npz"
    tiny_text_store(store)
    ours = json.loads(store.with_suffix(".json").read_text())["sha256"]
    assert check_store_of_table(tmp_path / "none", store, "bbcsport").endswith("the records': none yet")
    pd.DataFrame({"dataset": ["bbcsport", "twitter"], "storesha256_of": [ours, "f" * 64]}).to_csv(tmp_path / "runs.csv")
    assert check_store_of_table(tmp_path, store, "bbcsport") == f"{store}: sha256 {ours}; the records': ['{ours}']"
    with pytest.raises(ValueError, match=rf"sha256 {ours}, but a twitter record listed in .*runs.csv was trained on a "
                                         rf"store with sha256 f{{64}}"):
        check_store_of_table(tmp_path, store, "twitter")
    with pytest.raises(SystemExit, match="error: .*would mix two stores"):
        main(["check-store", str(tmp_path), str(store), "--dataset", "twitter"])


MUTAG_RUN = "MUTAG/deepsets/default/split0_seed0.json"


def edit_record(runs, name, **fields):
    """Rewrite the local record ``name`` with ``fields`` (dotted keys for nested ones) changed."""
    path = runs / name
    data = json.loads(path.read_text())
    for key, value in fields.items():
        *parents, leaf = key.split("__")
        target = data
        for parent in parents:
            target = target[parent]
        target[leaf] = value
    path.write_text(json.dumps(data, indent=2))


def test_export_refuses_to_change_an_archived_record_unless_told(runs, tmp_path, capsys):
    """A retrained or edited run at the path of an archived one is refused, naming the record and the fields
    that changed, and nothing is written; ``replace`` replaces it and says what it replaced."""
    from repset.pipeline.record import main

    out = tmp_path / "reproduction"
    export_records(runs, out)
    before = files(out)
    edit_record(runs, MUTAG_RUN, test__error=0.5, test__accuracy=0.5, provenance__git_commit="beef")
    with pytest.raises(RecordError, match=rf"1 record\(s\) in .* differ from the archived ones.*nothing was written"
                                          rf"(.|\n)*{MUTAG_RUN}: provenance.git_commit, test.accuracy, test.error"):
        export_records(runs, out)
    assert files(out) == before
    with pytest.raises(SystemExit, match="error: 1 record"):
        main(["export", str(runs), str(out)])
    assert files(out) == before
    main(["export", str(runs), str(out), "--replace"])
    printed = capsys.readouterr().out
    assert f"{MUTAG_RUN}: provenance.git_commit 'c0ffee' -> 'beef'; test.accuracy 0.8 -> 0.5; test.error 0.2 -> 0.5" \
        in printed
    table = pd.read_csv(out / "runs.csv")
    assert table.loc[table["path"] == MUTAG_RUN, "git_commit"].tolist() == ["beef"]
    assert export_records(runs, out).attrs["replaced"] == {}                   # now equal: nothing to replace


def test_an_equal_record_is_kept_as_archived(runs, tmp_path):
    """A local record equal to the archived one (the same JSON, written otherwise) changes no byte."""
    out = tmp_path / "reproduction"
    export_records(runs, out)
    before = files(out)
    path = runs / MUTAG_RUN
    path.write_text(json.dumps(json.loads(path.read_text()), sort_keys=True))
    table = export_records(runs, out)
    assert files(out) == before and table.attrs["replaced"] == {}


def test_export_refuses_a_record_whose_fields_contradict_each_other(runs, tmp_path):
    edit_record(runs, MUTAG_RUN, test__accuracy=0.95, test__error=0.34)
    with pytest.raises(RecordError, match=rf"{MUTAG_RUN}: its fields contradict each other \(test accuracy 0.95 "
                                          rf"beside test error 0.34\); delete or rerun it"):
        export_records(runs, tmp_path / "reproduction")
    assert not (tmp_path / "reproduction").exists()


def test_restore_into_a_read_only_folder_is_an_error_line_and_writes_nothing(runs, tmp_path):
    from read_only import read_only

    from repset.pipeline.record import main

    out = tmp_path / "reproduction"
    export_records(runs, out)
    edit_record(runs, MUTAG_RUN, test__error=0.4, test__accuracy=0.6)
    edit_record(runs, "bbcsport/repset/k10-m20/split0_seed0.json", test__error=0.4, test__accuracy=0.6)
    local = files(runs)
    with read_only(runs / "MUTAG" / "deepsets" / "default"):
        with pytest.raises(SystemExit, match=r"^error: .*MUTAG/deepsets/default: cannot write split0_seed0.json "
                                             r"there .*\(nothing was restored\)"):
            main(["restore", str(out), str(runs), "--overwrite"])
    assert files(runs) == local                                             # not even the bbcsport record
