"""README.md and docs/ stay true: every ```python block runs as written (each in a fresh namespace, from the
repository root, all in one fresh interpreter), every ```bash block runs, and only installs and long runs may
be marked ```bash no-run; relative links resolve; every config key has a row in docs/workflow.md."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from repo_paths import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
LANGUAGES = {"python", "bash", "bash no-run", "text", "yaml"}
#: what a ```bash no-run block may hold, line by line: installs, Snakemake runs, the test suite, benchmarks,
#: record commands and campaign scripts (minutes to days, or a network); anything else must run
LONG = re.compile(r"(python3 -m venv |\. \.venv/bin/activate|pip install |conda |snakemake |pytest|"
                  r"python -m repset\.(bench|pipeline)\.|python \.ci/|\.ci/|reproduction/campaign\.sh)")
RUNNER = """
import json, os, sys, traceback
failures = []
for label, code in json.load(sys.stdin):
    try:
        exec(compile(code, label, "exec"), {"__name__": "__main__"})
    except BaseException:
        failures.append(label + "\\n" + traceback.format_exc())
print(json.dumps(failures))
"""


@dataclass(frozen=True)
class Block:
    """One fenced code block: its page, its first code line, its info string and its text."""

    page: Path
    line: int
    info: str
    code: str

    @property
    def label(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text()
    return [Block(page, text.count("\n", 0, m.start()) + 2, m.group(1).strip(), m.group(2))
            for m in FENCE.finditer(text)]


ALL = [b for page in PAGES for b in blocks(page)]


def commands(code: str) -> list[str]:
    """The command lines of a shell block: no comments, no blank lines, no continuations of a line."""
    out, continued = [], False
    for line in code.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not continued:
            out.append(stripped)
        continued = stripped.endswith("\\")
    return out


def test_every_block_names_a_known_language():
    unknown = [f"{b.label} ```{b.info}" for b in ALL if b.info not in LANGUAGES]
    assert ALL and not unknown, f"blocks without one of {sorted(LANGUAGES)}: {unknown}"


def test_no_run_holds_only_installs_and_long_runs():
    shown = [b for b in ALL if b.info == "bash no-run"]
    runnable = [f"{b.label}: {c}" for b in shown for c in commands(b.code) if not LONG.match(c)]
    assert not runnable, "commands in ```bash no-run blocks that must run (move them to a ```bash block):\n" + \
        "\n".join(runnable)


def test_every_python_block_runs():
    python = [b for b in ALL if b.info == "python"]
    assert {b.page.name for b in python} >= {"README.md", "layer-and-solvers.md", "workflow.md", "record.md"}
    out = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps([(b.label, b.code) for b in python]),
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    failures = json.loads(out.stdout.strip().splitlines()[-1])
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("block", [b for b in ALL if b.info == "bash"], ids=lambda b: b.label)
def test_every_bash_block_runs(block):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(["bash", "-e", "-c", block.code], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=60)
    assert out.returncode == 0 and out.stdout, f"{block.label} failed:\n{out.stderr}"


def test_the_checks_see_a_failing_block_and_a_hidden_command(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# t\n\n```python\nassert 1 + 1 == 3\n```\n\n```bash no-run\npip install x \\\n  y\nls\n```\n")
    found = blocks(page)
    assert [(b.line, b.info) for b in found] == [(4, "python"), (8, "bash no-run")]
    with pytest.raises(AssertionError):
        exec(found[0].code, {})
    assert [c for c in commands(found[1].code) if not LONG.match(c)] == ["ls"]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_relative_links_resolve():
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif fragment and file.suffix == ".md":
                headings = {anchor(h) for h in re.findall(r"^#+ (.+)$", file.read_text(), re.M)}
                if fragment not in headings:
                    broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_every_config_key_has_a_row_in_the_workflow_page():
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    page = (ROOT / "docs" / "workflow.md").read_text()
    rows = set(re.findall(r"^\| `([a-z0-9_]+)` \|", page, re.M))
    assert set(schema["properties"]) <= rows, f"config keys without a row: {sorted(set(schema['properties']) - rows)}"
