"""Provenance blocks carry versions, hashes and seeds."""
import json
from pathlib import Path

import pytest

from repset.provenance import config_hash, package_versions, provenance


def test_config_hash_ignores_key_order():
    assert config_hash({"a": 1, "b": [1, 2]}) == config_hash({"b": [1, 2], "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


def test_provenance_fields():
    p = provenance({"solver": "scipy"}, seed=3, solver="scipy")
    assert p["seed"] == 3 and p["solver"] == "scipy" and len(p["config_sha256"]) == 64
    assert p["packages"]["torch"] and p["packages"]["numpy"]
    assert package_versions(("surely-not-installed-pkg",)) == {"surely-not-installed-pkg": None}


def test_commit_falls_back_to_the_workflow_checkout(monkeypatch, tmp_path):
    import repset.provenance as P

    calls = []
    monkeypatch.setattr(P, "git_commit", lambda path: calls.append(str(path)) or (None if len(calls) == 1 else "abc123"))
    assert P.provenance({"a": 1})["git_commit"] == "abc123"      # the package's folder is no checkout (site-packages)
    assert calls[1] == str(Path.cwd())


def test_a_copy_records_the_commit_its_driver_declares(monkeypatch):
    """A working-tree copy whose .git is stale or absent (a GPU machine's) records the commit its driver
    declares, marked so, over git's; with no declaration and no git the field stays empty, not guessed."""
    import repset.provenance as P

    monkeypatch.setattr(P, "git_commit", lambda path: "5e7daff+dirty")
    monkeypatch.setenv(P.COMMIT_ENV, "3e7f298")
    assert P.provenance({"a": 1})["git_commit"] == "3e7f298 (declared)"
    monkeypatch.delenv(P.COMMIT_ENV)
    assert P.provenance({"a": 1})["git_commit"] == "5e7daff+dirty"
    monkeypatch.setattr(P, "git_commit", lambda path: None)
    assert P.provenance({"a": 1})["git_commit"] is None


def test_records_name_the_openblas_kernels_and_their_override():
    """numpy's and scipy's OpenBLAS kernels are named, and OPENBLAS_CORETYPE, read when the library loads, both
    picks them (Haswell: any AVX2 CPU) and is recorded among the kernel-choosing variables."""
    import os
    import subprocess
    import sys

    from repset.provenance import KERNEL_ENV, openblas_kernels

    try:
        import scs  # noqa: F401 - cvxpy's solver bundles an OpenBLAS of its own: not named
    except ImportError:
        pass

    here = openblas_kernels()
    assert set(here) == {"numpy", "scipy"} and all(isinstance(k, str) and k for k in here.values())
    assert "OPENBLAS_CORETYPE" in KERNEL_ENV
    code = "import json; from repset.provenance import machine; m = machine(); print(json.dumps([m['openblas'], m['kernel_env']]))"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "OPENBLAS_CORETYPE": "Haswell"},
                         capture_output=True, text=True, check=True).stdout
    kernels, env = json.loads(out.splitlines()[-1])
    assert kernels == {"numpy": "Haswell", "scipy": "Haswell"} and env["OPENBLAS_CORETYPE"] == "Haswell"


def test_a_cpu_kind_tells_apart_the_families_that_one_name_covers():
    from repset.provenance import cpu_description, cpu_kind

    zen4 = {"model": "AMD EPYC", "vendor": "AuthenticAMD", "family": "25", "model_id": "17", "flags": ["avx512f"]}
    assert cpu_kind(zen4) == "AMD EPYC (family 25, model 17)"
    assert cpu_kind({**zen4, "family": "26", "model_id": "2"}) != cpu_kind(zen4)
    assert cpu_kind({"model": "AMD EPYC", "vendor": None, "flags": []}) == "AMD EPYC"   # recorded before families
    assert cpu_kind(None) is None and cpu_kind({"model": None}) is None
    info = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\nflags\t\t: avx2 fma\n"
    assert cpu_kind(cpu_description(info)) == "AMD EPYC (family 26, model 2)"


