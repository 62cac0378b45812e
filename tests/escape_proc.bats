#!/usr/bin/env bats
# Container escapes through /proc (CVE-2016-9962, CVE-2019-5736 and their kin): a process
# of the container that may ptrace the runtime's processes (CAP_SYS_PTRACE, or every
# capability in a user namespace) loops over /proc/*/root, /proc/*/cwd, /proc/*/fd,
# /proc/*/exe and ptrace while the runtime works beside it: execs, a created container
# waiting for `start`, a `run`.  No runtime process it can see may hold anything of the
# host: its root and cwd are the container's, its fds are the container's (sockets,
# fifos, sealed memfds), it has no capability the attacker lacks, and its executable
# cannot be written (the attacker reopens what it kept once the runtime is gone).
# The attacker is tests/helpers/escape_scan.c; its findings are lines in $SHARED/out.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
	common_setup_file
	requires_tool cc build-essential
	cc -static -O2 -o "$BATS_FILE_TMPDIR/escape_scan" "$HELPERS/escape_scan.c"
}

setup() {
	common_setup
	cp "$BATS_FILE_TMPDIR/escape_scan" "$BUNDLE/rootfs/escape_scan"
	bind_shared /mnt
	HOST_FILE="$TESTDIR/host-secret"
	echo secret >"$HOST_FILE"
	# a private copy of the runtime: an attack that works corrupts only the copy
	RT="$TESTDIR/rt-$(basename "$OCI_RUNTIME")"
	cp "$OCI_RUNTIME" "$RT"
	RT_SUM=$(sha256sum <"$RT")
	SCAN=(/escape_scan "$HOST_FILE" /mnt/stop /mnt/out)
}

teardown() { common_teardown; }

rt() { OCIT_TAG="$CID" timeout --foreground -k 5 30 "$RT" --root "$ROOT" "$@"; }

# with_caps CAP...: the process's capabilities are the config's plus these
with_caps() {
	local c
	for c in "$@"; do
		for set in bounding effective permitted; do
			config_add "process.capabilities.$set" "\"$c\""
		done
	done
}

all_caps() {
	local all
	all=$("$PYTHON" -c '
import json
print(json.dumps(["CAP_" + n.upper() for n in open("/dev/stdin").read().split()]))' <<<"chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap
linux_immutable net_bind_service net_broadcast net_admin net_raw ipc_lock ipc_owner sys_module
sys_rawio sys_chroot sys_ptrace sys_pacct sys_admin sys_boot sys_nice sys_resource sys_time
sys_tty_config mknod lease audit_write audit_control setfcap mac_override mac_admin syslog
wake_alarm block_suspend audit_read")
	for set in bounding effective permitted; do
		config_set "process.capabilities.$set" "$all"
	done
}

# wait_scanning: the attacker has started
wait_scanning() { wait_for_output started 20 "the attacker's first line" head -c 7 "$SHARED/out"; }

# execs N: N execs beside the attacker, each a short command
execs() {
	local i
	for i in $(seq "$1"); do
		rt exec "$CID" true || { echo "exec $i failed" >&2; return 1; }
		rt exec "$CID" sh -c 'exit 0' || return 1
	done
}

# finish: the attacker stops, reopens what it kept for writing, and reports
finish() {
	touch "$SHARED/stop"
	wait_for_output done 30 "the attacker's last line" sh -c "grep -o '^done' '$SHARED/out' || true"
	grep -E '^(started|done) ' "$SHARED/out"
}

# nothing_found: no finding, the runtime's binary and the host file unchanged
nothing_found() {
	local found
	found=$(grep -E "^(ROOT|CWD|FD|PTRACE|WRITABLE) " "$SHARED/out" | sort | uniq -c | head -n 40) || true
	if [ -n "$found" ]; then
		echo "the attacker found:" >&2
		echo "$found" >&2
		return 1
	fi
	[ "$(sha256sum <"$RT")" = "$RT_SUM" ]
	[ "$(cat "$HOST_FILE")" = secret ]
}

@test "escape /proc: CAP_SYS_PTRACE, during exec, reaches nothing of the host" {
	with_caps CAP_SYS_PTRACE
	set_args "${SCAN[@]}"
	rt create -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>"$TESTDIR/err" || { cat "$TESTDIR/err"; false; }
	rt start "$CID"
	wait_scanning
	execs 30
	finish
	nothing_found
}

@test "escape /proc: without CAP_SYS_PTRACE, during exec, reaches nothing of the host" {
	set_args "${SCAN[@]}"
	rt create -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>"$TESTDIR/err" || { cat "$TESTDIR/err"; false; }
	rt start "$CID"
	wait_scanning
	execs 20
	finish
	nothing_found
}

@test "escape /proc: CAP_SYS_PTRACE, a created container waiting for start, reaches nothing of the host" {
	with_caps CAP_SYS_PTRACE
	set_args sleep 1000
	rt create -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>"$TESTDIR/err" || { cat "$TESTDIR/err"; false; }
	[ "$(rt state "$CID" | json_field status)" = created ]
	# the attacker joins the created container; the init still runs the runtime's code
	rt exec -d "$CID" "${SCAN[@]}" </dev/null >/dev/null 2>&1
	wait_scanning
	execs 5
	# the init's last exec: the runtime's binary runs nowhere any more
	rt start "$CID"
	wait_for_status "$CID" running
	execs 5
	finish
	grep -q '^done .* exes=[1-9]' "$SHARED/out" # it kept the init's executable
	nothing_found
}

@test "escape /proc: CAP_SYS_PTRACE, during a foreground run and its execs, reaches nothing of the host" {
	with_caps CAP_SYS_PTRACE
	set_args "${SCAN[@]}"
	rt run -b "$BUNDLE" "$CID" </dev/null >"$TESTDIR/run.out" 2>&1 &
	wait_scanning
	execs 20
	finish
	wait
	nothing_found
}

@test "escape /proc: every capability in a user namespace, during exec, reaches nothing of the host" {
	use_userns
	cp "$BATS_FILE_TMPDIR/escape_scan" "$USERNS_DIR/rootfs/escape_scan"
	chmod 777 "$SHARED"
	all_caps
	set_args "${SCAN[@]}"
	rt create -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>"$TESTDIR/err" || { cat "$TESTDIR/err"; false; }
	rt start "$CID"
	wait_scanning
	execs 20
	finish
	nothing_found
}
