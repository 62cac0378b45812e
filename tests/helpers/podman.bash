# shellcheck shell=bash
# Helpers for tests/podman.bats: an isolated podman (its own root, runroot, tmpdir,
# containers.conf, storage.conf, file locks and events) driving $OCI_RUNTIME through
# conmon, with a local busybox image made by `podman import` (no registry, no network).
#
# The machine's own podman storage is never touched: every podman call goes through
# `pm`, which passes --root/--runroot/--tmpdir/--runtime explicitly, and CONTAINERS_CONF /
# CONTAINERS_STORAGE_CONF point at files in $PM_DIR.

PM_IMAGE=localhost/ocit-busybox:latest
PM_TIMEOUT="${PM_TIMEOUT:-30}"

# pm_argv [--tty] ARGS...: prints the `pm ARGS` command line, shell-quoted.  `run` and
# `create` get the suite's --cgroup-parent (conmon goes there too).  --tty: for a
# command line run on a terminal (under script(1)): podman stays in the terminal's
# foreground process group (timeout --foreground, and the line starts with exec), or
# its tcsetattr stops it with SIGTTOU whenever script's $SHELL does not exec the
# last command itself (dash, the /bin/sh used when SHELL is unset).
pm_argv() {
	local tmo=(timeout -k 5 "$PM_TIMEOUT")
	if [ "$1" = --tty ]; then
		tmo=(exec timeout --foreground -k 5 "$PM_TIMEOUT")
		shift
	fi
	case "$1" in
	run | create) set -- "$1" --cgroup-parent "$PM_CGPARENT" "${@:2}" ;;
	esac
	printf '%q ' "${tmo[@]}" podman \
		--root "$PM_DIR/root" --runroot "$PM_DIR/runroot" --tmpdir "$PM_DIR/tmp" \
		--storage-driver vfs --cgroup-manager cgroupfs --events-backend file \
		--runtime "$OCI_RUNTIME" "$@"
}

# pm ARGS...: podman with the suite's isolated configuration, bounded by $PM_TIMEOUT.
# The default network is "none" (containers.conf).  It runs in $PM_DIR: conmon writes
# files such as `oom` into its working directory, which must not be the source tree.
pm() { (cd "$PM_DIR" && eval "$(pm_argv "$@")"); }

# pm_runq ARGS...: `pm run ARGS` with stdin from /dev/null.
pm_runq() { pm run "$@" </dev/null; }

