#!/usr/bin/env bash
# More draws of the reference struc2vec input (struc2vec seeds 1 and 2; seed 0 is reproduction/struc2vec_reference/),
# the five baselines on folds 0-29, so that the reference input and the paper's wording are compared draw against
# draw (reproduction/struc2vec_reference.py; the rule in reproduction/LOG.md). One worktree per seed, pinned at the
# seed-0 measurement's commit (397973b) with a virtualenv of its own, beside the seed-0 worktree whose stores fix the
# folds:
#
#   for s in 1 2; do git worktree add --detach ../s2v_refdraw$s 397973b
#     (cd ../s2v_refdraw$s && python3 -m venv .venv && . .venv/bin/activate && pip install -c constraints.txt -e '.[all]'); done
#   REF=../s2v_ref DRAWS=../s2v_refdraw setsid nohup reproduction/reference_draws.sh MUTAG IMDB-BINARY IMDB-MULTI PROTEINS \
#       > ../s2v_refdraw1/logs/reference_draws.log 2>&1 < /dev/null &
#
# Per dataset and seed: the store (data/sets/<D>.struc2vec.npz of worktree $DRAWS<seed>, built once by
# embed_seed.py, which checks its folds against $REF's), then the missing baseline runs of folds 0-29, fold by fold
# (one thread). A rerun continues: a built store is kept and a finished record is not retrained. Commit what finished:
#   python -m repset.pipeline.record export ../s2v_refdraw<seed>/results/runs reproduction/struc2vec_reference/seed<seed>
set -uo pipefail
# the body is one function, read whole before it runs: a later edit of this file cannot derail a running job
main() {
  . "$(dirname "$0")/lower_autogroup.sh"   # the group of a setsid job, never the caller's terminal
  local ref tree dataset seed overlay=reproduction/struc2vec_reference.yaml
  ref=$(cd "${REF:?REF: the worktree of the seed-0 reference stores}" && pwd) || exit 1
  for dataset in "$@"; do
    for seed in ${SEEDS:-1 2}; do
      tree=$(cd "${DRAWS:?DRAWS: the seeds worktrees prefix, e.g. ../s2v_refdraw}$seed" && pwd) || exit 1
      (
        cd "$tree" && . .venv/bin/activate || exit 1
        mkdir -p logs
        exec 9>>logs/reference_draws.lock
        flock -n 9 || { echo "== $(date -u) another run holds $tree/logs/reference_draws.lock"; exit 75; }
        echo "== $(date -u) $dataset seed $seed in $tree at $(git rev-parse --short HEAD)"
        if [[ ! -f data/sets/$dataset.struc2vec.npz ]]; then
          /usr/bin/time -f "== store: %e s wall, %U s user, %M KB peak" python reproduction/embed_seed.py "$seed" \
            "$ref/data/sets/$dataset.struc2vec.npz" --dataset "$dataset" --configfile "$overlay" || exit 1
        fi
        python -m repset.pipeline.pack config.yaml --configfile "$overlay" --dataset "$dataset" --splits 0-29 --by-split \
          --model deepsets --model nn_mean --model nn_max --model nn_attention --model set_transformer \
          --workers 1 --threads 1
      ) || { echo "== $(date -u) $dataset seed $seed: exit $?"; exit 1; }
    done
  done
  echo "== $(date -u) exit 0"
}
main "$@"
exit
