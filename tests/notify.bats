#!/usr/bin/env bats
# sd_notify through the container: with NOTIFY_SOCKET in the runtime's environment (a
# Type=notify unit, conmon) the container gets /run/notify/notify.sock and
# NOTIFY_SOCKET pointing there, and its READY=1 reaches the caller's socket; `start`
# (and `run -d`) return once it came.  runc and crun do the same.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
	common_setup_file
	requires_tool cc build-essential
	# a static sender for the busybox rootfs
	cc -static -Os -o "$BATS_FILE_TMPDIR/sdnotify" "$HELPERS/sdnotify.c"
}

setup() {
	common_setup
	HOST_SOCK="$TESTDIR/host.sock"
	"$PYTHON" "$HELPERS/notify_listen.py" "$HOST_SOCK" "$TESTDIR/host.log" </dev/null 3>&- &
	LISTENER=$!
	wait_for_file "$TESTDIR/host.log" 10
	cp "$BATS_FILE_TMPDIR/sdnotify" "$BUNDLE/rootfs/bin/sdnotify"
	bind_shared /mnt
}

teardown() {
	kill "$LISTENER" 2>/dev/null || true
	common_teardown
}

# host_got LINE: the caller's socket received a message LINE.
host_got() { grep -qxF -- "$1" "$TESTDIR/host.log"; }

@test "NOTIFY_SOCKET: create/start: /run/notify/notify.sock in the container, start returns once READY=1 reached the caller" {
	# the process waits for the go file, then says ready
	set_args sh -c 'echo "$NOTIFY_SOCKET" >/mnt/env; ls /run/notify >/mnt/ls
		while [ ! -e /mnt/go ]; do sleep 0.1; done; sdnotify "STATUS=almost" READY=1; sleep 1000'
	NOTIFY_SOCKET="$HOST_SOCK" create_container "$CID"
	NOTIFY_SOCKET="$HOST_SOCK" runtime start "$CID" &
	local start=$!
	wait_for_file "$SHARED/ls" 10
	[ "$(cat "$SHARED/env")" = /run/notify/notify.sock ]
	[ "$(cat "$SHARED/ls")" = notify.sock ]
	# not ready yet: start still waits
	sleep 0.3
	pid_alive "$start"
	! host_got READY=1
	touch "$SHARED/go"
	wait "$start"
	host_got READY=1
	[ "$(container_status "$CID")" = running ]
}

@test "NOTIFY_SOCKET: start returns when the container ends without READY=1" {
	set_args sh -c 'while [ ! -e /mnt/go ]; do sleep 0.1; done; exit 0'
	NOTIFY_SOCKET="$HOST_SOCK" create_container "$CID"
	NOTIFY_SOCKET="$HOST_SOCK" runtime start "$CID" &
	local start=$!
	sleep 0.3
	touch "$SHARED/go"
	wait "$start"
	! host_got READY=1
}

@test "NOTIFY_SOCKET: run passes READY=1 on and returns the exit code; run -d returns once ready" {
	set_args sh -c 'sdnotify READY=1; exit 3'
	run -3 env NOTIFY_SOCKET="$HOST_SOCK" "$OCI_RUNTIME" --root "$ROOT" run -b "$BUNDLE" "$CID" </dev/null
	wait_for_output 0 10 "READY=1 at the caller" sh -c "grep -qx READY=1 '$TESTDIR/host.log'; echo \$?"

	: >"$TESTDIR/host.log"
	set_args sh -c 'while [ ! -e /mnt/go ]; do sleep 0.1; done; sdnotify READY=1; sleep 1000'
	NOTIFY_SOCKET="$HOST_SOCK" runtime run -d -b "$BUNDLE" "$CID-d" </dev/null >/dev/null 2>&1 &
	local r=$!
	sleep 0.3
	pid_alive "$r"
	touch "$SHARED/go"
	wait "$r"
	host_got READY=1
	[ "$(container_status "$CID-d")" = running ]
}

@test "NOTIFY_SOCKET unset: no /run/notify, no NOTIFY_SOCKET in the container" {
	set_args sh -c 'ls /run/notify 2>&1; echo "[$NOTIFY_SOCKET]"'
	run env -u NOTIFY_SOCKET "$OCI_RUNTIME" --root "$ROOT" run -b "$BUNDLE" "$CID" </dev/null
	[[ "$output" == *"No such file or directory"* ]]
	[[ "$output" == *"[]"* ]]
}
