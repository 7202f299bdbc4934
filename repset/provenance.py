"""Provenance of a result: package versions, platform, git commit, config hash, seed."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

#: Training-path fields added to ``TrainConfig`` after the first records, each with the value that reproduces
#: a record (or config) made before it existed; every new field that changes how a run trains belongs here.
LEGACY_DEFAULTS: dict[str, object] = {"distinct_elements": False, "ragged": False, "max_elements": None}

PACKAGES = ("repset", "torch", "numpy", "scipy", "numba", "snakemake", "cvxpy", "gensim", "pot", "pandas")


def package_versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str | None]:
    """Installed version of each package (None where not installed)."""
    out: dict[str, str | None] = {}
    for name in packages:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def config_hash(config: dict) -> str:
    """sha256 of the config as canonical JSON (sorted keys)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def git_commit(path: str | Path = ".") -> str | None:
    """HEAD commit of the repository holding ``path`` (None outside git), '+dirty' if modified."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=path,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return None


#: the commit of a copy of the code whose .git does not describe it (a GPU machine's working-tree copy travels
#: with the session's starting .git), declared by its driver; it takes precedence over git when set
COMMIT_ENV = "REPSET_GIT_COMMIT"


def _declared_commit() -> str | None:
    """:data:`COMMIT_ENV`'s commit, marked as declared (not read from git), or None."""
    value = os.environ.get(COMMIT_ENV, "").strip()
    return f"{value} (declared)" if value else None


#: environment variables that choose the kernels torch and MKL dispatch to (recorded where set)
KERNEL_ENV = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
              "OPENBLAS_CORETYPE")
#: CPU flags that change which kernels run (vector width, matrix units)
KERNEL_FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_tile", "amx_bf16")


def cpu_description(cpuinfo: str | None = None) -> dict:
    """The CPU as ``/proc/cpuinfo`` names it: ``model`` (e.g. "AMD EPYC"), ``vendor``, ``family``/``model_id``
    and which of :data:`KERNEL_FLAGS` it has (``platform.processor()`` where there is no /proc/cpuinfo)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return {"model": platform.processor() or None, "vendor": None, "flags": []}
    first = cpuinfo.split("\n\n", 1)[0]
    field = {m.group(1).strip(): m.group(2).strip() for m in re.finditer(r"^([^:\n]+):(.*)$", first, re.M)}
    flags = set(field.get("flags", "").split())
    return {"model": field.get("model name"), "vendor": field.get("vendor_id"), "family": field.get("cpu family"),
            "model_id": field.get("model"), "flags": [f for f in KERNEL_FLAGS if f in flags]}


def cpu_kind(cpu: dict | None) -> str | None:
    """The CPU kind that reruns are compared on (:func:`cpu_description`'s dict): its name with family and model
    number where recorded, e.g. "AMD EPYC (family 25, model 17)" (Zen 4) against "(family 26, model 2)" (Zen 5),
    which the name alone does not tell apart; the name alone for records that predate them; None if unnamed."""
    if not cpu or not cpu.get("model"):
        return None
    if cpu.get("family") is None:
        return cpu["model"]
    return f"{cpu['model']} (family {cpu['family']}, model {cpu.get('model_id')})"


def blas_description() -> str | None:
    """The BLAS torch was built with, from ``torch.__config__.show()`` (e.g. "oneMKL 2024.2"; None if unnamed)."""
    import torch

    shown = torch.__config__.show()
    mkl = re.search(r"Math Kernel Library Version ([\w.]+)", shown)
    if mkl:
        return f"MKL {mkl.group(1)}"
    blas = re.search(r"BLAS_INFO=(\w+)", shown)
    return blas.group(1) if blas else None


#: the OpenBLAS kernels the record's graph stores were built with (OpenBLAS's own choice on the AVX-512 EPYCs)
STORE_OPENBLAS_KERNELS = "SkylakeX"
#: OpenBLAS's SkylakeX ``sdot``/``saxpy`` (gensim's skip-gram calls them on vectors of the embedding's dim) use
#: AVX-512 only on whole blocks of this many values; shorter vectors run code that an AVX2 CPU runs too (measured on an
#: AVX2-only EPYC, OpenBLAS 0.3.30: dim 31 trains, dim 32 stops with SIGILL; docs/record.md)
SKYLAKEX_AVX512_BLOCK = 32


def openblas_environment(cpu: dict | None = None, dim: int | None = None) -> dict[str, str]:
    """``{"OPENBLAS_CORETYPE": "SkylakeX"}`` (:data:`STORE_OPENBLAS_KERNELS`) where the CPU (:func:`cpu_description`)
    runs those kernels for a skip-gram of ``dim``-dimensional vectors: any CPU with AVX-512, and one with AVX2 and FMA
    where ``dim`` < :data:`SKYLAKEX_AVX512_BLOCK`; else ``{}`` (``dim`` None: AVX-512 only). A struc2vec job sets it
    before numpy loads OpenBLAS, over any value the machine's environment sets (a VM of 2026-11-27 set
    ``OPENBLAS_CORETYPE=Haswell`` for every process, and its embeddings differed: docs/record.md), so that such a CPU
    builds the record's graph stores byte for byte; on another, its stores differ (the train rule refuses to mix them
    with the record's)."""
    cpu = cpu_description() if cpu is None else cpu
    flags = set(cpu.get("flags") or [])
    runs = "avx512f" in flags or ({"avx2", "fma"} <= flags and dim is not None and dim < SKYLAKEX_AVX512_BLOCK)
    return {"OPENBLAS_CORETYPE": STORE_OPENBLAS_KERNELS} if runs else {}


