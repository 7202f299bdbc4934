#!/usr/bin/env bash
# REDDIT-BINARY's declared protocol (920 runs, reproduction/reddit_full_walks.yaml) on the full-walk store, trained in
# a worktree pinned at a committed commit with a virtualenv of its own, once reddit_full_build.sh has built the store:
#
#   git worktree add --detach ../reddit_full <commit>
#   (cd ../reddit_full && python3 -m venv .venv && . .venv/bin/activate && pip install -c constraints.txt -e '.[all]')
#   END_AT=$(( $(date +%s) + 175 * 60 )) BUILD=../s2v_reddit CLONE=../reddit_full setsid nohup \
#       reproduction/reddit_full_protocol.sh > ../reddit_full/logs/reddit_full_protocol.log 2>&1 < /dev/null &
#
# Start it beside reddit_full_build.sh in every session: it first waits for the build's lock (the build running now
# holds it), so the protocol starts the minute a build ends with the store, and exits 1 when the lock is free but the
# store is not there (a build that failed). Then, idempotently:
#   1. the raw files in the clone (from the mirror), then the build's embedding and store copied after them, so that
#      Snakemake finds the store newer than its inputs; a dry run must then plan nothing but the budget (a struc2vec
#      job here would be 35 hours of rebuilding: the script stops instead);
#   2. the budget on the store's own sets, once (results/budget/protocol.md, reddit_full_budget.yaml): it times
#      epochs, so nothing else should run then (pause other jobs by PID for its few minutes);
#   3. campaign_packs.sh: the records of reproduction/reddit_full restored, the missing runs trained fold by fold
#      (WORKERS one-thread processes, default 2). END_AT (`date +%s` of the session's end; optional) starts no run
#      not expected to finish by then: each pass only the runs the step-2 budget expects to (x END_SCALE, default
#      1.5), and within a pass pack's estimate from the runs finished in it; a session's end then cuts no run in
#      flight but for one slower than expected. Commit what finished after each session with
#        python -m repset.pipeline.record export ../reddit_full/results/runs reproduction/reddit_full
set -uo pipefail
# the body is one function, read whole before it runs: a later edit of this file cannot derail a running protocol
main() {
  . "$(dirname "$0")/lower_autogroup.sh"   # the group of a setsid job, never the caller's terminal
  local checkout dataset=REDDIT-BINARY walks=reproduction/reddit_full_walks.yaml
  local budget=reproduction/reddit_full_budget.yaml embed store planned rules f
  checkout=$(cd "$(dirname "$0")/.." && pwd)
  BUILD=$(cd "${BUILD:?BUILD: the worktree that builds the store}" && pwd) || exit 1
  CLONE=$(cd "${CLONE:?CLONE: the worktree that trains the protocol}" && pwd) || exit 1
  embed=data/embed/$dataset.struc2vec.npy store=data/sets/$dataset.struc2vec.npz
  mkdir -p "$BUILD/logs" "$CLONE/logs"
  exec 8>>"$CLONE/logs/reddit_full_protocol.lock"
  flock -n 8 || { echo "== $(date -u) another run holds $CLONE/logs/reddit_full_protocol.lock"; exit 75; }
  echo "== $(date -u) waiting for $BUILD/logs/reddit_full_build.lock"
  exec 9>>"$BUILD/logs/reddit_full_build.lock"
  flock 9 || exit 1   # held to the end: no build starts while the store is copied or trained on
  if [[ ! -f $BUILD/$embed || ! -f $BUILD/$store || ! -f $BUILD/${store%.npz}.json ]]; then
    echo "== $(date -u) no store in $BUILD yet: run reddit_full_build.sh until it ends with exit 0"; exit 1
  fi
  cd "$CLONE" || exit 1
  . .venv/bin/activate || exit 1
  echo "== $(date -u) protocol in $CLONE at $(git rev-parse --short HEAD), store of $BUILD"
  snakemake --cores 1 "data/raw/$dataset.sources.json" || exit 1
  # the embedding, the store and its sidecar, in this order, in every run: each newer than what it is made from
  for f in "$embed" "$store" "${store%.npz}.json"; do
    mkdir -p "$(dirname "$f")" && cp "$BUILD/$f" "$f.part" && mv "$f.part" "$f" || exit 1
    echo "== copied $f (sha256 $(sha256sum < "$f" | cut -c1-16))"
  done
  # nothing may be built but the budget (targets before --configfile: it takes every word that follows)
  planned=$(snakemake "$store" results/budget/protocol.md -n --configfile "$walks" "$budget" 2>&1) || {
    echo "$planned"; exit 1; }
  rules=$(grep -Eo '^(local)?rule [A-Za-z0-9_]+:' <<< "$planned" | sed -E 's/^(local)?rule //; s/:$//' | sort -u)
  if grep -v '^budget$' <<< "$rules" | grep -q .; then
    echo "$planned"; echo "== $(date -u) Snakemake would run $(echo $rules) for the store: stopped"; exit 1
  fi
  if [[ ! -f results/budget/protocol.md ]]; then
    snakemake --cores 2 results/budget/protocol.md --configfile "$walks" "$budget" || exit 1
    echo "== $(date -u) budget: $CLONE/results/budget/protocol.md"
  fi
  CLONE=$CLONE RECORDS=reproduction/reddit_full OVERLAYS=$walks STORE_OVERLAYS=$walks WORKERS=${WORKERS:-2} \
    BUDGET=results/budget/protocol.csv END_AT=${END_AT:-} \
    "$checkout/reproduction/campaign_packs.sh" "$dataset"
  status=$?
  echo "== $(date -u) exit $status"
  exit $status
}
main "$@"
exit
