#!/usr/bin/env bash
# The graph campaign in packs, one fold at a time (every model and grid point of a fold before the next, so that a stop
# leaves whole folds), in a pinned clone beside the checkout, with the checkout's records (the runner of d15f727, 2026-11-27):
#
#   CLONE=../campaign_graph2 WORKERS=1 setsid nohup nice reproduction/campaign_packs.sh IMDB-MULTI PROTEINS > packs.log 2>&1 &
#   python -m repset.pipeline.record export $CLONE/results/runs reproduction          # commit what finished
#
# Per dataset: build its store in the clone (a graph store with OpenBLAS's SkylakeX kernels where the CPU runs them,
# as the record's were built: docs/record.md), stop unless its sha256 is the one runs.csv's records name, restore the
# dataset's records into the clone, then train the missing ones sorted by fold (`pack --paths-from`, WORKERS
# one-thread processes; LIST_ONLY=1 prints the list instead). The clone's own code trains (its virtualenv: .venv in the clone, else the active one).
#
# An opt-in row the same way: RECORDS (the record folder, default reproduction), OVERLAYS (config overlays for pack,
# paths in the clone), STORE_OVERLAYS (those the store was built under, for its Snakemake step) and MODELS (the models
# to train, default every one), e.g. the init-small rows on the text datasets' padded path:
#
#   CLONE=../init_runs RECORDS=reproduction/init_small OVERLAYS="reproduction/completed.yaml reproduction/init_small.yaml" \
#     MODELS="repset_init_small approx_repset_init_small" reproduction/campaign_packs.sh amazon 20ng
#   python -m repset.pipeline.record export $CLONE/results/runs reproduction/init_small
#
# END_AT (a clock time, `date +%s`: when the session that runs this ends) starts no run that is not expected to
# finish by then. Each pass hands pack only the runs that BUDGET (a budget CSV in the clone, results/budget/protocol.csv)
# expects to finish in the time left, its seconds per run times END_SCALE (default 1.5: runs beside other jobs are
# slower than the budget's quiet epochs), so that a pass's first runs, which nothing has judged yet, fit too; within
# the pass `pack --end-at` judges each further run by the longest of its kind finished in the call, else by BUDGET
# scaled by the finished kinds' measured / budget ratio. The last minutes go to short runs, and no pass starts once
# END_AT has passed. Without BUDGET only pack judges, and a run of a kind not finished yet in the call is expected to
# fit.
set -uo pipefail
. "$(dirname "$0")/lower_autogroup.sh"   # the group of a setsid job, never the caller's terminal
CHECKOUT=$(cd "$(dirname "$0")/.." && pwd)
CLONE=$(cd "${CLONE:-$CHECKOUT}" && pwd) || exit 1
RECORDS=$CHECKOUT/${RECORDS:-reproduction}
OVERLAY_ARGS=(); for f in ${OVERLAYS:-}; do OVERLAY_ARGS+=(--configfile "$f"); done
END_ARGS=(); [[ -n ${END_AT:-} ]] && END_ARGS=(--end-at "$END_AT" ${BUDGET:+--budget "$BUDGET"})
cd "$CLONE" || exit 1
[[ -f .venv/bin/activate ]] && . .venv/bin/activate
# the checkout's own choices (a pinned clone may predate them): the records' store kernels, over a machine-wide
# OPENBLAS_CORETYPE (a VM of 2026-11-27 set Haswell for every process), and the name of a dataset's archive
checkout_py() { python -c "import sys; sys.path.insert(0, sys.argv[1]); $1" "$CHECKOUT" "${@:2}"; }
for d in "$@"; do
  # at the dataset's struc2vec dim (the clone's config and STORE_OVERLAYS): an AVX2 CPU runs them below dim 32
  STORE_ENV=$(checkout_py "
from repset.pipeline.pack import load_config
from repset.protocol.plan import struc2vec_options
from repset.provenance import openblas_environment
dim = struc2vec_options(sys.argv[2], load_config('config.yaml', sys.argv[3:])).get('dim')
print(' '.join(f'{k}={v}' for k, v in openblas_environment(dim=dim).items()))" "$d" ${STORE_OVERLAYS:-}) || exit 1
  store=$(python -c "
import sys, yaml
from repset.protocol.plan import store_path
print(store_path(sys.argv[1], yaml.safe_load(open('config.yaml'))))" "$d") || exit 1
  # STORE_OVERLAYS: the overlays whose struc2vec settings the store was built under (reddit_full_walks.yaml), so that
  # Snakemake checks it against them; none by default, as the record's clones built their stores
  env $STORE_ENV snakemake --cores "${CORES:-2}" "$store" ${STORE_OVERLAYS:+--configfile $STORE_OVERLAYS} || exit 1   # after the target: --configfile takes every word that follows
  checkout_py "from repset.pipeline.record import main; main(sys.argv[2:])" check-store "$RECORDS" "$store" --dataset "$d" || exit 1
  archive=$(checkout_py "from repset.pipeline.archive import archive_name; print(archive_name(sys.argv[2]))" "$d") || exit 1
  if [[ -e $RECORDS/records/$archive ]]; then
    python -m repset.pipeline.record restore "$RECORDS" results/runs --dataset "$d" || exit 1
  fi
  # pass after pass: a reduced protocol's chosen runs wait for their searched splits (their grid choice is then
  # written, pack.ready_paths); stop when nothing is left or a pass would retrain the same list (failures)
  missing=$(mktemp) fitting=$(mktemp) previous=""
  while :; do
    python -m repset.pipeline.pack config.yaml "${OVERLAY_ARGS[@]}" --dataset "$d" --list | checkout_py "
from repset.pipeline.pack import load_config, ready_paths, select_paths
paths = select_paths(sys.stdin.read().split(), sys.argv[2].split() or None, by_split=True)
print('\n'.join(ready_paths(load_config('config.yaml', sys.argv[3:]), paths)))" "${MODELS:-}" ${OVERLAYS:-} > "$missing" || exit 1
    echo "== $(date -u) $d: $(grep -c . "$missing") runs to train"
    if [[ -n ${LIST_ONLY:-} ]]; then cat "$missing"; break; fi   # LIST_ONLY=1: the list, no training
    if ! grep -q . "$missing" || [[ $(cat "$missing") == "$previous" ]]; then break; fi
    if [[ -n ${END_AT:-} ]] && (( $(date +%s) >= END_AT )); then echo "== $(date -u) $d: END_AT has passed"; break; fi
    previous=$(cat "$missing")
    cp "$missing" "$fitting"
    if [[ -n ${END_AT:-} && -n ${BUDGET:-} ]]; then
      checkout_py "
import os, time
import pandas as pd
from repset.pipeline.pack import fitting_paths
from repset.protocol.budget import seconds_per_run
paths = open(sys.argv[2]).read().split()
left = int(os.environ['END_AT']) - time.time()
print('\n'.join(fitting_paths(paths, seconds_per_run(pd.read_csv(sys.argv[3])), left, float(sys.argv[4]))))" \
        "$missing" "$BUDGET" "${END_SCALE:-1.5}" > "$fitting" || exit 1
      echo "== $(date -u) $d: $(grep -c . "$fitting") of them expected to end by END_AT ($BUDGET x ${END_SCALE:-1.5})"
      grep -q . "$fitting" || break
    fi
    python -m repset.pipeline.pack config.yaml "${OVERLAY_ARGS[@]}" --paths-from "$fitting" --workers "${WORKERS:-1}" --threads 1 \
      "${END_ARGS[@]}"
    status=$?
    echo "== $(date -u) $d: pack exit $status"
  done
  rm -f "$missing" "$fitting"
done
echo "== $(date -u) done"
