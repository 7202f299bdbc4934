#!/usr/bin/env bash
# The reproduction campaign, one dataset at a time (text, then graphs from small
# to large), every training job of the default config (the paper's protocol), then the dataset's WMD.
# Each finished job is a record; this folder keeps them (`export` below), so a stopped machine loses
# only the jobs in flight.
#
#   setsid nohup nice -n 19 reproduction/campaign.sh [DATASET ...] > campaign.log 2>&1 &   # from the repository root
#   python -m repset.pipeline.record export results/runs reproduction               # commit what finished
#
# Start of a session: each dataset's store is built first, then its records in this folder are restored
# (newer than the store, so Snakemake takes them as done; records already in results/runs are kept), so
# only the missing jobs run. Pause for a timing with `kill -STOP -- -<pgid>`, resume with -CONT.
set -uo pipefail
. "$(dirname "$0")/lower_autogroup.sh"   # the group of a setsid job, never the caller's terminal
cd "$(dirname "$0")/.."
DATASETS=("$@")
if [[ ${#DATASETS[@]} -eq 0 ]]; then
    DATASETS=(bbcsport twitter ohsumed classic reuters amazon 20ng MUTAG IMDB-BINARY IMDB-MULTI PROTEINS REDDIT-BINARY)
fi
for d in "${DATASETS[@]}"; do
    store=$(python -c "
import sys, yaml
from repset.protocol.plan import store_path
print(store_path(sys.argv[1], yaml.safe_load(open('config.yaml'))))" "$d") || exit 1
    snakemake --cores "${CORES:-2}" "$store" || exit 1
    name=$(python -c "import sys; from repset.datasets.registry import get_spec; print(get_spec(sys.argv[1]).name)" "$d")
    python -m repset.pipeline.record restore reproduction results/runs --dataset "$name" || exit 1
    targets=$(python -c "
import sys, yaml
from repset.protocol.jobs import runs
import os
print(' '.join(r.path for r in runs(yaml.safe_load(open('config.yaml')), [sys.argv[1]]) if not os.path.exists(r.path)))" "$d") || exit 1
    echo "== $(date -u) $d: $(wc -w <<<"$targets") training jobs to run"
    snakemake --cores "${CORES:-2}" --keep-going --rerun-incomplete $targets
    wmd=$(python -c "
import sys, yaml
from repset.datasets.registry import get_spec
c = yaml.safe_load(open('config.yaml'))
print('results/wmd/%s.json' % get_spec(sys.argv[1]).name if get_spec(sys.argv[1]).name in
      [get_spec(x).name for x in c['wmd']['datasets']] else '')" "$d")
    [[ -n $wmd ]] && snakemake --cores "${CORES:-2}" --keep-going "$wmd"
    python -m repset.pipeline.record export results/runs reproduction
done
echo "== $(date -u) done"
