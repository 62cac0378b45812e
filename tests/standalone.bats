#!/usr/bin/env bats
# Standalone use: `RUNTIME run -b BUNDLE ID` in the foreground, as a person types it:
# rootfs locations (outside the bundle, a btrfs subvolume, contrib/mkbundle.sh),
# exit codes, stdio, signal forwarding, the caller being SIGKILLed, and a terminal.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() { common_setup_file; }

MKBUNDLE="$BATS_TEST_DIRNAME/../contrib/mkbundle.sh"

setup() {
	common_setup
	# `run` in the foreground gets no console socket: no terminal unless a test asks
	config_set process.terminal false
}

teardown() {
	unmount_btrfs_loop
	common_teardown
}

# run_bg ARGS...: `RUNTIME --root $ROOT run ARGS` in the background, stdin from
# /dev/null, output to $TESTDIR/out and err; RUN_PID is the runtime's own pid.
run_bg() {
	OCIT_TAG="$CID" "$OCI_RUNTIME" --root "$ROOT" run "$@" </dev/null >"$TESTDIR/out" 2>"$TESTDIR/err" 3>&- &
	RUN_PID=$!
}

# wait_ready FILE [SECONDS=10]: until the container wrote FILE; fails at once if the
# background run (RUN_PID) has exited.
wait_ready() {
	local tries=$((${2:-10} * 10))
	while [ ! -s "$1" ] && [ "$tries" -gt 0 ]; do
		if ! kill -0 "$RUN_PID" 2>/dev/null; then
			echo "run exited before the container was ready; its stderr:" >&2
			cat "$TESTDIR/err" >&2
			return 1
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	[ -s "$1" ] || { echo "timed out waiting for $1; run's stderr:" >&2; cat "$TESTDIR/err" >&2; return 1; }
}

# wait_exit PID [SECONDS=10]: waits for a background job; its exit status is $EXIT.
wait_exit() {
	local pid=$1 tries=$((${2:-10} * 10)) st=0
	while kill -0 "$pid" 2>/dev/null && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "pid $pid still running" >&2
		return 1
	fi
	wait "$pid" || st=$?
	EXIT=$st
	echo "pid $pid exited with $EXIT" >&2
}

# assert_gone ID: nothing of container ID is left: no state, no state dir entry, no
# tagged process, no mount below the test dir but the test's own.
assert_gone() {
	run runtime state "$1"
	[ "$status" -ne 0 ]
	[ -z "$(state_entries)" ]
	[ -z "$(tagged_pids)" ]
	[ -z "$(cgroup_dirs)" ]
}

# save_mounts / assert_no_new_mounts: the mounts involving the test's dirs are the
# same as at save_mounts (see test_mounts in helpers/common).
save_mounts() { test_mounts >"$TESTDIR/mounts-before"; }
assert_no_new_mounts() { test_mounts | diff "$TESTDIR/mounts-before" -; }

# --- rootfs locations -----------------------------------------------------------

@test "run: root.path is an absolute directory outside the bundle" {
	mkdir -p "$TESTDIR/elsewhere"
	mv "$BUNDLE/rootfs" "$TESTDIR/elsewhere/rootfs"
	echo elsewhere-marker >"$TESTDIR/elsewhere/rootfs/marker"
	config_set root.path "\"$TESTDIR/elsewhere/rootfs\""
	set_args sh -c 'cat /marker; head -1 /etc/passwd; echo done'
	save_mounts
	run runtime run -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "elsewhere-marker
root:x:0:0:root:/root:/bin/sh
done" ]
	assert_gone "$CID"
	assert_no_new_mounts
	# and again from another working directory, the bundle given relative to it
	cd "$TESTDIR"
	run runtime run -b bundle "$CID-b" </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *elsewhere-marker* ]]
	# and with the bundle as the working directory (no -b)
	cd "$BUNDLE"
	run runtime run "$CID-c" </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *elsewhere-marker* ]]
	[ -z "$(state_entries)" ]
}

