#!/usr/bin/env bash
# A share of REDDIT-BINARY's full-walk protocol (reddit_full_walks.yaml) for a GPU machine's call, prepared in the
# checkout from the clone that trains the protocol here (reddit_full_protocol.sh), and its records brought back:
#
#   CLONE=../reddit_full reproduction/reddit_full_gpu.sh prepare    # then the call it prints, as one `run`
#   CLONE=../reddit_full reproduction/reddit_full_gpu.sh collect <files_at>
#   reproduction/reddit_full_gpu.sh back                            # the record tables, if a call never came back
#
# prepare, in order (each step stops the script on failure, naming what failed):
#   1. the checkout is committed (the records name its HEAD: device_jobs/commit), and its training code is the
#      clone's: every file that differs between the clone's commit and HEAD under repset/ (but repset/bench),
#      solvers/, workflow/ or config.yaml must be named in CODE_DIFF_READ (read, and judged not to change what a
#      run computes), else the script prints the diff's files and stops;
#   2. the clone's store as byte planes (device_jobs/planes: the store is over the 64 MiB carry) and its sidecar;
#   3. the clone's records of the dataset (device_jobs/runs.tar.gz, unpacked there first: the chosen runs read their
#      grid choices, and a record of another store is refused as here);
#   4. the ready missing runs (pack --list --ready, in the clone), highest fold first, so that the call and the local
#      campaign (fold by fold from 0) work from opposite ends: GPU_MODELS' runs (default: RepSet and the five
#      baselines, 10-70x faster there than on a CPU core on 2026-12-04) for the GPU (device_jobs/gpu_paths.txt),
#      the others (ApproxRepSet) for the machine's CPU cores (device_jobs/paths.txt);
#   5. the device's wheels (.ci/device_wheels.sh), then the record tables set aside (.ci/tree_aside.sh out), so that
#      the tree and the carry fit in 64 MiB; `collect` (or `back`) brings them back.
# collect adds the call's records that the clone lacks, each checked to name the clone's store
# (reproduction/device_records.py); then export and commit them as after a local session.
set -uo pipefail
main() {
  local checkout dataset=REDDIT-BINARY walks=reproduction/reddit_full_walks.yaml python
  checkout=$(cd "$(dirname "$0")/.." && pwd)
  cd "$checkout" || exit 1
  python=$checkout/.venv/bin/python; [[ -x $python ]] || python=python3   # the checkout's repset and its packages
  case "${1:-}" in
    prepare) prepare ;;
    collect) collect "${2:?collect: the folder of the call files (files_at)}" ;;
    back) bash .ci/tree_aside.sh back ;;
    *) echo "usage: CLONE=<clone> $0 prepare | collect <files_at> | back"; exit 2 ;;
  esac
}

clone_dir() { CLONE=$(cd "${CLONE:?CLONE: the worktree that trains the protocol}" && pwd) || exit 1; }

prepare() {
  clone_dir
  local store=data/sets/$dataset.struc2vec.npz pin changed unread digest all
  if [[ -n $(git status --porcelain --untracked-files=no) ]]; then
    git status --short --untracked-files=no; echo "prepare: commit the checkout first (the records name its HEAD)"; exit 1
  fi
  pin=$(git -C "$CLONE" rev-parse HEAD) || exit 1
  changed=$(git diff --name-only "$pin" HEAD -- repset solvers workflow config.yaml ':(exclude)repset/bench') || exit 1
  unread=$(comm -23 <(sort <<< "$changed" | grep .) <(tr ' ' '\n' <<< "${CODE_DIFF_READ:-}" | grep . | sort))
  if [[ -n $unread ]]; then
    echo "prepare: the training code differs from the clone's ($(git rev-parse --short "$pin")) in:"; echo "$unread"
    echo "read 'git diff $(git rev-parse --short "$pin") HEAD -- <file>'; name the files in CODE_DIFF_READ if no run changes"
    exit 1
  fi
  [[ -f $CLONE/$store && -f $CLONE/${store%.npz}.json ]] || { echo "prepare: no store in $CLONE/data/sets yet"; exit 1; }
  mkdir -p device_jobs data/sets
  digest=$(sha256sum < "$CLONE/$store" | cut -d' ' -f1)
  if [[ $(cut -d' ' -f1 device_jobs/planes/sha256 2>/dev/null) != "$digest" ]]; then
    rm -rf device_jobs/planes && python3 .ci/store_planes.py pack "$CLONE/$store" device_jobs/planes || exit 1
  fi
  cp "$CLONE/${store%.npz}.json" "${store%.npz}.json" || exit 1
  if [[ -d $CLONE/results/runs/$dataset ]]; then
    tar czf device_jobs/runs.tar.gz -C "$CLONE" "results/runs/$dataset" || exit 1
  else
    tar czf device_jobs/runs.tar.gz -T /dev/null || exit 1
  fi
  all=$(cd "$CLONE" && PYTHONPATH=$checkout "$python" -P -m repset.pipeline.pack "$checkout/config.yaml" \
    --configfile "$checkout/$walks" --dataset "$dataset" --list --ready) || { echo "$all"; exit 1; }
  by_fold() { sed -E 's/.*split([0-9]+)_seed.*/\1 &/' | sort -s -k1,1nr | cut -d' ' -f2; }
  gpu_models="${GPU_MODELS:-repset set_transformer deepsets nn_mean nn_max nn_attention}"
  grep -E "/$dataset/(${gpu_models// /|})/" <<< "$all" | by_fold > device_jobs/gpu_paths.txt
  grep -vE "/$dataset/(${gpu_models// /|})/" <<< "$all" | grep . | by_fold > device_jobs/paths.txt
  git rev-parse HEAD > device_jobs/commit
  bash .ci/device_wheels.sh > /dev/null || exit 1
  bash .ci/tree_aside.sh out || exit 1
  echo "== $(grep -c . device_jobs/gpu_paths.txt) GPU runs (${gpu_models}), $(grep -c . device_jobs/paths.txt) CPU runs;" \
       "store $(cut -c1-16 <<< "$digest"), commit $(git rev-parse --short HEAD); carry about" \
       "$(du -scb device_jobs .ci/wheels "${store%.npz}.json" | tail -1 | cut -f1) bytes beside the tree"
  cat <<EOF
== the call (one \`run\`, timeout_s about LIMIT + 60), carry ["device_jobs", ".ci/wheels", "${store%.npz}.json"]:
OUT=\$OUT SKIP_CHECK=1 LIMIT=540 GPU_WORKERS=3 RUNS_FROM=device_jobs/runs.tar.gz \\
  STORE_PLANES="device_jobs/planes:$store" JOBS=device_jobs/paths.txt GPU_JOBS=device_jobs/gpu_paths.txt \\
  PACK_ARGS="--configfile $walks" GPU_PACK_ARGS="--configfile $walks --configfile reproduction/device_cuda.yaml" \\
  bash .ci/gpu_session.sh
== then: CLONE=$CLONE $0 collect <files_at>
EOF
}

collect() {
  clone_dir
  local files=$1
  "$python" reproduction/device_records.py "$files/records.tar.gz" "$CLONE" --dataset "$dataset" || exit 1
  bash .ci/tree_aside.sh back || exit 1
  echo "== export: python -m repset.pipeline.record export $CLONE/results/runs reproduction/reddit_full"
}

main "$@"
exit
