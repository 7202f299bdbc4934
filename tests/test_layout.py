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

No circle of imports anywhere, inside a room or across rooms, in repset/ or in solvers/ (an import
inside a function counts: it is a circle as soon as both modules are loaded).
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


def module_name(path: Path, root: Path = ROOT) -> str:
    """``<root>/repset/protocol/plan.py`` -> ``repset.protocol.plan``; a package's ``__init__.py`` -> its name."""
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
    return ".".join(parts)


def imports_of(path: Path, module: str, package_name: str = "repset") -> set[str]:
    """Absolute names under ``package_name`` that ``path`` imports (relative imports resolved)."""
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
    return {m for m in out if m == package_name or m.startswith(package_name + ".")}


def graph(package_name: str = "repset", root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of the same top-level package it imports, for ``<root>/<package_name>``."""
    modules = {module_name(p, root): p for p in (root / package_name).rglob("*.py")}
    return {m: {t for t in imports_of(p, m, package_name) if t in modules} - {m} for m, p in modules.items()}


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    """The first import circle of ``g`` (depth-first, in sorted order) as ``[a, b, ..., a]``, or None."""
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(g[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt, stack + [nxt])):
                return found
        state[node] = 2
        return None

    for node in sorted(g):
        if node not in state and (found := visit(node, [node])):
            return found
    return None


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


@pytest.mark.parametrize("package_name", ["repset", "solvers"])
def test_no_import_cycles(package_name):
    cycle = find_cycle(graph(package_name))
    assert cycle is None, f"import cycle in {package_name}/: " + " -> ".join(cycle)


def test_the_checker_sees_a_circle_inside_a_room(tmp_path):
    """A planted circle inside one room of a package laid out as solvers/ is (two modules importing each
    other, one of them lazily inside a function), with a third module outside it; and a synthetic one."""
    pkg = tmp_path / "planted"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kernels.py").write_text("from .solver import solve_batch\n")
    (pkg / "solver.py").write_text("def solve_batch():\n    from .kernels import row_best\n")
    (pkg / "other.py").write_text("from planted.solver import solve_batch\n")
    g = graph("planted", tmp_path)
    assert g["planted.other"] == {"planted.solver"}
    assert find_cycle(g) == ["planted.kernels", "planted.solver", "planted.kernels"]
    (pkg / "solver.py").write_text("def solve_batch():\n    pass\n")
    assert find_cycle(graph("planted", tmp_path)) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"b"}}) == ["b", "c", "b"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


#: solvers that take torch tensors (``cuda`` solves on the tensors' device); the others are torch-free
TENSOR_SOLVERS = {"solvers/cuda.py", "solvers/tla.py"}


def test_solvers_know_nothing_of_repset():
    """No solver imports repset; only the tensor solvers import torch (tensors, never models)."""
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "solvers").rglob("*.py")
                 if imports_of(p, module_name(p)) or ("import torch" in p.read_text()
                                                      and str(p.relative_to(ROOT)) not in TENSOR_SOLVERS)]
    assert offenders == []
    assert all("torch.nn" not in (ROOT / path).read_text() for path in TENSOR_SOLVERS)


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
