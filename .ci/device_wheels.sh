#!/usr/bin/env bash
# The wheels a GPU machine's call installs from .ci/wheels/ (--no-deps, --no-index: it has no internet), fetched
# here beforehand; carry .ci/wheels. torch-linear-assignment: the cuda solver's kernel. jsonschema and its
# dependencies: repset.pipeline's config validation, which the packs of .ci/gpu_session.sh import (the H200
# machine of 2026-11-30 had none of them); threadpoolctl: records name OpenBLAS's kernels through it; rpds-py is
# compiled, so one wheel per CPython the device may run.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .ci/wheels
pip download -q --no-deps -d .ci/wheels torch-linear-assignment==0.1.0 jsonschema jsonschema-specifications referencing attrs \
  threadpoolctl
for version in 3.10 3.11 3.12 3.13; do
  pip download -q --no-deps --only-binary=:all: --python-version "$version" \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .ci/wheels rpds-py
done
ls .ci/wheels
