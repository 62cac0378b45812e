#!/usr/bin/env bats
# exec --kill-tree and the container annotation io.github.ocisbx.exec.kill-tree: an
# exec's process tree, daemons and double-forks included, ends with its leader and with
# a foreground exec killed by any signal, while the container and its other execs go on.
# (tests/podman.bats drives the annotation through podman.)

load helpers/common

setup_file() { common_setup_file; }
load helpers/tree

setup() {
	common_setup
	requires_ocisbx "exec --kill-tree and its annotation are ocisbx's"
}

teardown() { common_teardown; }

# exec_bg NAME ARG...: a foreground `exec ARG...` in the background, stdio on files
# ($TESTDIR/NAME.out); BG_PID is the runtime's own pid (no wrapper to kill instead).
exec_bg() {
	local name=$1
	shift
	OCIT_TAG="$CID" "$OCI_RUNTIME" --root "$ROOT" exec "$@" </dev/null >"$TESTDIR/$name.out" 2>&1 &
	BG_PID=$!
}

# start_tree [EXEC OPTION...]: TREE_CMD by a foreground `exec --kill-tree` in the
# background, once its three sleeps run; EXEC_PID the runtime, REAPER (the pid the
# runtime reports) and LEADER host pids.
start_tree() {
	exec_bg tree --kill-tree "$@" --pid-file "$TESTDIR/tree.pid" "$CID" sh -c "$TREE_CMD"
	EXEC_PID=$BG_PID
	wait_for_output 3 20 "sleeps of the tree" tree_sleeps "$INIT_PID"
	REAPER=$(cat "$TESTDIR/tree.pid")
	LEADER=$(first_child "$REAPER")
	[ -n "$LEADER" ]
	[ "$(tr '\0' ' ' <"/proc/$LEADER/cmdline")" = "sleep 300 " ]
}

# exec_rc PID: waits for the background exec PID (20 s at most); its status in $RC.
# A runtime still there: its process tree and each one's signals on stderr.
exec_rc() {
	wait_pid_gone "$1" 20 || { proc_tree_states "$1" >&2; return 1; }
	RC=0
	wait "$1" || RC=$?
	echo "exec $1 exited $RC: $(cat "$TESTDIR/tree.out" 2>/dev/null)"
}

# assert_tree_gone: no process of the tree left, no zombie in the container, which runs.
assert_tree_gone() {
	wait_for_output 0 20 "sleeps of the tree left" tree_sleeps "$INIT_PID"
	[ -z "$(ns_zombies "$INIT_PID")" ] || { ps -o pid,ppid,stat,args -p "$(ns_zombies "$INIT_PID" | tr '\n' ,)0" >&2; return 1; }
	[ "$(container_status "$CID")" = running ]
}

# start_other: a second exec tree (sleep 299) that must outlive the others; OTHER_PID.
start_other() {
	exec_bg other --kill-tree "$CID" sleep 299
	OTHER_PID=$BG_PID
	wait_for_output 1 20 "the other exec" ns_count "$INIT_PID" sleep 299
}

assert_other_runs() {
	pid_alive "$OTHER_PID"
	[ "$(ns_count "$INIT_PID" sleep 299)" -eq 1 ]
}

@test "exec --kill-tree: the leader killed from the host (kill, kill -9) takes its whole tree; the container and another exec go on" {
	start_ctr
	start_other
	for sig in TERM KILL; do
		start_tree
		kill "-$sig" "$LEADER"
		exec_rc "$EXEC_PID"
		[ "$RC" -eq $((128 + $(kill -l "$sig"))) ]
		assert_tree_gone
	done
	assert_other_runs
}

@test "exec --kill-tree: the leader killed from another exec (kill, kill -9) takes its whole tree" {
	start_ctr
	start_other
	for sig in TERM KILL; do
		start_tree
		runtime exec "$CID" kill "-$sig" "$(ns_pid "$LEADER")" </dev/null
		exec_rc "$EXEC_PID"
		[ "$RC" -eq $((128 + $(kill -l "$sig"))) ]
		assert_tree_gone
	done
	# from inside an exec tree of its own too
	start_tree
	runtime exec --kill-tree "$CID" kill "$(ns_pid "$LEADER")" </dev/null
	exec_rc "$EXEC_PID"
	[ "$RC" -eq 143 ]
	assert_tree_gone
	assert_other_runs
}

@test "exec --kill-tree: a foreground exec killed with SIGKILL, SIGTERM or SIGHUP takes its whole tree" {
	start_ctr
	start_other
	for sig in KILL TERM HUP; do
		start_tree
		kill "-$sig" "$EXEC_PID"
		exec_rc "$EXEC_PID"
		[ "$RC" -eq $((128 + $(kill -l "$sig"))) ]
		assert_tree_gone
	done
	# SIGKILL also when the process runs as another user (the uid change clears the
	# parent-death signal: the reaper arms it again)
	start_tree -u 1000:1000
	[ "$(awk '$1 == "Uid:" { print $2 }' "/proc/$LEADER/status")" = 1000 ]
	kill -KILL "$EXEC_PID"
	exec_rc "$EXEC_PID"
	assert_tree_gone
	assert_other_runs
}