@test "run: the rootfs is a btrfs subvolume" {
	btrfs_rootfs
	config_set root.readonly false
	set_args sh -c 'stat -f -c %t /; echo written >/tmp/f; cat /tmp/f'
	run runtime run -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	# 9123683e: BTRFS_SUPER_MAGIC
	[ "$output" = "9123683e
written" ]
	[ "$(cat "$BTRFS_MNT/rootfs-sv/tmp/f")" = written ]
	assert_gone "$CID"
	# the runtime left nothing mounted on or below the subvolume
	[ -z "$(awk -v d="$BTRFS_MNT/" 'index($5, d) == 1' /proc/self/mountinfo)" ]
	# a snapshot of the subvolume runs too
	btrfs -q subvolume snapshot "$BTRFS_MNT/rootfs-sv" "$BTRFS_MNT/snap" >/dev/null
	config_set root.path "\"$BTRFS_MNT/snap\""
	set_args cat /tmp/f
	run runtime run -b "$BUNDLE" "$CID-snap" </dev/null
	[ "$status" -eq 0 ]
	[ "$output" = written ]
	umount "$BTRFS_MNT"
	BTRFS_MNT=
}

@test "contrib/mkbundle.sh: a directory, a tarball and --busybox become runnable bundles" {
	[ -x "$MKBUNDLE" ] || skip "no $MKBUNDLE"
	# a directory, used in place
	cp -a "$ROOTFS_CACHE" "$TESTDIR/dir-rootfs"
	echo from-dir >"$TESTDIR/dir-rootfs/marker"
	run "$MKBUNDLE" -r "$OCI_RUNTIME" "$TESTDIR/b1" --rootfs "$TESTDIR/dir-rootfs" -- cat /marker </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f "$TESTDIR/b1/config.json" ]
	[ ! -e "$TESTDIR/b1/rootfs" ]
	run runtime run -b "$TESTDIR/b1" "$CID-dir" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = from-dir ]

	# a tarball (gzip), extracted into the bundle
	echo from-tar >"$TESTDIR/dir-rootfs/marker"
	tar -C "$TESTDIR/dir-rootfs" -czf "$TESTDIR/rootfs.tar.gz" .
	run "$MKBUNDLE" -r "$OCI_RUNTIME" "$TESTDIR/b2" --tar "$TESTDIR/rootfs.tar.gz" -- sh -c 'cat /marker; exit 7' </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ -x "$TESTDIR/b2/rootfs/bin/busybox" ]
	run runtime run -b "$TESTDIR/b2" "$CID-tar" </dev/null
	echo "$output"
	[ "$status" -eq 7 ]
	[ "$output" = from-tar ]

	# --busybox: its own rootfs from /bin/busybox
	run "$MKBUNDLE" -r "$OCI_RUNTIME" "$TESTDIR/b3" --busybox -- sh -c 'id -un; ls /bin/sh' </dev/null
	[ "$status" -eq 0 ]
	run runtime run -b "$TESTDIR/b3" "$CID-bb" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "root
/bin/sh" ]
	[ -z "$(state_entries)" ]
}

# --- exit codes and stdio -------------------------------------------------------

@test "run: the container's exit code is run's; the container is deleted" {
	set_args sh -c 'exit 42'
	run -42 runtime run -b "$BUNDLE" "$CID" </dev/null
	assert_gone "$CID"
	set_args true
	run runtime run -b "$BUNDLE" "$CID" </dev/null
	[ "$status" -eq 0 ]
	set_args false
	run -1 runtime run -b "$BUNDLE" "$CID" </dev/null
	assert_gone "$CID"
}

@test "run: a container killed by a signal makes run exit 128+signal" {
	bind_shared /mnt
	set_args sh -c 'echo ready >/mnt/ready; exec sleep 1000'
	run_bg -b "$BUNDLE" "$CID"
	wait_ready "$SHARED/ready"
	[ "$(container_status "$CID")" = running ]
	runtime kill "$CID" KILL
	wait_exit "$RUN_PID"
	[ "$EXIT" -eq 137 ]
	assert_gone "$CID"
}

@test "run: stdin, stdout and stderr are the caller's" {
	set_args sh -c 'read -r line; echo "out:$line"; echo "err:$line" >&2'
	echo hello | runtime run -b "$BUNDLE" "$CID" >"$TESTDIR/o" 2>"$TESTDIR/e"
	[ "$(cat "$TESTDIR/o")" = out:hello ]
	[ "$(cat "$TESTDIR/e")" = err:hello ]
}

@test "run: a missing binary fails with a message naming it" {
	set_args /no/such/binary
	run runtime run -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == */no/such/binary* ]]
	assert_gone "$CID"
}

# --- signals --------------------------------------------------------------------

