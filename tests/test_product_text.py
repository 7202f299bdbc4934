"""The product's text speaks of the project, never of how its work was organised: no "issue 12" or "session 21" in
README.md, docs/, the config files, reproduction/'s text (its record archives and data files aside) or the report
and cell page the report rule writes there (reproduction/report/). Dates and commits say when."""
from __future__ import annotations

import re
from pathlib import Path

from repo_paths import ROOT

SESSION_WORDS = re.compile(r"(issue|session) [0-9]+", re.IGNORECASE)
#: reproduction/'s record archives and data files: read by tools, not by people
DATA = (".tar.gz", ".gz", ".csv", ".json", ".npz", ".npy", ".png", ".pdf", ".pyc")


def product_text(root: Path = ROOT) -> list[Path]:
    """The files a reader of the project reads: README.md, docs/, the config files (the root's and examples/'s
    YAML, the profiles'), and every file of reproduction/ but its archives and data."""
    files = [root / "README.md", *sorted((root / "docs").rglob("*.md")), *sorted(root.glob("*.yaml")),
             *sorted((root / "examples").glob("*.yaml")), *sorted((root / "profiles").rglob("*.yaml"))]
    files += [p for p in sorted((root / "reproduction").rglob("*"))
              if p.is_file() and not p.name.endswith(DATA) and "__pycache__" not in p.parts]
    return [f for f in files if f.is_file()]


def session_words(files: list[Path], root: Path = ROOT) -> list[str]:
    """``path:line: match`` for each place of ``files`` that names an issue or a session by number."""
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            found += [f"{path.relative_to(root)}:{number}: {m.group(0)}" for m in SESSION_WORDS.finditer(line)]
    return found


def test_the_product_text_names_no_issue_or_session():
    files = product_text()
    assert ROOT / "reproduction" / "report" / "REPORT.md" in files and ROOT / "config.yaml" in files
    assert not any(f.name.endswith(".tar.gz") for f in files)
    found = session_words(files)
    assert not found, "say it with a date or a commit:\n" + "\n".join(found)


def test_the_check_sees_each_kind_of_file_and_spelling(tmp_path):
    for folder in ("docs", "examples", "reproduction/report", "reproduction/records", "profiles/p"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "README.md").write_text("made in Session 21\n")
    (tmp_path / "docs" / "a.md").write_text("fine\nas issue 7 says\n")
    (tmp_path / "config.yaml").write_text("a: 1   # see ISSUE 3\n")
    (tmp_path / "examples" / "m.yaml").write_text("b: 2\n")
    (tmp_path / "profiles" / "p" / "config.yaml").write_text("c: 3  # session 4\n")
    (tmp_path / "reproduction" / "report" / "cells.md").write_text("measured in session 19 and issue 2\n")
    (tmp_path / "reproduction" / "records" / "x.tar.gz").write_bytes(b"session 1")
    (tmp_path / "reproduction" / "runs.csv").write_text("session 1\n")
    found = session_words(product_text(tmp_path), tmp_path)
    assert found == ["README.md:1: Session 21", "docs/a.md:2: issue 7", "config.yaml:1: ISSUE 3",
                     "profiles/p/config.yaml:1: session 4", "reproduction/report/cells.md:1: session 19",
                     "reproduction/report/cells.md:1: issue 2"]
    (tmp_path / "examples" / "m.yaml").write_text("sessions and issues, an issue of 2026-11-28\n")
    assert session_words([tmp_path / "examples" / "m.yaml"], tmp_path) == []
