#!/bin/bash
# The soak: N cycles of create, start, exec, kill, delete, and what they leave behind.
#
#   contrib/soak/soak.sh [-n CYCLES]        (default 100; the long run: -n 1000)
#
# Beside the cycles one long-lived container takes an exec per cycle (an agent sandbox's
# pattern).  Counted before and after: state dirs, cgroup dirs, mounts, tagged processes,
# the runtime's files in /tmp and /dev/shm, the long-lived container's open fds; and the
# peak RSS of every `create` (first, last, largest).  The figure is the last line:
#   soak: 1000 cycles, 0 failures; left: state 0 cgroups 0 mounts 0 procs 0 tmp 0 fds 0; create RSS KiB first 1240 last 1236 max 1408
# Exit status 1 when a cycle failed or anything was left.  OCI_RUNTIME picks the runtime;
# see lib.sh.  Needs root.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N=100
while [ $# -gt 0 ]; do
	case "$1" in
	-n) N=$2; shift 2 ;;
	*) soak_bad_arg "$1" 2,12 ;;
	esac
done
soak_setup

read -r _ s0 _ c0 _ m0 _ p0 _ t0 <<<"$(counters)"
keeper="$PREFIX-keeper"
rt create -b "$BUNDLE" "$keeper" </dev/null >/dev/null 2>&1 && rt start "$keeper" ||
	{ echo "soak: cannot start the long-lived container" >&2; exit 1; }
keeper_pid=$(rt state "$keeper" | python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])')
fds() { ls "/proc/$keeper_pid/fd" 2>/dev/null | wc -l; }
# a first exec, so that whatever an exec leaves once is in the baseline
rt exec "$keeper" true </dev/null >/dev/null 2>&1
f0=$(fds)

failures=0 rss_first="" rss_last="" rss_max=0
for i in $(seq 1 "$N"); do
	id="$PREFIX-$i"
	ok=1
	/usr/bin/time -f %M -o "$SOAK_DIR/rss" \
		env SOAK_TAG="$PREFIX" timeout --foreground -k 5 "$STEP_TIMEOUT" "$RUNTIME" --root "$ROOT" \
		create -b "$BUNDLE" "$id" </dev/null >/dev/null 2>"$SOAK_DIR/err" || ok=0
	rss=$(tail -n 1 "$SOAK_DIR/rss")
	[ -z "$rss_first" ] && rss_first=$rss
	rss_last=$rss
	[ "$rss" -gt "$rss_max" ] && rss_max=$rss
	[ $ok = 1 ] && { rt start "$id" 2>>"$SOAK_DIR/err" || ok=0; }
	[ $ok = 1 ] && { rt exec "$id" true </dev/null >/dev/null 2>>"$SOAK_DIR/err" || ok=0; }
	rt exec "$keeper" true </dev/null >/dev/null 2>>"$SOAK_DIR/err" || ok=0
	[ $ok = 1 ] && { rt kill "$id" KILL 2>>"$SOAK_DIR/err" || ok=0; }
	# delete waits for the init; a --force after a failure
	rt delete --force "$id" 2>>"$SOAK_DIR/err" || ok=0
	if [ $ok = 0 ]; then
		failures=$((failures + 1))
		echo "soak: cycle $i failed: $(head -c 300 "$SOAK_DIR/err")" >&2
	fi
	: >"$SOAK_DIR/err"
done

# the long-lived container's fds while it still runs, then everything else
f1=$(fds)
rt delete --force "$keeper" >/dev/null 2>&1
read -r _ s1 _ c1 _ m1 _ p1 _ t1 <<<"$(counters)"
left="state $((s1 - s0)) cgroups $((c1 - c0)) mounts $((m1 - m0)) procs $((p1 - p0)) tmp $((t1 - t0)) fds $((f1 - f0))"
echo "soak: $N cycles, $failures failures; left: $left; create RSS KiB first $rss_first last $rss_last max $rss_max"
[ "$failures" -eq 0 ] && [ "$left" = "state 0 cgroups 0 mounts 0 procs 0 tmp 0 fds 0" ]
