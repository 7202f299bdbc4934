#!/usr/bin/env bash
# The graph campaign in packs, one fold at a time (every model and grid point of a fold before the next, so that a stop
# leaves whole folds), in a pinned clone beside the checkout, with the checkout's records (session 15's runner):
#
#   CLONE=../campaign_graph2 WORKERS=1 nohup nice reproduction/campaign_packs.sh IMDB-MULTI PROTEINS > packs.log 2>&1 &
#   python -m repset.pipeline.record export $CLONE/results/runs reproduction          # commit what finished
#
# Per dataset: build its store in the clone (a graph store with OpenBLAS's SkylakeX kernels where the CPU has AVX-512,
# as the record's were built: docs/record.md), stop unless its sha256 is the one runs.csv's records name, restore the
# dataset's records into the clone, then train the missing ones sorted by fold (`pack --paths-from`, WORKERS
# one-thread processes; LIST_ONLY=1 prints the list instead). The clone's own code trains (its virtualenv: .venv in the clone, else the active one).
set -uo pipefail
echo "${AUTOGROUP_NICE:-19}" > /proc/self/autogroup 2>/dev/null || true
CHECKOUT=$(cd "$(dirname "$0")/.." && pwd)
CLONE=$(cd "${CLONE:-$CHECKOUT}" && pwd) || exit 1
cd "$CLONE" || exit 1
[[ -f .venv/bin/activate ]] && . .venv/bin/activate
# the checkout's own choices (a pinned clone may predate them): the records' store kernels, over a machine-wide
# OPENBLAS_CORETYPE (a VM of 2026-11-27 set Haswell for every process), and the name of a dataset's archive
checkout_py() { python -c "import sys; sys.path.insert(0, sys.argv[1]); $1" "$CHECKOUT" "${@:2}"; }
STORE_ENV=$(checkout_py "from repset.provenance import openblas_environment
print(' '.join(f'{k}={v}' for k, v in openblas_environment().items()))") || exit 1
for d in "$@"; do
  store=$(python -c "
import sys, yaml
from repset.protocol.plan import store_path
print(store_path(sys.argv[1], yaml.safe_load(open('config.yaml'))))" "$d") || exit 1
  env $STORE_ENV snakemake --cores "${CORES:-2}" "$store" || exit 1
  python - "$d" "$store" "$CHECKOUT/reproduction/runs.csv" <<'PY' || exit 1
import json, sys
import pandas as pd
dataset, store, table = sys.argv[1:]
runs = pd.read_csv(table)
theirs = set(runs.loc[runs["dataset"] == dataset, "storesha256_of"].dropna())
ours = json.load(open(store.removesuffix(".npz") + ".json"))["sha256"]
print(f"{store}: sha256 {ours}; the records': {sorted(theirs) or 'none yet'}")
if theirs and theirs != {ours}:
    sys.exit(f"{store}: not the store of {dataset}'s records ({sorted(theirs)}): rebuild it as they were (docs/record.md)")
PY
  archive=$(checkout_py "from repset.pipeline.archive import archive_name; print(archive_name(sys.argv[2]))" "$d") || exit 1
  if [[ -e $CHECKOUT/reproduction/records/$archive ]]; then
    python -m repset.pipeline.record restore "$CHECKOUT/reproduction" results/runs --dataset "$d" || exit 1
  fi
  missing=$(mktemp)
  python -m repset.pipeline.pack config.yaml --dataset "$d" --list | python -c "
import re, sys
paths = sys.stdin.read().split()
print('\n'.join(sorted(paths, key=lambda p: int(re.search(r'split(\d+)_seed', p).group(1)))))" > "$missing" || exit 1
  echo "== $(date -u) $d: $(grep -c . "$missing") runs to train"
  if [[ -n ${LIST_ONLY:-} ]]; then cat "$missing"; rm -f "$missing"; continue; fi   # LIST_ONLY=1: the list, no training
  python -m repset.pipeline.pack config.yaml --paths-from "$missing" --workers "${WORKERS:-1}" --threads 1
  echo "== $(date -u) $d: pack exit $?"
  rm -f "$missing"
done
echo "== $(date -u) done"
