"""The solver registry: names, lazy resolution, errors listing valid names."""
import pytest

import solvers
from solvers import MatchingSolver, available_solvers, get_solver, register


def test_scipy_is_registered():
    assert "scipy" in available_solvers()
    assert get_solver("scipy").name == "scipy"


def test_unknown_name_lists_valid_ones():
    with pytest.raises(ValueError) as err:
        get_solver("hungarian-magic")
    assert "hungarian-magic" in str(err.value)
    for name in available_solvers():
        assert name in str(err.value)


def test_instances_pass_through_and_register(monkeypatch):
    monkeypatch.setattr(solvers, "_REGISTRY", dict(solvers._REGISTRY))
    from solvers.scipy_solver import ScipySolver

    register("mine", ScipySolver)
    assert isinstance(get_solver("mine"), ScipySolver)
    inst = ScipySolver()
    assert get_solver(inst) is inst
    with pytest.raises(ValueError, match="non-empty string"):
        register("", ScipySolver)


def test_every_registered_solver_is_a_solver():
    for name in available_solvers():
        try:
            solver = get_solver(name)
        except ImportError:  # optional dependency missing (e.g. cvxpy for "lp")
            continue
        assert isinstance(solver, MatchingSolver) and solver.name == name
