#!/usr/bin/env bash
# One GPU-machine lease, one call: the GPU check of the cuda solver (.ci/gpu_check.sh: tests, solver and
# epoch benchmarks), then a chunk of protocol runs on the machine's CPU cores (python -m repset.pipeline.pack,
# the train rule's library call, one thread per worker) until a deadline; the new records come back as
# $OUT/records.tar.gz (unpack it in the campaign clone's root, then `record export` as usual).
#
#   OUT=/some/dir JOBS=device_jobs/paths.txt LIMIT=560 bash .ci/gpu_session.sh
#
# Before the call, here: put the stores the runs read in data/sets/ and the missing record paths in $JOBS
# (python -m repset.pipeline.pack config.yaml --dataset MUTAG --list > device_jobs/paths.txt, in the clone
# whose results/runs holds the finished records) and the commit in device_jobs/commit; carry both, and .ci/wheels
# (bash .ci/device_wheels.sh: the packages the device lacks). LIMIT: seconds for the whole script (the
# runs stop starting LIMIT - MARGIN seconds in). SKIP_CHECK=1 runs the protocol chunk alone. VERIFY_ARGS:
# `record verify` arguments (--record NAME ...) for records to rerun there, reported at the end of runs.log.
# PACK_ARGS: more arguments for the pack driver (--configfile reproduction/init_small.yaml).
# GPU_JOBS: a second list of record paths, trained at the same time on the GPU by GPU_WORKERS processes (default
# 1; several can share it: REDDIT-BINARY's RepSet kept it busy 0.24-0.48 s per epoch, 2026-11-30) with
# GPU_PACK_ARGS (default: --configfile reproduction/device_cuda.yaml); the CPU pack then has as many workers less.
# RUNS_FROM: a tar.gz of records (results/runs/<dataset>/...) unpacked first, where the runs need a clone's records (the
# chosen runs' grid choices; the store check); its records come back in records.tar.gz too (collect skips them).
# STORE_PLANES="FOLDER:STORE ...": stores carried as byte planes (.ci/store_planes.py), rebuilt first; with
# REDDIT-BINARY's planes the tree passes 64 MiB: bash .ci/tree_aside.sh out before the call, back after it.
# The logs are opened to append (>>): a killed pack's multiprocessing resource tracker outlives it and writes its
# warnings at the offset it shares with the pack, over the "exit code" line otherwise (seen 2026-11-30).
# Every pack is killed 20 s before LIMIT so that the records written so far always come back; before that, a
# pack starts no run that the longest of its kind so far says would not finish (--end), shorter ones instead;
# a kind not finished yet is judged by END_BUDGET's seconds per run (default reproduction/budget/graphs_stores.csv,
# pack --budget), scaled by the finished kinds' measured / budget seconds.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu_session_out}
JOBS=${JOBS:-device_jobs/paths.txt}
LIMIT=${LIMIT:-560}
MARGIN=${MARGIN:-45}
GPU_WORKERS=${GPU_WORKERS:-1}
if [ -n "${GPU_JOBS:-}" ]; then WORKERS=${WORKERS:-$(( $(nproc) - 1 - GPU_WORKERS ))}; else WORKERS=${WORKERS:-$(( $(nproc) - 1 ))}; fi
(( WORKERS >= 1 )) || WORKERS=1
mkdir -p "$OUT"
END_BUDGET=${END_BUDGET:-reproduction/budget/graphs_stores.csv}
BUDGET_ARGS=(); [ -f "$END_BUDGET" ] && BUDGET_ARGS=(--budget "$END_BUDGET")
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
# the copy travels with the session's starting .git: records name the commit written here beforehand
# (git rev-parse HEAD > device_jobs/commit; commit first)
[ -f "$(dirname "$JOBS")/commit" ] && export REPSET_GIT_COMMIT="$(cat "$(dirname "$JOBS")/commit")"
if [ -n "${RUNS_FROM:-}" ]; then tar xzf "$RUNS_FROM" || exit 1; fi
for pair in ${STORE_PLANES:-}; do
  python3 .ci/store_planes.py unpack "${pair%%:*}" "${pair#*:}" || exit 1
done
if [ "${SKIP_CHECK:-0}" = 1 ]; then
  for whl in .ci/wheels/*.whl; do   # the check installs them otherwise
    [ -e "$whl" ] && python3 -m pip install -q --no-deps --no-index "$whl"
  done
fi
if [ "${SKIP_CHECK:-0}" != 1 ]; then
  mkdir -p "$OUT/check"
  OUT="$OUT/check" COMPILE=${COMPILE:-0} BENCH_TIMEOUT=${BENCH_TIMEOUT:-240} bash .ci/gpu_check.sh
fi
# records drawn beforehand (VERIFY_ARGS="--record ... --record ...") rerun here, on the kind they were trained on,
# beside the runs (one thread each; the check's timings are already taken)
if [ -n "${VERIFY_ARGS:-}" ]; then
  python3 -m repset.pipeline.record verify reproduction $VERIFY_ARGS >> "$OUT/verify.log" 2>&1 &
  verify_pid=$!
fi
left=$(( LIMIT - MARGIN - SECONDS ))
hard=$(( LIMIT - 20 - SECONDS ))
end_at=$(( $(date +%s) + hard - 5 ))   # the packs' --end as a clock time: their imports count too
if [ -n "${GPU_JOBS:-}" ]; then
  echo "== $(date -u) GPU runs: $(wc -l < "$GPU_JOBS") listed, $GPU_WORKERS workers, no new run after ${left} s"
  timeout -k 10 "$hard" python3 -m repset.pipeline.pack config.yaml ${GPU_PACK_ARGS:---configfile reproduction/device_cuda.yaml} \
    --paths-from "$GPU_JOBS" --workers "$GPU_WORKERS" --deadline "$left" --end-at "$end_at" "${BUDGET_ARGS[@]}" >> "$OUT/gpu_runs.log" 2>&1 &
  gpu_pid=$!
fi
echo "== $(date -u) protocol runs: $(wc -l < "$JOBS") listed, $WORKERS workers, no new run after ${left} s"
timeout -k 10 "$hard" python3 -m repset.pipeline.pack config.yaml ${PACK_ARGS:-} --paths-from "$JOBS" \
  --workers "$WORKERS" --deadline "$left" --end-at "$end_at" "${BUDGET_ARGS[@]}" >> "$OUT/runs.log" 2>&1
echo "exit code $?" >> "$OUT/runs.log"
tail -n 4 "$OUT/runs.log"
if [ -n "${gpu_pid:-}" ]; then
  wait "$gpu_pid"; echo "exit code $?" >> "$OUT/gpu_runs.log"
  tail -n 4 "$OUT/gpu_runs.log"
fi
if [ -n "${verify_pid:-}" ]; then
  wait "$verify_pid"; echo "verify exit code $?" >> "$OUT/verify.log"
  { echo; echo "== verify"; cat "$OUT/verify.log"; } >> "$OUT/runs.log" && rm "$OUT/verify.log"
  tail -n 6 "$OUT/runs.log"
fi
tar czf "$OUT/records.tar.gz" results/runs 2>/dev/null && echo "records.tar.gz: $(tar tzf "$OUT/records.tar.gz" | grep -c 'json$') records"
