# shellcheck shell=bash
# Helpers for the engine suites (tests/docker.bats, tests/containerd.bats, tests/cri.bats):
# each file starts its own daemon from Debian's packages with every directory and socket
# under $ENG_DIR (a short dir in /tmp: unix socket paths must fit in 108 bytes), cgroups
# under $ENG_CGPARENT, and $OCI_RUNTIME as the runtime; teardown_file stops the daemon
# and checks that nothing is left: mounts below $ENG_DIR, cgroups below $ENG_CGPARENT,
# processes that name $ENG_DIR (shims), entries in the runtime's state dirs.
# Images come from a busybox rootfs (helpers/common's build_rootfs): no registry.

ENG_TIMEOUT="${ENG_TIMEOUT:-60}"

# eng_requires: the first checks of an engine file's setup_file: the runtime under test
# and the suite's own tools (the engine's are the file's requires_tool lines).
eng_requires() {
	[ -x "$OCI_RUNTIME" ] || {
		echo "OCI_RUNTIME=$OCI_RUNTIME is not an executable" >&2
		return 1
	}
	requires_suite_tools
}

# eng_setup_file PREFIX: $ENG_DIR and $ENG_CGPARENT for this file.
eng_setup_file() {
	ENG_DIR=$(mktemp -d "/tmp/$1.XXXXXX")
	ENG_CGPARENT="/$1-${ENG_DIR##*.}"
	export ENG_DIR ENG_CGPARENT
}

