#!/bin/bash
# Run the bats suite (tests/*.bats) against $OCI_RUNTIME (default: $OCISBX_BIN, the built
# ocisbx) and close with one summary line "bats: N passed, N failed, N skipped".
#   tests/run-bats.sh [BATS ARGS...] [FILES...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
files=()
for a in "$@"; do [[ $a == *.bats ]] && files+=("$a"); done
[ ${#files[@]} -eq 0 ] && set -- "$@" "$here"
bats --tap "$@" | tee "$out"
rc=${PIPESTATUS[0]}
passed=$(grep -c '^ok .*' "$out" | tr -d ' ')
skipped=$(grep -c '^ok .* # skip' "$out" | tr -d ' ')
failed=$(grep -c '^not ok ' "$out" | tr -d ' ')
echo "bats: $((passed - skipped)) passed, $failed failed, $skipped skipped"
exit "$rc"
