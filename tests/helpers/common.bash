# shellcheck shell=bash
# Shared set-up for the runtime conformance suite: `load helpers/common` in every .bats.
#
# Environment:
#   OCI_RUNTIME     runtime binary under test (default: $OCISBX_BIN, else ../ocisbx)
#   OCI_SCHEMA_DIR  a runtime-spec checkout's schema/ (newer schemas, features-schema.json;
#                   default: ../../shared/oci-schema from tests/ when it exists); the
#                   config and state schemas also come from Debian (see schema_file)
#   OCISBX_TESTS_ALL_DEPS=1  every tool a test requires must be there (requires_tool
#                   fails instead of skipping): set by `contrib/quickstart.sh check`,
#                   after contrib/deps.sh --tests installed them all
#   BUSYBOX         static busybox for the test rootfs (default: /bin/busybox)
#   PYTHON          python3 with jsonschema (default: /usr/bin/python3, else python3)
#   RUNTIME_TIMEOUT seconds one runtime command may take (default: 30)
#
# Per test (common_setup): $TESTDIR (scratch), $ROOT (the runtime's --root),
# $BUNDLE (config.json + a private copy of the busybox rootfs), $CID (a container
# id unique to this test; use "$CID-x" for more), $SHARED (a host dir for bind
# mounts), $IO (containers' stdio files, see create_container).
# `runtime ARGS` runs the runtime with --root "$ROOT".  Teardown removes it all.

HELPERS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OCI_RUNTIME="${OCI_RUNTIME:-${OCISBX_BIN:-$BATS_TEST_DIRNAME/../ocisbx}}"
OCI_SCHEMA_DIR="${OCI_SCHEMA_DIR:-$BATS_TEST_DIRNAME/../../shared/oci-schema}"
# the runtime-spec schemas (config, state; 1.0.2+) of golang-github-opencontainers-specs-dev
DEBIAN_SCHEMA_DIR=/usr/share/gocode/src/github.com/opencontainers/runtime-spec/schema
BUSYBOX="${BUSYBOX:-/bin/busybox}"
# Debian's python3 (with python3-jsonschema) starts faster than a pyenv shim
if [ -z "${PYTHON:-}" ]; then
	PYTHON=python3
	[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
fi
ROOTFS_CACHE="${BATS_SUITE_TMPDIR:-${BATS_FILE_TMPDIR:-/tmp}}/rootfs"

# Runs the runtime under test, bounded by RUNTIME_TIMEOUT seconds (a hang fails
# the test instead of the suite).  OCIT_TAG marks every process it starts (they
# inherit it) so leftovers can be found: see tagged_pids.
runtime() {
	OCIT_TAG="$CID" timeout --foreground -k 5 "${RUNTIME_TIMEOUT:-30}" \
		"$OCI_RUNTIME" --root "$ROOT" "$@"
}

# create_container ID [OPTION...]: `runtime create -b $BUNDLE` with stdio on files.
# With terminal:false the container inherits the runtime's stdio, so a pipe (as in
# bats' `run`) would stay open as long as the container lives.  The container's
# output goes to $IO/ID.out and $IO/ID.err; on failure .err is copied to stderr.
create_container() {
	local id=$1 rc=0 f
	shift
	f="$IO/${id//\//_}"
	runtime create -b "$BUNDLE" "$@" "$id" </dev/null >"$f.out" 2>"$f.err" || rc=$?
	[ "$rc" -eq 0 ] || cat "$f.err" >&2
	return "$rc"
}

# run_container ID [OPTION...]: `runtime run -b $BUNDLE` in the foreground.
run_container() {
	local id=$1
	shift
	runtime run -b "$BUNDLE" "$@" "$id"
}

is_ocisbx() {
	case "$(basename "$OCI_RUNTIME")" in
	runc | crun) return 1 ;;
	esac
	return 0
}

requires_ocisbx() {
	is_ocisbx || skip "ocisbx-only: $*"
}

