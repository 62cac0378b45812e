#!/bin/bash
# Run the bats suite N times under a CPU and I/O load (stress-ng), to catch tests that
# guess timings.  Root, from a built tree (`make check-stress` sets the variables).
#   contrib/stress/check-stress.sh [-n RUNS] [-l LEVEL] [-o DIR] [BATS ARGS...] [FILES...]
#   -n RUNS   how many times the suite runs (default 3)
#   -l LEVEL  load: stress-ng --cpu LEVEL*nproc --io LEVEL --hdd LEVEL (default 1;
#             0: no load, the suite alone)
#   -o DIR    where each run's TAP output goes (run-K.tap; default a new /tmp dir, kept)
# Other arguments go to tests/run-bats.sh (e.g. -f REGEX, or some tests/*.bats).
# Prints every test that failed at least once with its TAP output (the `not ok` line and
# the `#` diagnostics after it), then one line per run:
#   run K: bats: N passed, N failed, N skipped
# Exits 1 when a test failed in any run.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
runs=3 level=1 outdir=
# its own options first; the first other argument starts run-bats.sh's (e.g. -f)
while [ $# -gt 0 ]; do
	case "$1" in
	-n | -l | -o) [ $# -ge 2 ] || { echo "check-stress: $1 needs a value" >&2; exit 2; } ;;&
	-n) runs=$2 ;;
	-l) level=$2 ;;
	-o) outdir=$2 ;;
	-h | --help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) break ;;
	esac
	shift 2
done
[[ $runs =~ ^[1-9][0-9]*$ && $level =~ ^[0-9]+$ ]] || { echo "check-stress: -n wants a count >= 1, -l a level >= 0" >&2; exit 2; }
export OCISBX_BIN="${OCISBX_BIN:-$here/ocisbx}" OCISBX_SRCDIR="${OCISBX_SRCDIR:-$here}"
[ -x "$OCISBX_BIN" ] || { echo "check-stress: $OCISBX_BIN: not built (make)" >&2; exit 1; }
if [ -z "$outdir" ]; then
	outdir=$(mktemp -d /tmp/ocisbx-stress.XXXXXX)
else
	mkdir -p "$outdir" || exit 1
fi

load_pid=
stop_load() {
	[ -n "$load_pid" ] || return 0
	kill -TERM "$load_pid" 2>/dev/null
	wait "$load_pid" 2>/dev/null
	load_pid=
	rm -rf "$outdir/load"
}
trap 'stop_load' EXIT
trap 'exit 130' INT TERM

load="no load"
if [ "$level" -gt 0 ]; then
	command -v stress-ng >/dev/null || { echo "check-stress: stress-ng not found: apt-get install stress-ng (contrib/deps.sh --tests)" >&2; exit 1; }
	mkdir -p "$outdir/load"
	# --hdd writes and reads files in its temp path: the output dir, not the source tree
	load_cmd=(stress-ng --cpu "$((level * $(nproc)))" --io "$level" --hdd "$level" --hdd-bytes 256M
		--temp-path "$outdir/load" --timeout "$((runs * 4))h" --quiet)
	load="${load_cmd[*]}"
	"${load_cmd[@]}" </dev/null >"$outdir/load.log" 2>&1 &
	load_pid=$!
fi
echo "check-stress: $runs run(s) of the bats suite beside: $load; output in $outdir"

summaries=()
for k in $(seq 1 "$runs"); do
	start=$SECONDS
	# live: the failures only (the full TAP is in run-K.tap)
	"$here/tests/run-bats.sh" "$@" >"$outdir/run-$k.tap" 2>&1 < /dev/null &
	bats_pid=$!
	tail -n +1 --pid="$bats_pid" -f "$outdir/run-$k.tap" 2>/dev/null | grep --line-buffered '^not ok ' | sed "s/^/run $k: /"
	wait "$bats_pid"
	line=$(grep '^bats: ' "$outdir/run-$k.tap" | tail -n 1)
	[ -n "$line" ] || line="bats: no summary (run-bats.sh ended early, see $outdir/run-$k.tap)"
	summaries+=("run $k: $line ($((SECONDS - start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg))")
	echo "${summaries[-1]}"
done
stop_load

# Every failed test once, with each failing run's TAP block: the `not ok` line and the
# `#` lines that follow it.
failed=0
awk '
	FNR == 1 { run = FILENAME; sub(/.*run-/, "", run); sub(/\.tap$/, "", run); inblock = 0 }
	/^not ok / {
		name = $0; sub(/^not ok [0-9]+ /, "", name)
		if (!(name in runs)) order[++n] = name
		runs[name] = runs[name] (runs[name] == "" ? "" : ",") run
		text[name] = text[name] "  run " run ": " $0 "\n"
		inblock = 1; next
	}
	inblock && /^#/ { text[name] = text[name] "    " $0 "\n"; next }
	{ inblock = 0 }
	END {
		for (i = 1; i <= n; i++)
			printf "FAILED (runs %s): %s\n%s", runs[order[i]], order[i], text[order[i]]
		if (n) printf "%d test(s) failed at least once\n", n
	}' "$outdir"/run-*.tap
for s in "${summaries[@]}"; do
	echo "$s"
	[[ $s == *" 0 failed,"* ]] || failed=1
done
exit "$failed"
