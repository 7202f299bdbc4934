#!/usr/bin/env bash
# Post-deploy script of every workflow/envs environment (linked as <env>.post-deploy.sh): Snakemake
# runs it in the new environment from the workflow's working directory, the repository root, and it
# installs that checkout's package, editable (code edits need no new environment; records name the
# checkout's commit), without touching the dependencies the environment file pinned.
set -euo pipefail
if ! grep -q '^name = "repset"' pyproject.toml 2>/dev/null; then
    echo "post-deploy: run Snakemake from the repset repository root (no repset pyproject.toml in $PWD)" >&2
    exit 1
fi
python -m pip install --no-deps -e .
