#!/usr/bin/env bash
# Room in the working tree for a GPU call near its 64 MiB (tree and carry together): REDDIT-BINARY's store
# travels as 55.7 MB of planes, the tracked tree is over 20 MB, most of it record tables and archives that a
# call does not read.
#
#   bash .ci/tree_aside.sh out    # delete the tracked *.csv, *.tar.gz and SHA256SUMS under reproduction/
#                                 # (budget/ kept: the packs read it), print the tracked bytes left
#   bash .ci/tree_aside.sh back   # restore them from HEAD; run it right after the call
#
# They are committed, so `back` (git checkout) restores them even where this shell is gone; `out` refuses when
# any of them has uncommitted changes, which a restore from HEAD would lose.
set -euo pipefail
cd "$(dirname "$0")/.."
aside() { git ls-files -- 'reproduction/**.csv' 'reproduction/**.tar.gz' 'reproduction/**SHA256SUMS' | grep -v '^reproduction/budget/'; }
case "${1:-}" in
  out)
    changed=$(git status --porcelain -- $(aside) | head -5)
    if [[ -n "$changed" ]]; then echo "tree_aside.sh: uncommitted changes in files it would remove:"; echo "$changed"; exit 1; fi
    aside | xargs rm -f
    echo "$(aside | wc -l) files set aside; tracked bytes left: $(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)"
    ;;
  back)
    git checkout HEAD -- $(aside)
    git status --short -- reproduction
    ;;
  *) echo "usage: bash .ci/tree_aside.sh out|back"; exit 2 ;;
esac