def test_struc2vec_jobs_pick_the_record_stores_kernels_where_the_cpu_runs_them():
    from repo_paths import ROOT
    from repset.provenance import SKYLAKEX_AVX512_BLOCK, openblas_environment

    skylakex = {"OPENBLAS_CORETYPE": "SkylakeX"}
    avx512, avx2 = {"model": "AMD EPYC", "flags": ["avx2", "fma", "avx512f"]}, {"model": "AMD EPYC", "flags": ["avx2", "fma"]}
    assert openblas_environment(avx512) == openblas_environment(avx512, 300) == skylakex   # over a machine-wide Haswell
    assert openblas_environment(avx2, 20) == openblas_environment(avx2, SKYLAKEX_AVX512_BLOCK - 1) == skylakex
    assert openblas_environment(avx2, SKYLAKEX_AVX512_BLOCK) == {}    # its AVX-512 block loop would run: SIGILL
    assert openblas_environment(avx2) == {}                            # dim unknown: AVX-512 only
    assert openblas_environment({"model": "old", "flags": ["avx2"]}, 20) == {}
    script = (ROOT / "workflow" / "scripts" / "struc2vec.py").read_text()
    assert script.index("os.environ.update(openblas_environment(dim=") < script.index("from repset.pipeline.data import")


#: sha256 of the input vectors of the skip-gram below, by OpenBLAS kernels: the same on every CPU that runs them at
#: dim 20. SkylakeX: the record's graph stores (computed on an AVX2-only AMD EPYC, family 23; the stores, built on
#: AVX-512 EPYCs, rebuilt there byte for byte). Haswell: the reference-struc2vec stores and REDDIT-BINARY's full-walk
#: store (`--openblas=Haswell`; computed on an AVX-512 Intel Xeon, family 6 model 207, where MUTAG's reference store,
#: built on an AMD EPYC of family 25, rebuilt byte for byte). docs/record.md
DIM20_SKIP_GRAM_SHA256 = {"SkylakeX": "5971d1d68aa673680dd9f7bc9b634a9d10b8d9169e56ceb539c6694940ecc3e0",
                          "Haswell": "9dea55a6871b2984e795bfed1a0dc415c59c3220b5ef0306260ee96a48a59182"}


@pytest.mark.parametrize("kernels", sorted(DIM20_SKIP_GRAM_SHA256))
def test_the_stores_kernels_give_one_skip_gram_on_every_cpu_that_runs_them(kernels):
    """gensim's skip-gram at dim 20 with OPENBLAS_CORETYPE=<kernels>, in a fresh process: the vectors' sha256 is the
    one computed on another CPU kind, so that a machine here checks it rebuilds the stores made with those kernels."""
    import os
    import subprocess
    import sys

    from repset.provenance import cpu_description, openblas_environment

    flags = set(cpu_description()["flags"])
    if kernels == "SkylakeX" and not openblas_environment(cpu_description(), 20):
        pytest.skip("this CPU cannot run OpenBLAS's SkylakeX kernels at dim 20")
    if kernels == "Haswell" and not {"avx2", "fma"} <= flags:
        pytest.skip("this CPU cannot run OpenBLAS's Haswell kernels (AVX2 and FMA)")
    code = """
import hashlib, numpy as np
from gensim.models import Word2Vec
rng = np.random.default_rng(0)
walks = [[str(w) for w in (rng.integers(300) + np.cumsum(rng.integers(-3, 4, 40))) % 300] for _ in range(600)]
m = Word2Vec(walks, vector_size=20, window=10, min_count=0, sg=1, hs=1, negative=5, workers=1, seed=0, epochs=1)
print(hashlib.sha256(np.ascontiguousarray(m.wv.vectors).tobytes()).hexdigest())
"""
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "OPENBLAS_CORETYPE": kernels},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == DIM20_SKIP_GRAM_SHA256[kernels]
