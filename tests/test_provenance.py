"""Provenance blocks carry versions, hashes and seeds."""
from repset.provenance import config_hash, package_versions, provenance


def test_config_hash_ignores_key_order():
    assert config_hash({"a": 1, "b": [1, 2]}) == config_hash({"b": [1, 2], "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


def test_provenance_fields():
    p = provenance({"solver": "scipy"}, seed=3, solver="scipy")
    assert p["seed"] == 3 and p["solver"] == "scipy" and len(p["config_sha256"]) == 64
    assert p["packages"]["torch"] and p["packages"]["numpy"]
    assert package_versions(("surely-not-installed-pkg",)) == {"surely-not-installed-pkg": None}