# missing_dep WHAT PACKAGE: a test's dependency is not there: a skip naming the Debian
# package, or (OCISBX_TESTS_ALL_DEPS=1) a failure.  tests/packaging.bats checks that
# contrib/deps.sh --tests installs every PACKAGE named in a requires_* call.
missing_dep() {
	if [ "${OCISBX_TESTS_ALL_DEPS:-}" = 1 ]; then
		echo "$1 is missing although contrib/deps.sh --tests ran: does Debian's $2 provide it?" >&2
		return 1
	fi
	skip "$1 is not installed (Debian package $2; contrib/deps.sh --tests installs it)"
}

# requires_tool COMMAND PACKAGE: COMMAND (a name in PATH or an absolute path) is there.
requires_tool() {
	command -v "$1" >/dev/null || missing_dep "$1" "$2"
}

# requires_python_module MODULE PACKAGE: $PYTHON can import MODULE.
requires_python_module() {
	"$PYTHON" -c "import $1" 2>/dev/null || missing_dep "python3 module $1" "$2"
}

# requires_suite_tools: what the helpers themselves run (configs, rootfs, leftovers).
requires_suite_tools() {
	requires_tool "$PYTHON" python3
	requires_tool "$BUSYBOX" busybox-static
	requires_tool pgrep procps
	requires_tool ps procps
}

# --- rootfs ---------------------------------------------------------------------