@test "exec --kill-tree: the leader's exit ends the tree too, with the leader's exit code" {
	start_ctr
	run runtime exec --kill-tree "$CID" sh -c 'setsid sleep 300 & sleep 300 & exit 7' </dev/null
	[ "$status" -eq 7 ]
	assert_tree_gone
	# without it the daemons stay (as with runc): the difference is the flag's
	run runtime exec --kill-tree=false "$CID" sh -c 'setsid sleep 300 >/dev/null 2>&1 & exit 0' </dev/null
	[ "$status" -eq 0 ]
	wait_for_output 1 20 "the daemon of a plain exec" tree_sleeps "$INIT_PID"
}

@test "exec --kill-tree: descendants that ignore every catchable signal die with the leader too" {
	start_ctr
	exec_bg tree --kill-tree --pid-file "$TESTDIR/tree.pid" "$CID" \
		sh -c "(trap '' HUP INT QUIT TERM USR1 USR2; setsid sleep 300 & sleep 300) & sleep 300"
	EXEC_PID=$BG_PID
	wait_for_output 3 20 "sleeps of the tree" tree_sleeps "$INIT_PID"
	kill -TERM "$(first_child "$(cat "$TESTDIR/tree.pid")")"
	exec_rc "$EXEC_PID"
	[ "$RC" -eq 143 ]
	assert_tree_gone
}

@test "exec --kill-tree: signals to the process the runtime reports reach the leader" {
	start_ctr
	exec_bg tree --kill-tree --pid-file "$TESTDIR/tree.pid" "$CID" \
		sh -c 'trap "echo got-term; exit 5" TERM; echo ready; while :; do sleep 0.1; done'
	EXEC_PID=$BG_PID
	wait_for_output ready 20 "the leader" cat "$TESTDIR/tree.out"
	kill -TERM "$(cat "$TESTDIR/tree.pid")"
	exec_rc "$EXEC_PID"
	[ "$RC" -eq 5 ]
	grep -qx got-term "$TESTDIR/tree.out"
	# and the leader is in a session and process group of its own
	run runtime exec --kill-tree "$CID" sh -c 'set -- $(cat /proc/$$/stat); echo "$1 $5 $6"' </dev/null
	[ "$status" -eq 0 ]
	read -r pid pgrp sid <<<"$output"
	[ "$pgrp" = "$pid" ]
	[ "$sid" = "$pid" ]
}

@test "exec --kill-tree -t: the leader has the pty as its controlling terminal" {
	requires_tool script bsdutils
	start_ctr
	run timeout 20 script -qec "$(printf '%q ' "$OCI_RUNTIME" --root "$ROOT" exec -t --kill-tree "$CID" \
		sh -c 'tty; set -- $(cat /proc/$$/stat); [ "$6" = "$1" ] && [ "$7" != 0 ] && echo has-ctty')" /dev/null </dev/null
	output=$(tr -d '\r' <<<"$output")
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"/dev/pts/"* ]]
	[[ "$output" == *has-ctty* ]]
}

@test "exec: the annotation io.github.ocisbx.exec.kill-tree=true makes every exec a tree; --kill-tree=false one plain exec" {
	config_set annotations '{"io.github.ocisbx.exec.kill-tree":"true"}'
	start_ctr
	run runtime exec "$CID" sh -c 'setsid sleep 300 >/dev/null 2>&1 & echo started' </dev/null
	[ "$status" -eq 0 ]
	[ "$output" = started ]
	assert_tree_gone
	run runtime exec --kill-tree=false "$CID" sh -c 'setsid sleep 300 >/dev/null 2>&1 & echo started' </dev/null
	[ "$status" -eq 0 ]
	wait_for_output 1 20 "the daemon of a plain exec" tree_sleeps "$INIT_PID"
}

@test "exec: a bad io.github.ocisbx.exec.kill-tree value is refused at create; a bad --kill-tree too" {
	config_set annotations '{"io.github.ocisbx.exec.kill-tree":"yes"}'
	set_args true
	snapshot_host
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *'.annotations["io.github.ocisbx.exec.kill-tree"]: "yes" is not true or false'* ]]
	assert_nothing_left
	run runtime exec --kill-tree=maybe "$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *'--kill-tree=maybe'* ]]
}

@test "exec --kill-tree: a seccomp filter that refuses what the reaper needs fails the exec, naming the call" {
	config_set linux.seccomp '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["rt_sigtimedwait"],"action":"SCMP_ACT_ERRNO"}]}'
	start_ctr
	run runtime exec --kill-tree "$CID" true </dev/null
	echo "$output"
	[ "$status" -eq 255 ]
	[[ "$output" == *"seccomp filter refuses rt_sigtimedwait"* ]]
	run runtime exec "$CID" echo plain </dev/null
	[ "$status" -eq 0 ]
	[ "$output" = plain ]
}

@test "features: names the annotation io.github.ocisbx.exec.kill-tree" {
	run runtime features
	[ "$status" -eq 0 ]
	[ "$(json_field annotations <<<"$output" | json_field io.github.ocisbx.exec.kill-tree)" = "true|false" ]
}
