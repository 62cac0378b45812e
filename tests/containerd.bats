#!/usr/bin/env bats
# containerd 1.6 (Debian's) with the io.containerd.runc.v2 shim running $OCI_RUNTIME
# (`ctr run --runc-binary`), as `ctr` users and containerd-based tools drive it.  The
# daemon is the file's own (helpers/engines.bash), without its CRI plugin (tests/cri.bats
# has that); the image is a local busybox (`ctr images import` of an archive built here).
#
#   OCI_RUNTIME=/usr/sbin/runc bats tests/containerd.bats          # reference

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/engines

IMAGE=docker.io/ocit/busybox:latest

setup_file() {
	eng_requires
	requires_tool containerd containerd
	requires_tool ctr containerd
	requires_tool script bsdutils
	eng_setup_file ocictr
	ctrd_start
	eng_build_image_tar "$ENG_DIR/busybox.tar" "$IMAGE"
	c images import "$ENG_DIR/busybox.tar" >/dev/null
}

teardown_file() { eng_teardown_file "$(ctrd_rt_state)"; }

setup() { NAME="ct$BATS_TEST_NUMBER"; }

teardown() {
	local t
	eng_daemon_running || return 0
	for t in $(c task ls -q 2>/dev/null); do c task kill -a -s KILL "$t" >/dev/null 2>&1 || true; done
	for t in $(c task ls -q 2>/dev/null); do
		eng_wait_for 10 "task $t to stop" task_is "$t" STOPPED || true
		c task delete -f "$t" >/dev/null 2>&1 || true
	done
	for t in $(c containers ls -q 2>/dev/null); do c containers delete "$t" >/dev/null 2>&1 || true; done
	return 0
}

# The runtime's state dir (ctr's --runc-root; the shim adds the namespace).
ctrd_rt_state() { echo "$ENG_DIR/rtroot/default"; }

# c ARGS...: ctr for this file's containerd.
c() { timeout -k 5 "$ENG_TIMEOUT" ctr --address "$CTRD_SOCK" "$@"; }

# ctr_run [OPTION...] ID ARGS...: `ctr run` with $OCI_RUNTIME, its state dir and a cgroup
# below the file's parent; the image goes before the id.
ctr_run() {
	local opts=()
	while [[ "$1" == -* ]]; do opts+=("$1") && shift; done
	c run --runc-binary "$OCI_RUNTIME" --runc-root "$ENG_DIR/rtroot" \
		--cgroup "$ENG_CGPARENT/$1" "${opts[@]}" "$IMAGE" "$@" </dev/null
}

# task_status ID: RUNNING, PAUSED, STOPPED (from `ctr task ls`).
task_status() { c task ls | awk -v id="$1" '$1 == id {print $3}'; }
task_is() { [ "$(task_status "$1")" = "$2" ]; }
wait_task() { eng_wait_for 30 "task $1 to be $2" task_is "$1" "$2"; }

# ctrd_assert_gone ID: the runtime, the cgroups and containerd know nothing of ID.
ctrd_assert_gone() {
	[ ! -e "$(ctrd_rt_state)/$1" ] || { echo "runtime state left: $(ctrd_rt_state)/$1" >&2; return 1; }
	[ -z "$(find /sys/fs/cgroup/ -maxdepth 6 -type d -path "*$ENG_CGPARENT/$1" 2>/dev/null)" ] ||
		{ echo "cgroups left for $1" >&2; return 1; }
	run c containers info "$1"
	[ "$status" -ne 0 ]
}

@test "containerd: ctr run --rm: output and exit codes (0, 3), nothing left" {
	run ctr_run --rm "$NAME" echo hello from the container
	[ "$status" -eq 0 ]
	[ "$output" = "hello from the container" ]
	run ctr_run --rm "$NAME" sh -c 'exit 3'
	[ "$status" -eq 3 ]
	ctrd_assert_gone "$NAME"
}