# Builds a busybox rootfs at $1 (applet links are relative, so they resolve inside).
build_rootfs() {
	local dir=$1 applet up
	mkdir -p "$dir"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,mnt,root,home/user}
	cp "$BUSYBOX" "$dir/bin/busybox"
	while read -r applet; do
		[ "$applet" = bin/busybox ] && continue
		case "$applet" in
		bin/*) ln -sf busybox "$dir/$applet" ;;
		*)	# sbin/x -> ../bin/busybox, usr/bin/x -> ../../bin/busybox
			up=$(dirname "$applet" | sed -e 's|[^/]*|..|g')
			mkdir -p "$dir/$(dirname "$applet")"
			ln -sf "$up/bin/busybox" "$dir/$applet" ;;
		esac
	done < <("$BUSYBOX" --list-full)
	chmod 1777 "$dir/tmp"
	cat >"$dir/etc/passwd" <<-EOF
		root:x:0:0:root:/root:/bin/sh
		user:x:1000:1000:user:/home/user:/bin/sh
		nobody:x:65534:65534:nobody:/nonexistent:/bin/false
	EOF
	cat >"$dir/etc/group" <<-EOF
		root:x:0:
		user:x:1000:
		nogroup:x:65534:
	EOF
}

# Builds the shared rootfs once per suite (atomically, so parallel files are fine).
setup_rootfs_cache() {
	[ -x "$ROOTFS_CACHE/bin/busybox" ] && return 0
	local tmp
	tmp=$(mktemp -d "$ROOTFS_CACHE.XXXXXX")
	chmod 755 "$tmp" # mktemp made it 0700: other users could not reach /bin
	build_rootfs "$tmp"
	mv -T "$tmp" "$ROOTFS_CACHE" 2>/dev/null || rm -rf "$tmp"
}

# --- config ---------------------------------------------------------------------

# make_config [ARG...]: fresh $BUNDLE/config.json as `runc spec` writes it, but
# terminal:false and process.args = ARGs (default: sh).
make_config() {
	"$PYTHON" "$HELPERS/mkconfig.py" new "$BUNDLE/config.json" "$@"
}

# config_set PATH JSON / config_add PATH JSON (append) / config_del PATH.
# PATH: process.args, linux.namespaces[0], mounts[destination=/proc].options, ...
config_set() { "$PYTHON" "$HELPERS/mkconfig.py" edit "$BUNDLE/config.json" --set "$1=$2"; }
config_add() { "$PYTHON" "$HELPERS/mkconfig.py" edit "$BUNDLE/config.json" --add "$1=$2"; }
config_del() { "$PYTHON" "$HELPERS/mkconfig.py" edit "$BUNDLE/config.json" --del "$1"; }

# set_args ARG...: process.args = ARGs.
set_args() { config_set process.args "$(json_array "$@")"; }

# json_array ARG...: prints the ARGs as a JSON array of strings.
json_array() { "$PYTHON" -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "$@"; }

# tmpfs_at DEST: mounts a fresh tmpfs at DEST (the default rootfs is read-only).
tmpfs_at() {
	config_add mounts "{\"destination\":\"$1\",\"type\":\"tmpfs\",\"source\":\"tmpfs\",\"options\":[\"nosuid\",\"nodev\",\"mode=1777\"]}"
}

# is_v2: the host's /sys/fs/cgroup is a cgroup2 (unified) mount.
is_v2() { [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; }

# bind_shared [DEST] [ro]: bind-mounts the host dir $SHARED at DEST (default /mnt).
bind_shared() {
	local opts='["rbind","rw"]'
	[ "${2:-}" = ro ] && opts='["rbind","ro"]'
	config_add mounts "{\"destination\":\"${1:-/mnt}\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":$opts}"
}

# use_userns: a new user namespace mapping ids 0-65535 to the host's 100000-165535,
# and the rootfs moved where those ids can reach it and owned by them (bats' temp dir
# is root's alone): $USERNS_DIR/rootfs.  The teardown removes $USERNS_DIR.
use_userns() {
	USERNS_DIR=$(mktemp -d /tmp/ocit-userns.XXXXXX)
	chmod 755 "$USERNS_DIR"
	mv "$BUNDLE/rootfs" "$USERNS_DIR/rootfs"
	chown -R -h 100000:100000 "$USERNS_DIR/rootfs"
	config_set root.path "\"$USERNS_DIR/rootfs\""
	config_add linux.namespaces '{"type":"user"}'
	config_set linux.uidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	config_set linux.gidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
}

# btrfs_rootfs: the rootfs moved into a subvolume of a btrfs on a loop file
# ($BTRFS_MNT/rootfs-sv), root.path set to it; $RFS is its path.  Skips where the
# kernel, the tools or loop devices are missing.
btrfs_rootfs() {
	requires_tool mkfs.btrfs btrfs-progs
	requires_tool btrfs btrfs-progs
	grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null || skip "the kernel has no btrfs"
	[ -e /dev/loop-control ] || skip "no loop devices (/dev/loop-control)"
	losetup -f >/dev/null 2>&1 || skip "no free loop device"
	truncate -s 200M "$TESTDIR/btrfs.img"
	mkfs.btrfs -q "$TESTDIR/btrfs.img" >/dev/null
	BTRFS_MNT="$TESTDIR/btrfs"
	mkdir -p "$BTRFS_MNT"
	mount -o loop "$TESTDIR/btrfs.img" "$BTRFS_MNT" || skip "cannot loop-mount a btrfs image here"
	btrfs -q subvolume create "$BTRFS_MNT/rootfs-sv" >/dev/null
	cp -a "$BUNDLE/rootfs/." "$BTRFS_MNT/rootfs-sv/"
	rm -rf "$BUNDLE/rootfs"
	RFS="$BTRFS_MNT/rootfs-sv"
	config_set root.path "\"$RFS\""
}

# unmount_btrfs_loop: a btrfs test's loop mount at $BTRFS_MNT, and what is below it, for
# real (common_teardown would only detach it lazily); nothing when unset.
unmount_btrfs_loop() {
	local mp
	[ -n "${BTRFS_MNT:-}" ] || return 0
	for mp in $(awk -v d="$BTRFS_MNT" '$5 == d || index($5, d "/") == 1 {print $5}' /proc/self/mountinfo | sort -r); do
		umount "$mp" 2>/dev/null || umount -l "$mp"
	done
}

# --- state ----------------------------------------------------------------------

# json_field KEY [FILE]: prints KEY of a JSON object (stdin by default).
json_field() {
	"$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[2]) if len(sys.argv) > 2 else sys.stdin)
v = d[sys.argv[1]]
print(v if isinstance(v, str) else json.dumps(v))' "$@"
}

container_status() { runtime state "$1" | json_field status; }
container_pid() { runtime state "$1" | json_field pid; }
# ctr_pid_count: how many processes `runtime ps` lists for $CID.
ctr_pid_count() { runtime ps --format json "$CID" | tr -d '[]' | tr , '\n' | grep -c .; }

# wait_for_output WANT SECONDS WHAT CMD...: until CMD prints WANT, polled every 0.1 s;
# after SECONDS says "WHAT 'LAST', wanted 'WANT'" on stderr and fails.
wait_for_output() {
	local want=$1 tries=$(($2 * 10)) what=$3 got=
	shift 3
	while [ "$tries" -gt 0 ]; do
		got=$("$@" 2>/dev/null) || got=
		[ "$got" = "$want" ] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "$what '$got', wanted '$want'" >&2
	return 1
}

# wait_until SECONDS CMD...: until CMD succeeds, polled every 0.1 s, for at most SECONDS
# of wall-clock time (however long each CMD takes); then says what it waited for on
# stderr and fails.  The way to wait for a condition (a state, a file, a pid, a line in
# a log): never a fixed sleep that guesses how long something takes on a loaded machine.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "timed out waiting for: $*" >&2
			return 1
		fi
		sleep 0.1
	done
}

# wait_for_status ID STATUS [TIMEOUT_SECONDS=5]
wait_for_status() { wait_for_output "$2" "${3:-5}" "container $1: status" container_status "$1"; }

# ctr_sh SCRIPT: runs `sh -c SCRIPT` in a container from $BUNDLE; sets $status/$output.
# (Not "ctr": that is containerd's client, which the engine tests call.)
ctr_sh() {
	set_args sh -c "$1"
	run runtime run -b "$BUNDLE" "$CID" </dev/null
}

# start_ctr [ARG...]: create + start $CID running ARGs (default: sleep 1000), wait for
# "running"; INIT_PID is its init's host pid.
start_ctr() {
	if [ $# -eq 0 ]; then
		set_args sleep 1000
	else
		set_args "$@"
	fi
	create_container "$CID"
	runtime start "$CID"
	wait_for_status "$CID" running
	INIT_PID=$(container_pid "$CID")
}

# wait_for_file FILE [TIMEOUT_SECONDS=5]: until FILE exists and is not empty.
wait_for_file() {
	local tries=$((${2:-5} * 10))
	while [ ! -s "$1" ] && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	[ -s "$1" ] || { echo "timed out waiting for $1" >&2; return 1; }
}

# pid_alive PID: PID exists and is not a zombie.
pid_alive() {
	local st
	st=$(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null) || return 1
	[[ "$st" != " Z"* ]]
}

# wait_pid_gone PID [TIMEOUT_SECONDS=5]
wait_pid_gone() {
	local tries=$((${2:-5} * 10))
	while pid_alive "$1" && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	! pid_alive "$1" || { echo "process $1 is still alive" >&2; return 1; }
}

count_mounts() { wc -l </proc/self/mountinfo; }

# tagged_pids: live processes of this test's runtime calls and containers: those
# with OCIT_TAG=$CID in their environment (runtime() sets it; errors tests also put
# it in process.env) or with $ROOT in their command line or environment.
tagged_pids() {
	"$PYTHON" - "$CID" "$ROOT" "$$" "$BASHPID" <<-'EOF'
		import os, sys
		tag, root, *skip = sys.argv[1:]
		tag, root = ("OCIT_TAG=" + tag).encode(), root.encode()
		skip = set(skip) | {str(os.getpid()), str(os.getppid())}
		for pid in filter(str.isdigit, os.listdir("/proc")):
		    try:
		        env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
		        cmd = open("/proc/%s/cmdline" % pid, "rb").read()
		        state = open("/proc/%s/stat" % pid, "rb").read().rsplit(b")", 1)[1].split()[0]
		    except (OSError, IndexError):
		        continue
		    if pid in skip or state == b"Z":
		        continue
		    if tag in env or root in cmd or any(root in e for e in env):
		        print(pid)
	EOF
}

# state_entries: what the runtime keeps under $ROOT (nothing for no containers).
state_entries() { ls -A "$ROOT" 2>/dev/null || true; }

# cgroup_dirs: cgroup directories named after this test's containers, and those below.
cgroup_dirs() {
	find /sys/fs/cgroup/ -maxdepth 6 -type d \( -name "$CID" -o -name "$CID-*" -o -path "*/$CID/*" \
		-o -path "*/$CID-*/*" \) 2>/dev/null || true
}

# test_mounts: mounts of this namespace that involve the test's dirs (as mount
# point or as bind source).  Other mounts are left out: other suites on the
# machine mount and unmount things at any time.
test_mounts() {
	awk -v d="$TESTDIR/" 'index($4, d) == 1 || index($5, d) == 1 {print $4, $5}' /proc/self/mountinfo | sort
}

# tree_sum DIR: a checksum of DIR's tree: every entry's path, type, mode, owner, size,
# mtime and link target, and every file's content.
tree_sum() {
	(
		cd "$1" || exit 1
		find . -printf '%p %y %m %U %G %s %T@ %l\n' | LC_ALL=C sort
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
	) | sha256sum
}

# snapshot_host / assert_nothing_left: after a failed create nothing of it may
# remain: no state entries, no new mounts, no processes, no cgroups.
snapshot_host() {
	test_mounts >"$TESTDIR/mounts.before"
}

assert_nothing_left() {
	local left tries=10
	left=$(state_entries)
	[ -z "$left" ] || { echo "left in the state dir: $left" >&2; return 1; }
	test_mounts | diff "$TESTDIR/mounts.before" - >&2 || { echo "mounts left (above)" >&2; return 1; }
	while left=$(tagged_pids) && [ -n "$left" ] && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	[ -z "$left" ] || { echo "processes left:" >&2; ps -o pid,ppid,stat,args -p "${left//$'\n'/,}" >&2; return 1; }
	left=$(cgroup_dirs)
	[ -z "$left" ] || { echo "cgroups left: $left" >&2; return 1; }
}

# schema_file NAME: the path of the runtime-spec schema NAME (config-schema.json, ...):
# from $OCI_SCHEMA_DIR when it has it, else from Debian's package.
schema_file() {
	local d
	for d in "$OCI_SCHEMA_DIR" "$DEBIAN_SCHEMA_DIR"; do
		[ -f "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

# requires_schema NAME...: the schemas (and python3-jsonschema) validate_json needs.
# features-schema.json (runtime-spec 1.1) is not in Debian 12's package: without
# OCI_SCHEMA_DIR its checks are skips.
requires_schema() {
	local name
	requires_python_module jsonschema python3-jsonschema
	for name in "$@"; do
		schema_file "$name" >/dev/null && continue
		case "$name" in
		config-schema.json | state-schema.json)
			requires_tool "$DEBIAN_SCHEMA_DIR/$name" golang-github-opencontainers-specs-dev ;;
		*) skip "$name is not packaged by Debian 12: set OCI_SCHEMA_DIR to a runtime-spec (>= 1.1) checkout's schema/ (tried $OCI_SCHEMA_DIR)" ;;
		esac
	done
}

# validate_json SCHEMA [FILE]: validates FILE (or stdin) against the schema SCHEMA
# (see schema_file; call requires_schema SCHEMA first).
validate_json() {
	local path
	path=$(schema_file "$1") || { echo "no schema $1" >&2; return 2; }
	"$PYTHON" "$HELPERS/validate_json.py" "$(dirname "$path")" "$@"
}

# --- setup / teardown -----------------------------------------------------------

common_setup_file() {
	requires_suite_tools
	setup_rootfs_cache
}

common_setup() {
	requires_suite_tools
	command -v "$OCI_RUNTIME" >/dev/null || {
		echo "no runtime at '$OCI_RUNTIME': build it, or set OCI_RUNTIME (or OCISBX_BIN)" >&2
		return 1
	}
	TESTDIR="$BATS_TEST_TMPDIR"
	# unix socket paths are limited to 108 bytes: keep the scratch dir short
	if [ "${#TESTDIR}" -gt 60 ]; then TESTDIR=$(mktemp -d /tmp/ocit.XXXXXX); fi
	ROOT="$TESTDIR/root"
	BUNDLE="$TESTDIR/bundle"
	SHARED="$TESTDIR/shared"
	IO="$TESTDIR/io"
	CID="ocit-$$-${BATS_TEST_NUMBER}"
	mkdir -p "$ROOT" "$BUNDLE" "$SHARED" "$IO"
	setup_rootfs_cache # in case the file has a setup_file of its own
	cp -a "$ROOTFS_CACHE" "$BUNDLE/rootfs"
	make_config
}

common_teardown() {
	local id pid pids=() mp
	[ -n "${TESTDIR:-}" ] && [ -n "${CID:-}" ] || return 0 # common_setup did not run
	# everything the runtime knows about, plus whatever is left in its state dir
	for id in $(
		{
			timeout 10 "$OCI_RUNTIME" --root "$ROOT" list -q 2>/dev/null
			ls -A "$ROOT" 2>/dev/null
		} | sort -u
	); do
		pid=$(timeout 10 "$OCI_RUNTIME" --root "$ROOT" state "$id" 2>/dev/null | json_field pid 2>/dev/null) &&
			[ "${pid:-0}" -gt 0 ] && pids+=("$pid")
		timeout 10 "$OCI_RUNTIME" --root "$ROOT" kill "$id" KILL >/dev/null 2>&1 || true
		timeout 10 "$OCI_RUNTIME" --root "$ROOT" delete --force "$id" >/dev/null 2>&1 || true
	done
	# leftovers: container inits, tagged processes, this test's background jobs
	for pid in "${pids[@]}" $(tagged_pids) $(jobs -p); do
		kill -9 "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	# lazy-unmount anything left below the test's dirs, deepest first
	for mp in $(awk -v d="$TESTDIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r); do
		umount -l "$mp" 2>/dev/null || true
	done
	for mp in $(cgroup_dirs | sort -r); do rmdir "$mp" 2>/dev/null || true; done
	rm -rf --one-file-system "$TESTDIR" 2>/dev/null || true
	if [ -n "${USERNS_DIR:-}" ]; then
		for mp in $(awk -v d="$USERNS_DIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r); do
			umount -l "$mp" 2>/dev/null || true
		done
		rm -rf --one-file-system "$USERNS_DIR" 2>/dev/null || true
	fi
	return 0
}

# descendant_pid PID COMM: the first process below PID (PID included) whose comm is COMM.
descendant_pid() {
	local want=$2 queue=("$1") p c
	while [ "${#queue[@]}" -gt 0 ]; do
		p=${queue[0]}
		queue=("${queue[@]:1}")
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$want" ] && { echo "$p"; return 0; }
		for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do queue+=("$c"); done
	done
	return 1
}

# start_recvtty [recvtty.py OPTION...]: console receiver for $SOCK in the background,
# output in $TESTDIR/tty.out; waits until it listens.
start_recvtty() {
	"$PYTHON" "$HELPERS/recvtty.py" --out "$TESTDIR/tty.out" "$@" "$SOCK" </dev/null 3>&- &
	RECVTTY=$!
	wait_until 30 test -S "$SOCK" || { echo "recvtty did not start" >&2; return 1; }
}

# wait_recvtty: waits until the receiver saw the pty hang up and checks its exit.
wait_recvtty() {
	for _ in $(seq 100); do pid_alive "$RECVTTY" || break; sleep 0.1; done
	wait "$RECVTTY"
}

