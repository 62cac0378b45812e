#!/bin/bash
# The parallel run: N containers over P workers; exec into every other one; kill and
# delete them all.
#
#   contrib/soak/parallel.sh [-n CONTAINERS] [-p WORKERS]   (default 20 over 4; long: -n 200 -p 8)
#
# Phases, each with P commands at a time (xargs -P): create + start, exec (half of the
# containers), kill + delete.  The figure is the last line:
#   parallel: 200 containers, 8 workers, 0 failures (create 0 start 0 exec 0 kill 0 delete 0); left: state 0 cgroups 0 mounts 0 procs 0 tmp 0; 41.2 s
# Exit status 1 when anything failed or was left.  OCI_RUNTIME picks the runtime; see
# lib.sh.  Needs root.
set -u
if [ "${1:-}" = --step ]; then
	# one container's step, run by xargs: prints "FAIL STEP ID: message" on failure
	. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
	step=$2 id=$3
	case "$step" in
	up) rt create -b "$BUNDLE" "$id" </dev/null >/dev/null 2>"$SOAK_DIR/$id.err" || { echo "FAIL create $id: $(head -c 200 "$SOAK_DIR/$id.err")"; exit 0; }
		rt start "$id" 2>"$SOAK_DIR/$id.err" || echo "FAIL start $id: $(head -c 200 "$SOAK_DIR/$id.err")" ;;
	exec) out=$(rt exec "$id" echo in-"$id" </dev/null 2>&1)
		[ "$out" = "in-$id" ] || echo "FAIL exec $id: ${out:0:200}" ;;
	down) rt kill "$id" KILL 2>"$SOAK_DIR/$id.err" || echo "FAIL kill $id: $(head -c 200 "$SOAK_DIR/$id.err")"
		rt delete --force "$id" 2>"$SOAK_DIR/$id.err" || echo "FAIL delete $id: $(head -c 200 "$SOAK_DIR/$id.err")" ;;
	esac
	rm -f "$SOAK_DIR/$id.err"
	exit 0
fi
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N=20 P=4
while [ $# -gt 0 ]; do
	case "$1" in
	-n) N=$2; shift 2 ;;
	-p) P=$2; shift 2 ;;
	*) soak_bad_arg "$1" 2,12 ;;
	esac
done
soak_setup
export SOAK_DIR SOAK_BUNDLE=$BUNDLE SOAK_PREFIX=$PREFIX OCI_RUNTIME=$RUNTIME STEP_TIMEOUT
read -r _ s0 _ c0 _ m0 _ p0 _ t0 <<<"$(counters)"
start=$(date +%s%N)
ids() { seq -f "$PREFIX-%g" 1 "$1" "$N"; }
phase() { xargs -P "$P" -n 1 "$0" --step "$1" | tee -a "$SOAK_DIR/fails" >&2; }
: >"$SOAK_DIR/fails"
ids 1 | phase up
ids 2 | phase exec
ids 1 | phase down
secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
read -r _ s1 _ c1 _ m1 _ p1 _ t1 <<<"$(counters)"
left="state $((s1 - s0)) cgroups $((c1 - c0)) mounts $((m1 - m0)) procs $((p1 - p0)) tmp $((t1 - t0))"
f() { grep -c "^FAIL $1 " "$SOAK_DIR/fails"; }
fails=$(wc -l <"$SOAK_DIR/fails")
printf 'parallel: %d containers, %d workers, %d failures (create %d start %d exec %d kill %d delete %d); left: %s; %.1f s\n' \
	"$N" "$P" "$fails" "$(f create)" "$(f start)" "$(f exec)" "$(f kill)" "$(f delete)" "$left" "$secs"
[ "$fails" -eq 0 ] && [ "$left" = "state 0 cgroups 0 mounts 0 procs 0 tmp 0" ]
