#!/usr/bin/env bash
# REDDIT-BINARY's record moved from its declared reduction (92 runs on the reduced-walk store) to its full-walk
# protocol (920 runs, reproduction/reddit_full), once that folder holds them all. In the checkout, its reproduction/
# committed, with BUILD the worktree whose data/sets holds the full-walk store:
#
#   BUILD=../s2v_reddit reproduction/reddit_full_swap.sh
#
# Checks first, writing nothing under reproduction/: results/runs and results/init_study absent (the records are
# restored there, and the report reads them there); the store is the one reddit_full's records name (check-store);
# after restoring, every run of the report's protocol (completed.yaml, reddit_full_record.yaml in reddit_reduced.yaml's
# place, the init-small rows) is there and each dataset's runs read one store. Then:
#   1. the reduced record kept: its 92 records exported into reproduction/reddit_reduced (archive, runs.csv);
#   2. reddit_full's records over the reduced ones in results/runs, exported into reproduction with --replace
#      (the 92 replaced records are printed; runs.csv then holds the 920);
#   3. the majority-class row on the full-walk store's 100 folds, the budget page laid out as the new protocol
#      (`repset.pipeline.budget relayout`: the record's timings, the new records' epochs), the report
#      (`record report`) and status.md.
# A failed step leaves what it wrote for git to undo: `git checkout -- reproduction && rm -rf reproduction/reddit_reduced
# results/runs results/init_study`. What it leaves to a person: the docs' and LOG's words on REDDIT-BINARY (the report's overlay list, the
# state table), the cell notes of the new cells, the commit.
set -uo pipefail
main() {
  local dataset=REDDIT-BINARY store overlays   # tmp: global, for the EXIT trap after main returns
  cd "$(dirname "$0")/.." || exit 1
  BUILD=$(cd "${BUILD:?BUILD: the worktree whose data/sets holds the full-walk store}" && pwd) || exit 1
  store=$BUILD/data/sets/$dataset.struc2vec.npz
  overlays=(reproduction/completed.yaml reproduction/reddit_full_record.yaml reproduction/init_small.yaml
            reproduction/init_small_completed.yaml)
  [[ -f .venv/bin/activate ]] && . .venv/bin/activate
  stop() { echo "== $(date -u) stopped: $*"; exit 1; }
  [[ -z $(git status --porcelain --untracked-files=no -- reproduction) ]] || stop "reproduction/ has uncommitted changes"
  [[ ! -e reproduction/reddit_reduced ]] || stop "reproduction/reddit_reduced exists: the swap was made before?"
  for f in results/runs results/init_study; do [[ ! -e $f ]] || stop "$f exists: move it away (restored into here)"; done
  [[ -f $store ]] || stop "no store at $store"
  step check-store python -m repset.pipeline.record check-store reproduction/reddit_full "$store" --dataset "$dataset"
  tmp=$(mktemp -d) || stop "mktemp -d failed"
  trap 'rm -rf "$tmp"' EXIT
  step "restore the reduced record" python -m repset.pipeline.record restore reproduction "$tmp/runs" --dataset "$dataset"
  step "restore the record" python -m repset.pipeline.record restore reproduction results/runs
  step "restore the full-walk runs" python -m repset.pipeline.record restore reproduction/reddit_full "$tmp/full/runs" \
    --dataset "$dataset"
  step "the full-walk runs over the reduced ones" python -m repset.pipeline.record restore reproduction/reddit_full \
    results/runs --dataset "$dataset" --overwrite
  step "restore the init-small rows" python -m repset.pipeline.record restore reproduction/init_small results/runs
  step "restore the init study" python -m repset.pipeline.record restore reproduction/init_study results/init_study
  step "every run of the report's protocol, one store per dataset" python -c "
import sys
from repset.pipeline.pack import load_config
from repset.pipeline.report_record import record_sidecars
print(len(record_sidecars(load_config('config.yaml', sys.argv[1:]))), 'stores')" "${overlays[@]}"
  echo "== $(date -u) checked: writing under reproduction/"
  step "keep the reduced record" python -m repset.pipeline.record export "$tmp/runs" reproduction/reddit_reduced
  step "export" python -m repset.pipeline.record export "$tmp/full/runs" reproduction --replace   # REDDIT-BINARY's alone
  step "majority class" python -m repset.protocol.majority "$store" --dataset "$dataset" --splits 100 \
    --out "reproduction/report/majority/$dataset.json"
  step "budget page" python -m repset.pipeline.budget relayout reproduction/budget/protocol.csv \
    reproduction/budget/protocol.csv reproduction/budget/protocol.md --records reproduction/runs.csv \
    --configfile "${overlays[@]}"
  step report python -m repset.pipeline.record report reproduction reproduction/report --configfile "${overlays[@]}"
  step status python -m repset.pipeline.record status reproduction config.yaml --configfile \
    reproduction/reddit_full_record.yaml --budget reproduction/budget/graphs_stores.csv \
    --budget reproduction/budget/protocol.csv --out reproduction/status.md
  git status --short -- reproduction
  echo "== $(date -u) done: read reproduction/report/REPORT.md and git diff, then write what is left to a person"
}

# step NAME COMMAND...: run it, stop the swap where it fails
step() {
  echo "== $(date -u) $1"
  "${@:2}" || { echo "== $(date -u) stopped at: $1 (git checkout -- reproduction && rm -rf reproduction/reddit_reduced" \
    "results/runs results/init_study undoes what was written)"; exit 1; }
}

main "$@"