# eng_wait_for SECONDS WHAT CMD...: until CMD succeeds, polled every 0.1 s.
eng_wait_for() {
	local tries=$(($1 * 10)) what=$2
	shift 2
	while [ "$tries" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "timed out waiting for $what" >&2
	return 1
}

# eng_daemon_start LOG CMD...: starts a daemon in the background (its own session, so no
# signal of the test reaches it) and records its pid in $ENG_DIR/daemon.pid.  bats's fd 3
# is closed: bats waits for every holder of it, and the daemon's shims would be ones.
eng_daemon_start() {
	local log=$1
	shift
	setsid "$@" </dev/null >"$log" 2>&1 3>&- &
	echo $! >"$ENG_DIR/daemon.pid"
}

# eng_daemon_running: the daemon was started and not stopped yet.
eng_daemon_running() { [ -e "$ENG_DIR/daemon.pid" ]; }

# eng_daemon_stop [SECONDS=30]: SIGTERM to the daemon and a wait for its end; SIGKILL after.
eng_daemon_stop() {
	local pid
	pid=$(cat "$ENG_DIR/daemon.pid" 2>/dev/null) || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	if ! wait_pid_gone "$pid" "${1:-30}" 2>/dev/null; then
		echo "the daemon (pid $pid) did not stop on SIGTERM" >&2
		kill -KILL "$pid" 2>/dev/null
		return 1
	fi
	rm -f "$ENG_DIR/daemon.pid"
}

# eng_build_image_tar OUT NAME:TAG [mkimage.py OPTION...]: a docker-save archive of the
# suite's busybox rootfs (helpers/common's build_rootfs, built once per suite run).
eng_build_image_tar() {
	local out=$1 tag=$2
	shift 2
	setup_rootfs_cache
	"$PYTHON" "$HELPERS/mkimage.py" --rootfs "$ROOTFS_CACHE" --tag "$tag" "$@" "$out"
}

# eng_mounts: mount points below $ENG_DIR.
eng_mounts() { : "${ENG_DIR:?}"; awk -v d="$ENG_DIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo; }

# eng_cgroups: cgroup dirs below $ENG_CGPARENT (the parent itself left out).
eng_cgroups() {
	: "${ENG_CGPARENT:?}"
	find /sys/fs/cgroup/ -mindepth 2 -maxdepth 6 -type d -path "*$ENG_CGPARENT/*" 2>/dev/null || true
}

# eng_procs: processes (not zombies) whose command line names $ENG_DIR: the daemons
# and their shims.
eng_procs() {
	local pid st
	: "${ENG_DIR:?}"
	for pid in $(pgrep -f -- "$ENG_DIR/" || true); do
		[ "$pid" = $$ ] || [ "$pid" = "$BASHPID" ] && continue
		st=$(cut -d')' -f2 "/proc/$pid/stat" 2>/dev/null) || continue
		[[ "$st" == " Z"* ]] || echo "$pid"
	done
}

# eng_shims: the shims of this file's daemon (containerd-shim-runc-v2 -address $ENG_DIR/...).
eng_shims() {
	local pid
	for pid in $(pgrep -x containerd-shim || true); do
		tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "-address $ENG_DIR/" && echo "$pid"
	done
	return 0
}

# eng_state_entries DIR...: what the runtime still keeps in its state dirs (--root), but
# ocisbx's cache of compiled seccomp filters (seccomp-cache), which outlives containers.
eng_state_entries() {
	local d
	for d in "$@"; do
		[ -d "$d" ] && find "$d" -mindepth 1 -maxdepth 1 ! -name seccomp-cache 2>/dev/null
	done
	return 0
}

# eng_assert_clean STATE_DIR...: nothing of the engine's containers is left (polled for
# a few seconds: shims end asynchronously).
eng_assert_clean() {
	local tries=100 left
	while [ "$tries" -gt 0 ]; do
		left="$(eng_mounts)$(eng_cgroups)$(eng_procs)$(eng_state_entries "$@")"
		[ -z "$left" ] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	left=$(eng_mounts)
	[ -z "$left" ] || echo "mounts left below $ENG_DIR: $left" >&2
	left=$(eng_cgroups)
	[ -z "$left" ] || echo "cgroups left below $ENG_CGPARENT: $left" >&2
	left=$(eng_procs)
	[ -z "$left" ] || { echo "processes left:" >&2; ps -o pid,ppid,stat,args -p "${left//$'\n'/,}" >&2; }
	left=$(eng_state_entries "$@")
	[ -z "$left" ] || echo "runtime state left: $left" >&2
	return 1
}

# eng_teardown_file [STATE_DIR...]: stops the daemon; what a failed test may have left
# is removed: containers in the runtime's state dirs (delete --force), processes that name
# $ENG_DIR (shims), processes in cgroups below $ENG_CGPARENT, mounts below $ENG_DIR
# (lazily, deepest first), the cgroups (deepest first) and $ENG_DIR.
eng_teardown_file() {
	local mp id d pid
	[ -n "${ENG_DIR:-}" ] && [ -d "$ENG_DIR" ] && [ -n "${ENG_CGPARENT:-}" ] || return 0
	eng_daemon_stop 10 || true
	for d in "$@"; do
		for id in $(ls -A "$d" 2>/dev/null); do
			timeout 10 "$OCI_RUNTIME" --root "$d" delete --force "$id" >/dev/null 2>&1 || true
		done
	done
	for pid in $(eng_procs) $(cat $(find /sys/fs/cgroup/ -mindepth 2 -maxdepth 6 -name cgroup.procs \
		-path "*$ENG_CGPARENT/*" 2>/dev/null) /dev/null 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	for mp in $(eng_mounts | sort -r); do umount -l "$mp" 2>/dev/null || true; done
	find /sys/fs/cgroup/ -mindepth 2 -maxdepth 6 -depth -type d -path "*$ENG_CGPARENT*" 2>/dev/null |
		while read -r mp; do
			for _ in 1 2 3 4 5; do rmdir "$mp" 2>/dev/null && break; sleep 0.1; done
		done
	rm -rf --one-file-system "$ENG_DIR" || true
}

# --- containerd -------------------------------------------------------------------

# ctrd_start [CRI_TOML]: containerd with root, state, sockets and the runc v2 shim's
# runtime root under $ENG_DIR/ctrd; the CRI plugin is disabled unless CRI_TOML, its
# [plugins."io.containerd.grpc.v1.cri"] section, is given.  Sets $CTRD_SOCK.
ctrd_start() {
	local d="$ENG_DIR/ctrd" disabled='"io.containerd.grpc.v1.cri", '
	[ -n "${1:-}" ] && disabled=
	mkdir -p "$d"/{root,state,opt}
	CTRD_SOCK="$d/c.sock"
	export CTRD_SOCK
	cat >"$d/config.toml" <<-EOT
		version = 2
		root = "$d/root"
		state = "$d/state"
		disabled_plugins = [${disabled}"io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
		  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
		  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
		[grpc]
		  address = "$CTRD_SOCK"
		[ttrpc]
		  address = "$d/t.sock"
		[debug]
		  address = "$d/d.sock"
		[metrics]
		  address = ""
		[plugins."io.containerd.internal.v1.opt"]
		  path = "$d/opt"
		${1:-}
	EOT
	eng_daemon_start "$d/containerd.log" containerd --config "$d/config.toml" --log-level info
	eng_wait_for 30 "containerd at $CTRD_SOCK" ctr --address "$CTRD_SOCK" version || {
		cat "$d/containerd.log" >&2
		return 1
	}
}

# ctrd_log: containerd's log (for a failing test's output).
ctrd_log() { cat "$ENG_DIR/ctrd/containerd.log"; }

# --- dockerd ----------------------------------------------------------------------

# dockerd_start: dockerd (and the containerd it starts for itself) with data root, exec
# root, socket and pid file under $ENG_DIR/dk, no iptables, no bridge, no IP forwarding,
# $ENG_CGPARENT as cgroup parent, and the configuration users paste
# (contrib/engines/daemon.json: runtime "ocisbx" as the default, cgroupfs, ulimits) with
# $OCI_RUNTIME as that runtime.  Sets $DK_SOCK; `dk` is the matching client.
dockerd_start() {
	local d="$ENG_DIR/dk"
	mkdir -p "$d"/{data,exec,cli}
	"$PYTHON" - "$BATS_TEST_DIRNAME/../contrib/engines/daemon.json" "$OCI_RUNTIME" "$d/daemon.json" <<-'EOF'
		import json, sys
		c = json.load(open(sys.argv[1]))
		c["runtimes"]["ocisbx"]["path"] = sys.argv[2]
		json.dump(c, open(sys.argv[3], "w"))
	EOF
	DK_SOCK="$d/docker.sock"
	export DK_SOCK DOCKER_CONFIG="$d/cli"
	eng_daemon_start "$d/dockerd.log" dockerd --config-file "$d/daemon.json" \
		--data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/docker.pid" \
		--host "unix://$DK_SOCK" --iptables=false --ip6tables=false --ip-forward=false \
		--ip-masq=false --bridge=none --userland-proxy=false \
		--cgroup-parent "$ENG_CGPARENT" --log-level info
	eng_wait_for 60 "dockerd at $DK_SOCK" dk version || {
		cat "$d/dockerd.log" >&2
		return 1
	}
}

# dk ARGS...: Debian's docker client (not another one on PATH) for this file's dockerd.
dk() { timeout -k 5 "$ENG_TIMEOUT" /usr/bin/docker -H "unix://$DK_SOCK" "$@"; }

# dk_log: dockerd's log (for a failing test's output).
dk_log() { cat "$ENG_DIR/dk/dockerd.log"; }