@test "run: SIGTERM to run reaches the container (its trap's exit code)" {
	bind_shared /mnt
	set_args sh -c 'trap "echo got-usr1 >>/mnt/log" USR1; trap "echo got-term >>/mnt/log; exit 3" TERM; echo ready >/mnt/ready; while :; do sleep 0.1; done'
	run_bg -b "$BUNDLE" "$CID"
	wait_ready "$SHARED/ready"
	kill -USR1 "$RUN_PID"
	wait_until 30 grep -qs got-usr1 "$SHARED/log"
	kill -0 "$RUN_PID"
	kill -TERM "$RUN_PID"
	wait_exit "$RUN_PID"
	[ "$EXIT" -eq 3 ]
	[ "$(cat "$SHARED/log")" = "got-usr1
got-term" ]
	assert_gone "$CID"
}

@test "run: SIGTERM to run kills an untrapping process: exit 143" {
	# without a pid namespace the shell is not an init: SIGTERM's default action applies
	config_del 'linux.namespaces[type=pid]'
	bind_shared /mnt
	set_args sh -c 'echo ready >/mnt/ready; while :; do sleep 0.1; done'
	run_bg -b "$BUNDLE" "$CID"
	wait_ready "$SHARED/ready"
	kill -TERM "$RUN_PID"
	wait_exit "$RUN_PID"
	[ "$EXIT" -eq 143 ]
	assert_gone "$CID"
}

@test "run: the caller SIGKILLed: the container can be cleaned up (ocisbx: it is gone with run)" {
	bind_shared /mnt
	set_args sh -c 'echo ready >/mnt/ready; while :; do sleep 0.1; done'
	save_mounts
	run_bg -b "$BUNDLE" "$CID"
	wait_ready "$SHARED/ready"
	pid=$(container_pid "$CID")
	[ "$pid" -gt 0 ]
	kill -KILL "$RUN_PID"
	wait "$RUN_PID" || true
	if is_ocisbx; then
		# ocisbx: the container goes with its `run`, state and cgroups included: delete
		# finds nothing
		wait_pid_gone "$pid" 5
		wait_for_output "" 10 "state left" state_entries
		run runtime delete "$CID"
		[ "$status" -ne 0 ]
		[[ "$output" == *"does not exist"* ]]
		[ -z "$(cgroup_dirs)" ]
	else
		# runc leaves the container running; delete --force cleans it up
		[ "$(container_status "$CID")" = running ]
		run runtime delete --force "$CID"
		[ "$status" -eq 0 ]
		wait_pid_gone "$pid" 5
	fi
	assert_gone "$CID"
	assert_no_new_mounts
}

# --- terminal -------------------------------------------------------------------

# pty_run CMD: runs the shell command CMD with a pty (script(1)) as its terminal, input
# from the stdin of pty_run; prints the output with CR LF made LF and NULs dropped.
pty_run() {
	timeout -k 5 60 script -qec "$1" /dev/null | tr -d '\r\0'
	return "${PIPESTATUS[0]}"
}

@test "run: terminal true relays a pty with the caller's size, and resizes" {
	config_set process.terminal true
	# runc sizes the pty only after the process started (a race: busybox stty then fails
	# or prints nothing): the size is polled; "first:" is what the process saw at once
	set_args sh -c '
		echo "first:$(stty size 2>&1)"
		tty; [ -t 0 ] && [ -t 1 ] && echo both-tty
		for i in $(seq 30); do s=$(stty size 2>/dev/null); case "$s" in "" | "0 "* | *" 0") ;; *) break ;; esac; sleep 0.1; done
		echo "size:$s"
		sleep 3.5; echo "resized:$(stty size)"; read -r x; echo "got:$x"; exit 4'
	rt=$(printf '%q ' "$OCI_RUNTIME" --root "$ROOT" run -b "$BUNDLE" "$CID")
	run pty_run "stty rows 30 cols 100; (sleep 3; stty rows 40 cols 120 </dev/tty) & OCIT_TAG=$CID $rt" < <(sleep 4.5; echo typed-text; sleep 3)
	echo "$output"
	[ "$status" -eq 4 ]
	[ "${lines[1]}" = /dev/pts/0 ]
	[ "${lines[2]}" = both-tty ]
	[ "${lines[3]}" = "size:30 100" ]
	[[ "$output" == *"resized:40 120"* ]]
	[[ "$output" == *got:typed-text* ]]
	if is_ocisbx; then
		# ocisbx sizes the pty before the process starts
		[ "${lines[0]}" = "first:30 100" ]
	fi
	assert_gone "$CID"
}

@test "run: terminal true without a terminal on the caller's side still runs (or says why)" {
	config_set process.terminal true
	set_args sh -c 'tty'
	run runtime run -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	if [ "$status" -eq 0 ]; then
		[[ "$output" == */dev/pts/0* ]]
	else
		# the message says what is wrong (runc: "open /dev/tty: no such device or address")
		[[ "$output" == *tty* || "$output" == *terminal* || "$output" == *console* ]]
	fi
	assert_gone "$CID"
}