def openblas_kernels() -> dict[str, str | None]:
    """The kernels each OpenBLAS that numpy and scipy bundle chose, by package (threadpoolctl's ``architecture``,
    e.g. ``{"numpy": "Haswell", "scipy": "SkylakeX"}``). OpenBLAS picks them by CPU when it loads, unless
    ``OPENBLAS_CORETYPE`` names them (a machine's environment may set it: docs/record.md). scipy's level-1
    BLAS carries gensim's skip-gram, so a struc2vec embedding follows them (docs/record.md)."""
    import numpy  # noqa: F401 - loaded, so threadpoolctl sees their libraries
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    found = {Path(i["filepath"]).parent.name.removesuffix(".libs"): i.get("architecture")
             for i in threadpool_info() if i.get("internal_api") == "openblas"}
    return {name: found[name] for name in ("numpy", "scipy") if name in found}   # not others loaded (cvxpy's scs)


def machine(device: str = "cpu") -> dict:
    """Where a run ran, as far as it changes its floats: the CPU (model, vendor, kernel flags), the kernels
    torch dispatches to (``torch.backends.cpu.get_cpu_capability()``: "DEFAULT", "AVX2", "AVX512"), the BLAS
    (torch's; numpy's and scipy's OpenBLAS kernels, :func:`openblas_kernels`),
    the kernel-choosing environment variables that are set, the thread count and the device (with the GPU's
    name on CUDA)."""
    import torch

    out = {"cpu": cpu_description(), "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
           "blas": blas_description(), "openblas": openblas_kernels(),
           "kernel_env": {k: os.environ[k] for k in KERNEL_ENV if k in os.environ},
           "torch_threads": torch.get_num_threads(), "device": device}
    if torch.device(device).type == "cuda" and torch.cuda.is_available():
        out["gpu"] = torch.cuda.get_device_name(torch.device(device))
    return out


def provenance(config: dict | None = None, seed: int | None = None, device: str | None = None, **extra) -> dict:
    """A provenance block for a JSON record; with ``device`` (a training run's), also :func:`machine`."""
    import torch

    return {
        "config": config,
        "config_sha256": config_hash(config) if config is not None else None,
        "seed": seed,
        "packages": package_versions(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "torch_threads": torch.get_num_threads(),
        # the installed package's checkout, else (a non-editable install) the workflow's, run from its root
        "git_commit": _declared_commit() or git_commit(Path(__file__).resolve().parent) or git_commit(Path.cwd()),
        **({"machine": machine(device)} if device is not None else {}),
        **extra,
    }
