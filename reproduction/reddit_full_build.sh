#!/usr/bin/env bash
# REDDIT-BINARY's full-walk store (reproduction/reddit_full_walks.yaml), resumed where it last stopped, in the worktree
# that builds it: pinned at the commit that added the overlay (a0b25d5), with a virtualenv of its own:
#
#   git worktree add --detach ../s2v_reddit a0b25d5
#   (cd ../s2v_reddit && python3 -m venv .venv && . .venv/bin/activate && pip install -c constraints.txt -e '.[all]')
#   BUILD=../s2v_reddit setsid nohup reproduction/reddit_full_build.sh > ../s2v_reddit/logs/reddit_full_build.log 2>&1 < /dev/null &
#
# Run it again in every session until a run ends with "exit 0" (a run the session's end kills prints no exit line):
# the build continues from $BUILD/data/embed/REDDIT-BINARY.struc2vec.npy.ckpt/ (walk rounds, then 50 skip-gram
# chunks of 40-60 min of one thread each) and writes the embedding and the store into $BUILD/data/. Its stages are
# logged to $BUILD/logs/embed_REDDIT-BINARY_full.log (and its peak memory, by GNU time, when it ends on its own).
# A run that finds the embedding and the store in $BUILD/data exits 0 at once (reddit_full_protocol.sh, started beside
# it, then moves on to the protocol), and one that finds the embedding alone stops rather than start over.
# One run at a time: the pinned code predates the checkpoint folder's own lock, so this script holds
# $BUILD/logs/reddit_full_build.lock (flock: dropped when the run dies) and a second run exits with 75.
set -uo pipefail
# the body is one function, read whole before it runs: a later edit of this file cannot derail a running build
main() {
  . "$(dirname "$0")/lower_autogroup.sh"   # the group of a setsid job, never the caller's terminal
  cd "${BUILD:?BUILD: the worktree that builds the store}" || exit 1
  mkdir -p logs
  exec 9>>logs/reddit_full_build.lock
  flock -n 9 || { echo "== $(date -u) another run holds $(pwd)/logs/reddit_full_build.lock"; exit 75; }
  # built: a finished build removes its checkpoint folder, so running it again would start the 35 hours over
  if [[ -f data/embed/REDDIT-BINARY.struc2vec.npy ]]; then
    if [[ -f data/sets/REDDIT-BINARY.struc2vec.npz ]]; then
      echo "== $(date -u) the store is built in $(pwd)/data: nothing to do"; echo "== $(date -u) exit 0"; exit 0
    fi
    echo "== $(date -u) $(pwd)/data/embed/REDDIT-BINARY.struc2vec.npy is built but its store is not (stopped between"
    echo "   the two): make the store from it with graph_store as embed_seed.py does, not by running the build again"
    echo "== $(date -u) exit 1"; exit 1
  fi
  . .venv/bin/activate || exit 1
  # the numba skip-gram engine where the worktree has it (its floats are gensim's: the same store, faster)
  engine=(); [[ -f reproduction/skipgram_numba.yaml ]] && engine=(--configfile reproduction/skipgram_numba.yaml)
  echo "== $(date -u) start in $(pwd) at $(git rev-parse --short HEAD) ${engine[*]}"
  /usr/bin/time -v python -c "
import logging, runpy, sys
logging.basicConfig(level=logging.INFO, format='%(asctime)s %(name)s %(message)s')
sys.argv = ['reproduction/embed_seed.py', '0', '--dataset', 'REDDIT-BINARY',
            '--configfile', 'reproduction/reddit_full_walks.yaml', '--openblas=Haswell'] + sys.argv[1:]
runpy.run_path('reproduction/embed_seed.py', run_name='__main__')
" "${engine[@]}" >> logs/embed_REDDIT-BINARY_full.log 2>&1
  status=$?
  echo "== $(date -u) exit $status"
  exit $status
}
main "$@"
exit
