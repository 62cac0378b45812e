# shellcheck shell=bash
# Shared by soak.sh, parallel.sh and killloop.sh: a scratch dir with a busybox bundle and
# a private --root, the runtime under test, and the leak counters.
#
#   SOAK_DIR      scratch dir (default: a new /tmp/ocisbx-soak.XXXXXX, removed at the end)
#   SOAK_BUNDLE   the busybox bundle, made if missing (default: SOAK_DIR/bundle)
#   OCI_RUNTIME   runtime under test (default: $OCISBX_BIN, else the built ./ocisbx)
#
# Every container id starts with $PREFIX; the runtime's commands and the containers'
# processes carry SOAK_TAG=$PREFIX in their environment, so what is left can be found
# without touching anything else on the machine (other suites may run beside us).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNTIME=${OCI_RUNTIME:-${OCISBX_BIN:-$here/../../ocisbx}}
PREFIX=${SOAK_PREFIX:-soak$$}
STEP_TIMEOUT=${STEP_TIMEOUT:-60}
# the containers' cgroups are <hierarchy>/ocisbx/<id> (the default cgroupsPath /ocisbx/<id>)
CGROUP_DEPTH=3

# soak_bad_arg ARG LINES: -h or --help prints the script's head comment (sed's LINES,
# "2,12"); anything else is an error.
soak_bad_arg() {
	case "$1" in
	-h | --help) sed -n "$2p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	esac
	echo "$(basename "$0"): unknown argument $1" >&2
	exit 2
}

# the scratch dir's parts (also for a step run by xargs, which inherits SOAK_DIR)
soak_paths() {
	ROOT="$SOAK_DIR/root"
	BUNDLE=${SOAK_BUNDLE:-$SOAK_DIR/bundle}
}
[ -n "${SOAK_DIR:-}" ] && soak_paths

soak_setup() {
	[ "$(id -u)" = 0 ] || { echo "$(basename "$0"): needs root" >&2; exit 2; }
	command -v "$RUNTIME" >/dev/null || { echo "$(basename "$0"): no runtime at $RUNTIME" >&2; exit 2; }
	RUNTIME=$(command -v "$RUNTIME")
	if [ -z "${SOAK_DIR:-}" ]; then
		SOAK_DIR=$(mktemp -d /tmp/ocisbx-soak.XXXXXX)
		SOAK_OWN_DIR=1
	fi
	mkdir -p "$SOAK_DIR/root"
	soak_paths
	find /tmp /dev/shm -maxdepth 1 2>/dev/null | sort >"$SOAK_DIR/tmp.before"
	[ -d "$BUNDLE/rootfs" ] || "$here/../mkbundle.sh" -r "$RUNTIME" "$BUNDLE" --busybox -- sleep 1000 >/dev/null </dev/null
	# terminal off, the tag in the container's environment
	python3 - "$BUNDLE/config.json" "$PREFIX" <<-'EOF'
		import json, sys
		path, tag = sys.argv[1:]
		c = json.load(open(path))
		c["process"]["terminal"] = False
		c["process"]["env"] = [e for e in c["process"].get("env", []) if not e.startswith("SOAK_TAG=")]
		c["process"]["env"].append("SOAK_TAG=" + tag)
		json.dump(c, open(path, "w"), indent=1)
	EOF
	trap soak_teardown EXIT
	trap 'exit 130' INT TERM
}

# rt ARGS: the runtime on our --root, tagged, bounded by STEP_TIMEOUT.
rt() {
	SOAK_TAG=$PREFIX timeout --foreground -k 5 "$STEP_TIMEOUT" "$RUNTIME" --root "$ROOT" "$@"
}

# ---- the counters: each prints a number (what is there now) ----

# state dirs under our --root (the seccomp cache is not a container)
count_state() { find "$ROOT" -mindepth 1 -maxdepth 1 ! -name seccomp-cache 2>/dev/null | wc -l; }
# cgroup directories named after our containers
count_cgroups() { find /sys/fs/cgroup -maxdepth "$CGROUP_DEPTH" -type d -name "$PREFIX*" 2>/dev/null | wc -l; }
# mounts whose mount point or source lies in our scratch dir or names one of our ids
count_mounts() {
	awk -v d="$SOAK_DIR/" -v p="$PREFIX" 'index($4, d) == 1 || index($5, d) == 1 || index($5, p) {n++} END {print n + 0}' \
		/proc/self/mountinfo
}
# live processes carrying our tag (runtime commands, container inits, exec'd processes)
tagged_pids() {
	local f pid st
	for f in $(grep -lsz "^SOAK_TAG=$PREFIX" /proc/[0-9]*/environ); do
		pid=${f#/proc/}
		pid=${pid%/environ}
		{ [ "$pid" = $$ ] || [ "$pid" = "$BASHPID" ]; } && continue
		read -r st <"/proc/$pid/stat" 2>/dev/null || continue
		st=${st##*) }
		[ "${st:0:1}" = Z ] || echo "$pid"
	done
}
count_procs() { tagged_pids | wc -l; }
# files of the runtime's in /tmp and /dev/shm: new since soak_setup, named after it or
# after our ids; the scratch dirs of the project's scripts and tests (mktemp's
# /tmp/ocisbx-WHAT.XXXXXX, which other runs on the machine may make meanwhile) aside
new_tmp() {
	find /tmp /dev/shm -maxdepth 1 \( -name "ocisbx*" -o -name "$PREFIX*" \) ! -name "ocisbx-*.??????" 2>/dev/null |
		sort | comm -23 - "$SOAK_DIR/tmp.before"
}
count_tmp() { new_tmp | wc -l; }

# wait_no_procs [SECONDS=10]: until no tagged process is left (delete returns before a
# killed process is reaped); prints how many are left.
wait_no_procs() {
	local tries=$((${1:-10} * 10)) n
	while n=$(count_procs) && [ "$n" -gt 0 ] && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "$n"
}

# counters: one line "state S cgroups C mounts M procs P tmp T"; the new files in /tmp and
# /dev/shm are named on stderr (another program on the machine may have made them)
counters() {
	echo "state $(count_state) cgroups $(count_cgroups) mounts $(count_mounts) procs $(wait_no_procs) tmp $(count_tmp)"
	new_tmp | sed 's/^/new file: /' >&2
}

# force_clean: whatever is left of ours, by hand (so one leak does not cascade)
force_clean() {
	local id pid mp cg
	for id in $(ls -A "$ROOT" 2>/dev/null); do
		[ "$id" = seccomp-cache ] && continue
		rt delete --force "$id" >/dev/null 2>&1 || true
	done
	for pid in $(tagged_pids); do kill -9 "$pid" 2>/dev/null || true; done
	for mp in $(awk -v d="$SOAK_DIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r); do
		umount -l "$mp" 2>/dev/null || true
	done
	for cg in $(find /sys/fs/cgroup -maxdepth "$CGROUP_DEPTH" -type d -name "$PREFIX*" 2>/dev/null | sort -r); do
		rmdir "$cg" 2>/dev/null || true
	done
	find "$ROOT" -mindepth 1 -maxdepth 1 ! -name seccomp-cache -exec rm -rf {} + 2>/dev/null || true
}

soak_teardown() {
	force_clean
	[ -n "${SOAK_OWN_DIR:-}" ] && rm -rf --one-file-system "$SOAK_DIR"
	return 0
}

# rss_kib CMD...: runs CMD, prints its peak RSS in KiB on fd 3 (GNU time)
rss_kib() { /usr/bin/time -f %M -o "$SOAK_DIR/rss" "$@" && cat "$SOAK_DIR/rss" >&3; }