# pm_pty [-s ROWSxCOLS] ARGS...: `pm ARGS` with a pseudo-terminal (script(1)) as its
# controlling terminal, stdin and stdout; the terminal is ROWSxCOLS (default 24x80).
# Prints the terminal's output with CR LF made LF; returns podman's status.
pm_pty() {
	local rows=24 cols=80
	if [ "$1" = -s ]; then
		rows=${2%x*} cols=${2#*x}
		shift 2
	fi
	# script reads its stdin (/dev/null: EOF at once); -e returns the command's status
	timeout -k 5 "$((PM_TIMEOUT + 10))" script -qec "cd $(printf %q "$PM_DIR") && stty rows $rows cols $cols; $(pm_argv --tty "$@")" /dev/null </dev/null |
		tr -d '\r'
	return "${PIPESTATUS[0]}"
}

# pm_state NAME: the container's .State.Status (running, exited, paused, ...).
pm_state() { pm inspect --format '{{.State.Status}}' "$1"; }

# pm_pid NAME: the host pid of the container's init.
pm_pid() { pm inspect --format '{{.State.Pid}}' "$1"; }

# pm_wait_state NAME STATE [SECONDS=10]
pm_wait_state() { wait_for_output "$2" "${3:-10}" "container $1: state" pm_state "$1"; }

# pm_wait_log NAME TEXT [SECONDS=10]: until `podman logs NAME` contains TEXT.
pm_wait_log() {
	local name=$1 text=$2 tries=$((${3:-10} * 10))
	while [ "$tries" -gt 0 ]; do
		pm logs "$name" 2>/dev/null | grep -qF -- "$text" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "container $name: no '$text' in its logs:" >&2
	pm logs "$name" >&2
	return 1
}

# pm_cgroup_dir NAME CONTROLLER: the host path of the container's v1 cgroup for
# CONTROLLER (read from /proc/PID/cgroup of its init).
pm_cgroup_dir() {
	local pid rel
	pid=$(pm_pid "$1") || return 1
	rel=$(awk -F: -v c="$2" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' \
		"/proc/$pid/cgroup") || return 1
	[ -n "$rel" ] || { echo "no $2 cgroup for pid $pid" >&2; return 1; }
	echo "/sys/fs/cgroup/$2$rel"
}

# pm_mounts: mount points below $PM_DIR (there should be none once containers are gone).
pm_mounts() { awk -v d="$PM_DIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo; }

# pm_cgroups ID...: cgroup directories whose name contains one of the container ids.
pm_cgroups() {
	local id
	for id in "$@"; do
		find /sys/fs/cgroup/ -maxdepth 4 -type d -name "*$id*" 2>/dev/null
	done
	return 0
}

# --- suite set-up ---------------------------------------------------------------

# podman_setup_file: the suite's podman home and the busybox image.
podman_setup_file() {
	requires_suite_tools
	requires_tool podman podman
	requires_tool conmon conmon
	# short: conmon's attach socket path must fit in a sockaddr_un
	PM_DIR=$(mktemp -d /tmp/ocipm.XXXXXX)
	PM_CGPARENT="/ocipm-${PM_DIR##*.}"
	export PM_DIR PM_CGPARENT
	mkdir -p "$PM_DIR"/{root,runroot,tmp,net,vol}
	cat >"$PM_DIR/containers.conf" <<-EOF
		[containers]
		default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
		netns = "none"
		log_driver = "k8s-file"

		[engine]
		cgroup_manager = "cgroupfs"
		events_logger = "file"
		events_logfile_path = "$PM_DIR/tmp/events.log"
		lock_type = "file"
		num_locks = 256
		volume_path = "$PM_DIR/vol"
		runtime = "ocit"

		[engine.runtimes]
		ocit = ["$OCI_RUNTIME"]

		[network]
		network_config_dir = "$PM_DIR/net"
	EOF
	cat >"$PM_DIR/storage.conf" <<-EOF
		[storage]
		driver = "vfs"
		runroot = "$PM_DIR/runroot"
		graphroot = "$PM_DIR/root"
	EOF
	export CONTAINERS_CONF="$PM_DIR/containers.conf"
	export CONTAINERS_STORAGE_CONF="$PM_DIR/storage.conf"

	# the image: busybox-static with relative applet links, passwd/group with
	# root, user (1000) and nobody (see build_rootfs in helpers/common)
	build_rootfs "$PM_DIR/rootfs"
	tar -C "$PM_DIR/rootfs" -cf "$PM_DIR/rootfs.tar" .
	rm -rf "$PM_DIR/rootfs"
	pm import --quiet "$PM_DIR/rootfs.tar" "$PM_IMAGE" >/dev/null
}

# podman_teardown_file: every container removed, mounts gone, then the dir.
podman_teardown_file() {
	local mp left
	[ -n "${PM_DIR:-}" ] && [ -d "$PM_DIR" ] || return 0
	# (bats runs this with errexit: nothing here may fail)
	pm rm -af -t 0 >/dev/null 2>&1 || pm rm -af -t 0 >/dev/null 2>&1 || true
	pm rmi -af >/dev/null 2>&1 || true
	# with every container gone nothing may stay mounted below PM_DIR
	left=$(pm_mounts)
	for mp in $(pm_mounts | sort -r); do umount -l "$mp" 2>/dev/null || true; done
	rm -rf --one-file-system "$PM_DIR" || true
	# the suite's cgroup parent (containers' and conmons' cgroups), deepest first
	find /sys/fs/cgroup/ -mindepth 2 -maxdepth 4 -depth -type d -path "*$PM_CGPARENT*" 2>/dev/null |
		while read -r mp; do rmdir "$mp" 2>/dev/null || true; done
	[ -z "$left" ] || { echo "mounts were left below $PM_DIR: $left" >&2; return 1; }
}

# podman_teardown: after each test, the test's containers are removed.
podman_teardown() {
	pm rm -af -t 0 >/dev/null 2>&1 || pm rm -af -t 0 >/dev/null 2>&1 || true
}

# pm_mountpoints: the mount points of this mount namespace, sorted.
pm_mountpoints() { awk '{print $5}' /proc/self/mountinfo | sort; }

# new_mounts BEFORE_FILE: mount points that are not in BEFORE_FILE (a saved
# pm_mountpoints list).
new_mounts() { pm_mountpoints | comm -13 "$1" -; }