@test "containerd: run -d, task exec (plain and on a pty), kill, delete" {
	ctr_run -d "$NAME" sleep 1000
	wait_task "$NAME" RUNNING
	# the container is the runtime's
	run "$OCI_RUNTIME" --root "$(ctrd_rt_state)" state "$NAME"
	[ "$status" -eq 0 ]

	run c task exec --exec-id e1 "$NAME" sh -c 'echo in-exec; echo err >&2; exit 4'
	[ "$status" -eq 4 ]
	[[ "$output" == *in-exec* ]]
	[[ "$output" == *err* ]]

	run timeout 60 script -qec "ctr --address $CTRD_SOCK task exec -t --exec-id e2 $NAME sh -c 'tty; echo done'" /dev/null </dev/null
	[ "$status" -eq 0 ]
	output=${output//$'\r'/}
	[[ "$output" == *"/dev/pts/"* ]]
	[[ "$output" == *done* ]]

	c task kill -s KILL "$NAME"
	wait_task "$NAME" STOPPED
	c task delete "$NAME" >/dev/null
	c containers delete "$NAME"
	ctrd_assert_gone "$NAME"
}

@test "containerd: ctr run -t relays a pty" {
	run timeout 60 script -qec "ctr --address $CTRD_SOCK run -t --rm --runc-binary $OCI_RUNTIME --runc-root $ENG_DIR/rtroot --cgroup $ENG_CGPARENT/$NAME $IMAGE $NAME sh -c 'tty; exit 5'" /dev/null </dev/null
	[ "$status" -eq 5 ]
	[[ "$output" == *"/dev/pts/"* ]]
	ctrd_assert_gone "$NAME"
}

@test "containerd: kill of an exited task is harmless (not found), kill -a too" {
	ctr_run -d "$NAME" sh -c 'exit 0'
	wait_task "$NAME" STOPPED
	# containerd maps the runtime's "container not running" to "not found"
	run c task kill -s KILL "$NAME"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not found"* ]]
	run c task kill -a -s KILL "$NAME"
	[ "$status" -eq 0 ]
	run c task delete "$NAME"
	[ "$status" -eq 0 ]
	c containers delete "$NAME"
	ctrd_assert_gone "$NAME"
}

@test "containerd: kill -a reaches every process of the task" {
	ctr_run -d "$NAME" sh -c 'trap "" TERM; sleep 1001 & sleep 1002 & wait'
	wait_task "$NAME" RUNNING
	run c task ps "$NAME"
	[ "${#lines[@]}" -eq 4 ] # a header and three processes
	c task kill -a -s KILL "$NAME"
	wait_task "$NAME" STOPPED
	c task delete "$NAME" >/dev/null
	c containers delete "$NAME"
	ctrd_assert_gone "$NAME"
}

# ctr_ticks EXEC_ID: the lines the pause test's loop wrote; ctr_ticks_above N: more than N.
ctr_ticks() { c task exec --exec-id "$1" "$NAME" sh -c 'wc -l </tmp/n'; }
ctr_ticks_above() { [ "$(ctr_ticks "e$RANDOM")" -gt "$1" ]; }

@test "containerd: pause and resume" {
	ctr_run -d "$NAME" sh -c 'while :; do echo >>/tmp/n; sleep 0.1; done'
	wait_task "$NAME" RUNNING
	eng_wait_for 30 "the task's loop to start" ctr_ticks_above 0
	c task pause "$NAME"
	[ "$(task_status "$NAME")" = PAUSED ]
	run c task exec --exec-id e0 "$NAME" true
	[ "$status" -ne 0 ] # no exec in a frozen container
	c task resume "$NAME"
	[ "$(task_status "$NAME")" = RUNNING ]
	local n1
	n1=$(ctr_ticks e1)
	eng_wait_for 30 "the task to go on" ctr_ticks_above "$n1"
}

@test "containerd: metrics of a task" {
	ctr_run -d "$NAME" sleep 1000
	wait_task "$NAME" RUNNING
	run c task metrics --format json "$NAME"
	[ "$status" -eq 0 ]
	# cgroup v1 metrics (the hybrid and v1 machines), or v2's
	"$PYTHON" -c '
import json, sys
m = json.loads(sys.argv[1])
if "memory" in m and "usage" in m["memory"]:       # v1
    assert m["memory"]["usage"]["usage"] > 0, m["memory"]
    assert m["pids"]["current"] >= 1, m["pids"]
else:                                              # v2
    assert m["memory"]["usage"] > 0, m["memory"]
    assert m["pids"]["current"] >= 1, m["pids"]' "$output"
}

@test "containerd: containerd stops and leaves nothing (mounts, cgroups, runtime state, shims)" {
	eng_daemon_stop
	eng_assert_clean "$(ctrd_rt_state)"
}
