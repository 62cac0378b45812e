#!/bin/bash
# The kill-at-every-point loop: SIGKILL a runtime command after a delay, then `delete
# --force` must leave nothing.
#
#   contrib/soak/killloop.sh [-r REPS] [-d "MS MS ..."] [-o "create start exec delete"]
#
# For each operation, each delay (default 19 of them, 0.5 to 100 ms) and each repetition
# (default 5): the operation runs (create of a new container; start, exec, delete
# --force of a created or running one) and is killed with SIGKILL after the delay
# (`timeout -s KILL`, the command alone: a container that outlives its runtime must
# be found); then `delete --force` of the container, and nothing of it may be left:
# state dir, cgroup dirs, mounts, processes.  Nothing is timed but the kill.  The figure
# is the last line:
#   killloop: 380 kills (4 operations x 19 delays x 5), 212 before the command ended; left: state 0 cgroups 0 mounts 0 procs 0; delete failures 0
# Exit status 1 when anything was left or a delete failed.  OCI_RUNTIME picks the
# runtime; see lib.sh.  Needs root.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REPS=5
DELAYS="0.5 1 1.5 2 3 4 5 6 8 10 12 15 20 25 30 40 50 75 100"
OPS="create start exec delete"
while [ $# -gt 0 ]; do
	case "$1" in
	-r) REPS=$2; shift 2 ;;
	-d) DELAYS=$2; shift 2 ;;
	-o) OPS=$2; shift 2 ;;
	*) soak_bad_arg "$1" 2,16 ;;
	esac
done
soak_setup

# killed_after MS CMD...: CMD (the runtime on our root), SIGKILLed after MS milliseconds;
# true when the kill came first.
killed_after() {
	local ms=$1 rc=0
	shift
	SOAK_TAG=$PREFIX timeout --foreground -s KILL "$(awk -v ms="$ms" 'BEGIN { printf "%.4f", ms / 1000 }')" \
		"$RUNTIME" --root "$ROOT" "$@" </dev/null >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 137 ]
}

kills=0 early=0 delete_failures=0 n=0
declare -A left=([state]=0 [cgroups]=0 [mounts]=0 [procs]=0)
read -r _ s0 _ c0 _ m0 _ p0 _ t0 <<<"$(counters)"
for op in $OPS; do
	for ms in $DELAYS; do
		for _ in $(seq 1 "$REPS"); do
			n=$((n + 1))
			id="$PREFIX-$n"
			# what the operation needs first
			case "$op" in
			start) rt create -b "$BUNDLE" "$id" </dev/null >/dev/null 2>&1 ;;
			exec | delete) rt create -b "$BUNDLE" "$id" </dev/null >/dev/null 2>&1 && rt start "$id" ;;
			esac
			case "$op" in
			create) killed_after "$ms" create -b "$BUNDLE" "$id" && early=$((early + 1)) ;;
			start) killed_after "$ms" start "$id" && early=$((early + 1)) ;;
			exec) killed_after "$ms" exec "$id" sleep 1000 && early=$((early + 1)) ;;
			delete) killed_after "$ms" delete --force "$id" && early=$((early + 1)) ;;
			esac
			kills=$((kills + 1))
			if ! rt delete --force "$id" >/dev/null 2>"$SOAK_DIR/err"; then
				delete_failures=$((delete_failures + 1))
				echo "killloop: $op after $ms ms: delete --force: $(head -c 300 "$SOAK_DIR/err")" >&2
			fi
			read -r _ s _ c _ m _ p _ t <<<"$(counters)"
			if [ "$s" != "$s0" ] || [ "$c" != "$c0" ] || [ "$m" != "$m0" ] || [ "$p" != "$p0" ]; then
				echo "killloop: $op killed after $ms ms left: state $((s - s0)) cgroups $((c - c0)) mounts $((m - m0)) procs $((p - p0))" >&2
				left[state]=$((left[state] + s - s0)) left[cgroups]=$((left[cgroups] + c - c0))
				left[mounts]=$((left[mounts] + m - m0)) left[procs]=$((left[procs] + p - p0))
				force_clean
			fi
		done
	done
done
nops=$(wc -w <<<"$OPS") ndelays=$(wc -w <<<"$DELAYS")
total="state ${left[state]} cgroups ${left[cgroups]} mounts ${left[mounts]} procs ${left[procs]}"
echo "killloop: $kills kills ($nops operations x $ndelays delays x $REPS), $early before the command ended; left: $total; delete failures $delete_failures"
[ "$delete_failures" -eq 0 ] && [ "$total" = "state 0 cgroups 0 mounts 0 procs 0" ]
