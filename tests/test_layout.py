"""The house keeps its shape: imports inside repset only point down the floors, never up or in a cycle,
and ``import repset.layers`` stays light (no pandas, matplotlib, workflow glue).

Floors, top to bottom (a module may import its own room and any lower floor, never a higher or a
sibling room on its own floor):

    5  pipeline                              the functions the workflow's scripts call
    4  report                                tables, figures, REPORT.md
    3  protocol, bench                       the benchmark protocol; measurements beyond it
    2  training                              classifier, trainer, one run
    1  layers, datasets, embed, wmd          set layers; data; node embeddings; the WMD baseline
    0  repset, sets, io, provenance, threads the ground floor (and the solvers/ plugins below repset)
"""
import ast
import subprocess
import sys
from pathlib import Path

import pytest
from repo_paths import ROOT

FLOORS = {
    "pipeline": 5, "report": 4, "protocol": 3, "bench": 3, "training": 2,
    "layers": 1, "datasets": 1, "embed": 1, "wmd": 1,
    "": 0, "sets": 0, "io": 0, "provenance": 0, "threads": 0,
}


def room(module: str) -> str:
    """``repset.protocol.plan`` -> ``protocol``; ``repset`` -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
    return ".".join(parts)


def imports_of(path: Path, module: str) -> set[str]:
    """Absolute names of the repset modules ``path`` imports (relative imports resolved)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.add(target)
            out |= {f"{target}.{a.name}" for a in node.names}   # `from pkg import submodule`
    return {m for m in out if m == "repset" or m.startswith("repset.")}


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in (ROOT / "repset").rglob("*.py")}
    return {m: {t for t in imports_of(p, m) if t in modules} - {m} for m, p in modules.items()}


def test_every_room_has_a_floor():
    rooms = {room(m) for m in graph()}
    assert rooms <= set(FLOORS), f"modules in rooms without a floor: {sorted(rooms - set(FLOORS))}"


def test_imports_point_down():
    upward = []
    for module, targets in graph().items():
        for target in targets:
            a, b = room(module), room(target)
            if a != b and FLOORS[b] >= FLOORS[a] and b != "":
                upward.append(f"{module} -> {target} (floor {FLOORS[a]} -> {FLOORS[b]})")
    assert not upward, "imports that do not point down:\n" + "\n".join(sorted(upward))


def test_no_import_cycles():
    g = graph()
    state: dict[str, int] = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(g[node]):
            if state.get(nxt) == 1:
                pytest.fail("import cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(g):
        if node not in state:
            visit(node, [node])


def test_solvers_know_nothing_of_repset():
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "solvers").rglob("*.py")
                 if imports_of(p, module_name(p)) or "import torch" in p.read_text()]
    assert offenders == []


def test_the_checker_sees_an_upward_import(tmp_path):
    # the walk resolves relative imports: a layer module importing the pipeline is caught
    fake = ROOT / "repset" / "layers" / "base.py"
    assert "repset.sets" in imports_of(fake, "repset.layers.base")
    probe = tmp_path / "probe.py"
    probe.write_text("from ..pipeline import train\n")
    assert {"repset.pipeline", "repset.pipeline.train"} <= imports_of(probe, "repset.layers.probe")


def test_import_repset_layers_is_light():
    code = ("import sys, repset.layers\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'matplotlib', 'snakemake', 'cvxpy', "
            "'gensim', 'ot', 'scipy', 'numba'})\n"
            "glue = sorted(m for m in sys.modules if m.startswith(('repset.pipeline', 'repset.protocol', 'repset.report', "
            "'repset.bench', 'repset.datasets', 'repset.training')))\n"
            "print(heavy, glue)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[] []"
