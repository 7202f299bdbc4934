#!/usr/bin/env bash
# Exact RepSet on the GPU: one call on a GPU machine runs the GPU-only tests and the device
# benchmark (python -m repset.bench.gpu) and writes everything under $OUT.
#
#   OUT=/some/dir bash .ci/gpu_check.sh        # from anywhere; default OUT: ./gpu_check_out
#
# Needs PyTorch with CUDA; numpy; pytest and scipy for the tests (the benchmark runs without them);
# Numba for the CPU-solver rows (skipped, with the reason, without it). About 6-8 minutes on one H100,
# every step time-boxed. The device has no internet: for the torch-linear-assignment peer, put its wheel
# in .ci/wheels/ beforehand (pip download --no-deps torch-linear-assignment -d .ci/wheels; do not
# commit it): it is installed with --no-deps here, else its rows say "skipped: ... not installed".
# Files: environment.txt, tests.txt, solver_seconds.csv, epoch_seconds.csv, environment.json, bench.txt,
# compiled/solver_seconds.csv and compiled.txt (the solver with torch.compile), each with its exit code.
# Smoke test without a GPU: DEVICE=cpu BENCH_ARGS="--batch-sets 2 --max-sets 8 --repeats 1" bash .ci/gpu_check.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu_check_out}
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
PY=${PYTHON:-python3}
DEVICE=${DEVICE:-cuda}
BENCH_ARGS=${BENCH_ARGS:-}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-330}   # seconds for step 2
COMPILE=${COMPILE:-1}                 # 0: skip step 3
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  nproc
  $PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.is_available())"
  $PY -m pip list 2>/dev/null | grep -iE "^(torch|numba|scipy|triton|pytest|numpy|pandas)[ -]|linear"
  for whl in .ci/wheels/*.whl; do
    [ -e "$whl" ] && $PY -m pip install --no-deps --no-index "$whl"
  done
} > "$OUT/environment.txt" 2>&1

# 1. the GPU-only tests (with the CPU ones of the same files: equality with scipy)
timeout 150 $PY -m pytest -q -p no:cacheprovider -rs tests/solvers/test_cuda.py tests/solvers/test_tla.py \
  "tests/layers/test_repset.py::test_cuda_solver_gives_scipys_values_and_gradients" > "$OUT/tests.txt" 2>&1
echo "exit code $?" >> "$OUT/tests.txt"

# 2. solver seconds per batch (cuda, numba, numba+transfer, torch-linear-assignment) and training epochs
#    (cuda vs numba solver, same device) on REDDIT-, BBCSPORT- and TWITTER-shaped data
timeout "$BENCH_TIMEOUT" $PY -m repset.bench.gpu --device "$DEVICE" --epoch-repeats 2 --out "$OUT" $BENCH_ARGS > "$OUT/bench.txt" 2>&1
echo "exit code $?" >> "$OUT/bench.txt"

# 3. the solver with its Dijkstra step through torch.compile (compilation excluded from the timings)
if [ "$COMPILE" != 0 ]; then
  timeout 150 $PY -m repset.bench.gpu --device "$DEVICE" --no-epochs --compile --solvers cuda --repeats 3 \
    --out "$OUT/compiled" $BENCH_ARGS > "$OUT/compiled.txt" 2>&1
  echo "exit code $?" >> "$OUT/compiled.txt"
fi
tail -n 3 "$OUT"/*.txt
