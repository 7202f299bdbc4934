#!/usr/bin/env bash
# REDDIT-BINARY's full-walk build and protocol, started for one session in one command, on the same VM or a new one:
#
#   reproduction/reddit_full_session.sh            # in the session's first minute
#
# 1. The two pinned worktrees beside the checkout, made where they are missing (a new VM's disk holds neither):
#    BUILD (default ../s2v_reddit) at 11da429 (numba skip-gram engine, dot products overlapped), which builds the store
#    (reddit_full_build.sh), and CLONE (default ../reddit_full) at 179c122, which trains the protocol
#    (reddit_full_protocol.sh). One that exists must be at its commit with no tracked file changed (records are
#    never trained from an uncommitted tree): otherwise it stops.
# 2. Each worktree's own virtualenv (.venv: pip install -c constraints.txt -e '.[all]'), made where it is missing;
#    a failed install removes the half-made one, and one whose python cannot import the package is made again.
# 3. Both commands in the background (setsid, their autogroup lowered by the scripts themselves), appending to
#    BUILD/logs/reddit_full_build.log and CLONE/logs/reddit_full_protocol.log; the protocol's END_AT is this
#    command's time plus SESSION_MINUTES (default 175), so that no run starts that would be cut by the session's end.
#    A command already running holds its lock, and the second copy exits 75 at once: running this again is harmless.
#
# PREPARE_ONLY=1 does 1 and 2 and starts nothing. Progress: grep "skip-gram: chunk" BUILD/logs/embed_REDDIT-BINARY_full.log
set -uo pipefail
main() {
  local checkout build clone build_commit=11da429 clone_commit=179c122 end_at
  checkout=$(cd "$(dirname "$0")/.." && pwd)
  build=$(realpath -m "${BUILD:-$checkout/../s2v_reddit}") clone=$(realpath -m "${CLONE:-$checkout/../reddit_full}")
  worktree "$checkout" "$build" "$build_commit" || exit 1
  worktree "$checkout" "$clone" "$clone_commit" || exit 1
  venv "$build" || exit 1
  venv "$clone" || exit 1
  mkdir -p "$build/logs" "$clone/logs"
  [[ -n ${PREPARE_ONLY:-} ]] && { echo "== $(date -u) prepared $build and $clone"; exit 0; }
  end_at=$(( $(date +%s) + ${SESSION_MINUTES:-175} * 60 ))
  BUILD=$build setsid nohup "$checkout/reproduction/reddit_full_build.sh" >> "$build/logs/reddit_full_build.log" 2>&1 \
    < /dev/null &
  echo "== build: pid $!, log $build/logs/reddit_full_build.log"
  END_AT=$end_at BUILD=$build CLONE=$clone setsid nohup "$checkout/reproduction/reddit_full_protocol.sh" \
    >> "$clone/logs/reddit_full_protocol.log" 2>&1 < /dev/null &
  echo "== protocol: pid $!, log $clone/logs/reddit_full_protocol.log, no run starts that would end after" \
    "$(date -u -d "@$end_at")"
}

# worktree CHECKOUT DIR COMMIT: DIR a worktree of CHECKOUT at COMMIT with no tracked change, made if missing
worktree() {
  local head
  if [[ ! -e $2 ]]; then
    git -C "$1" worktree prune && git -C "$1" worktree add --detach "$2" "$3" || {
      echo "== $(date -u) could not make the worktree $2 at $3"; return 1; }
    return 0
  fi
  head=$(git -C "$2" rev-parse HEAD 2>/dev/null) || { echo "== $2 exists but is no git worktree: move it away"; return 1; }
  if [[ $head != "$(git -C "$1" rev-parse "$3^{commit}")" ]]; then
    echo "== $2 is at ${head:0:7}, not at its pinned $3: move it away, or check out $3 there"; return 1
  fi
  if [[ -n $(git -C "$2" status --porcelain --untracked-files=no) ]]; then
    echo "== $2 has changed tracked files (git -C $2 status): no record is trained from an uncommitted tree"; return 1
  fi
}

# venv DIR: DIR/.venv with DIR's package installed under the constraints, made if missing or unfinished (an install
# cut by a session's end leaves a python that cannot import the package)
venv() {
  [[ -x $1/.venv/bin/python ]] && (cd "$1" && .venv/bin/python -c 'import repset, torch, gensim, snakemake') 2>/dev/null \
    && return 0
  rm -rf "$1/.venv"
  echo "== $(date -u) installing $1/.venv (a few minutes)"
  if ! (cd "$1" && python3 -m venv .venv && .venv/bin/pip install -q -c constraints.txt -e '.[all]'); then
    rm -rf "$1/.venv"; echo "== $(date -u) the install in $1 failed: removed its .venv"; return 1
  fi
}

main "$@"
