#!/usr/bin/env bats
# Hooks: the six kinds run at their moments, each with the state JSON on stdin, its
# args and env; a failing prestart/createRuntime/createContainer hook fails create,
# runs the poststop hooks and leaves nothing; a failing startContainer or poststart
# hook fails start (or run, run -d), which kills the container's process, destroys the
# container and runs the poststop hooks: nothing is left for a delete (runtime-spec 1.3,
# lifecycle steps 3-9 then 12-13, as runc 1.2 and crun); a failing poststop hook
# is a warning; a hook that runs too long is killed (timeout).

load helpers/common

setup_file() { common_setup_file; }
teardown() { common_teardown; }

setup() {
	common_setup
	set_args sleep 100
	config_add process.env "OCIT_TAG=$CID"
	# One script serves every hook: "hook.sh PHASE" appends "PHASE <state JSON>" to the log.
	# Host hooks log to $SHARED/log; startContainer runs inside the container (/mnt/log);
	# HOOK_LOG says where.
	cat >"$TESTDIR/hook.sh" <<-'SH'
		#!/bin/sh
		state=$(cat)
		log=${HOOK_LOG:-/dev/null} # never a default path: a host hook would write the host's
		# a slow startContainer hook: poststart must still come after it (and the exec)
		[ "$1" != startContainer ] || sleep 0.5
		# what the container's init runs when poststart comes: the process, not the runtime
		if [ "$1" = poststart ]; then
			pid=$(echo "$state" | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p')
			echo "init-comm $(cat "/proc/$pid/comm")" >>"$log"
		fi
		echo "$1 $HOOK_ENV $state" >>"$log"
		[ "$1" != fail ] || exit 7
		[ "$1" != slow ] || sleep 30
		exit 0
	SH
	chmod +x "$TESTDIR/hook.sh"
	cp "$TESTDIR/hook.sh" "$BUNDLE/rootfs/hook.sh"
	bind_shared /mnt
	snapshot_host
}

hook() { # hook PATH PHASE [TIMEOUT]: one hook object
	local t=""
	[ -n "${3:-}" ] && t=",\"timeout\":$3"
	echo "{\"path\":\"$1\",\"args\":[\"hook.sh\",\"$2\"],\"env\":[\"HOOK_LOG=$SHARED/log\",\"HOOK_ENV=env-$2\"]$t}"
}

# phase N: the first word of line N of the log
phases() { awk '{print $1}' "$SHARED/log" | tr '\n' ' '; }

@test "hooks: every kind runs once, in the spec's order, with its env" {
	h=$TESTDIR/hook.sh
	inner='{"path":"/hook.sh","args":["hook.sh","startContainer"],"env":["HOOK_LOG=/mnt/log","HOOK_ENV=env-startContainer"]}'
	config_set hooks "{\"prestart\":[$(hook "$h" prestart)],\"createRuntime\":[$(hook "$h" createRuntime)],
		\"createContainer\":[$(hook "$h" createContainer)],\"startContainer\":[$inner],
		\"poststart\":[$(hook "$h" poststart)],\"poststop\":[$(hook "$h" poststop)]}"
	create_container "$CID"
	echo "after create: $(phases)"
	# runc 1.1 runs poststart hooks already in create (against the spec; fixed in runc 1.2)
	if is_ocisbx; then
		[ "$(phases)" = "prestart createRuntime createContainer " ]
	else
		[[ "$(phases)" == "prestart createRuntime createContainer "* ]]
	fi
	runtime start "$CID"
	wait_for_status "$CID" running
	has_phase() { [[ "$(phases)" == *"$1"* ]]; }
	wait_until 30 has_phase startContainer
	wait_until 30 has_phase poststart
	echo "after start: $(phases)"
	if is_ocisbx; then
		[[ "$(phases)" == *"createContainer startContainer init-comm poststart "* ]]
		grep -qx 'init-comm sleep' "$SHARED/log" # the process was executed before poststart
	fi
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID"
	[[ "$(phases)" == *" poststop " ]]
	if is_ocisbx; then [[ "$(phases)" == *"startContainer init-comm poststart poststop " ]]; fi
	for p in prestart createRuntime createContainer startContainer poststart poststop; do
		grep -q "^$p env-$p " "$SHARED/log"
	done
}

@test "hooks: run: startContainer, then the exec, then poststart; poststop when run ends" {
	requires_ocisbx "runc 1.1 runs poststart hooks before the process is executed"
	h=$TESTDIR/hook.sh
	inner='{"path":"/hook.sh","args":["hook.sh","startContainer"],"env":["HOOK_LOG=/mnt/log","HOOK_ENV=env-startContainer"]}'
	config_set hooks "{\"startContainer\":[$inner],\"poststart\":[$(hook "$h" poststart)],
		\"poststop\":[$(hook "$h" poststop)]}"
	set_args sh -c 'while ! grep -q "^poststart " /mnt/log; do sleep 0.1; done; exec sleep 0.5'
	run run_container "$CID" </dev/null
	[ "$status" -eq 0 ]
	echo "phases: $(phases)"
	[ "$(phases)" = "startContainer init-comm poststart poststop " ]
	# the slow startContainer hook (0.5 s) ran, and the process was executed, before poststart
	grep -qx 'init-comm sh' "$SHARED/log"
	assert_nothing_left
}

@test "hooks: the state JSON on stdin names the container, its bundle and pid" {
	config_set hooks "{\"createRuntime\":[$(hook "$TESTDIR/hook.sh" createRuntime)],\"poststart\":[$(hook "$TESTDIR/hook.sh" poststart)]}"
	create_container "$CID"
	pid=$(container_pid "$CID")
	line=$(grep '^createRuntime ' "$SHARED/log" | cut -d' ' -f3-)
	echo "$line"
	[ "$(echo "$line" | json_field id)" = "$CID" ]
	[ "$(echo "$line" | json_field pid)" = "$pid" ]
	[ "$(echo "$line" | json_field bundle)" = "$BUNDLE" ]
	[ "$(echo "$line" | json_field status)" = creating ]
	runtime start "$CID"
	wait_until 30 grep -q '^poststart ' "$SHARED/log"
	line=$(grep '^poststart ' "$SHARED/log" | cut -d' ' -f3-)
	# runc 1.1 runs poststart during create, so its state there is still "creating"
	if is_ocisbx; then [ "$(echo "$line" | json_field status)" = running ]; fi
	[ "$(echo "$line" | json_field pid)" = "$pid" ]
}

@test "hooks: a failing createRuntime hook fails create and leaves nothing" {
	config_set hooks "{\"createRuntime\":[$(hook "$TESTDIR/hook.sh" fail)]}"
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	grep -q '^fail ' "$SHARED/log"
	assert_nothing_left
}

@test "hooks: a failing createContainer hook fails create and leaves nothing" {
	config_set hooks "{\"createContainer\":[$(hook "$TESTDIR/hook.sh" fail)]}"
	run create_container "$CID"
	[ "$status" -ne 0 ]
	grep -q '^fail ' "$SHARED/log"
	assert_nothing_left
}

@test "hooks: a failing poststop hook does not stop the delete" {
	config_set hooks "{\"poststop\":[$(hook "$TESTDIR/hook.sh" fail)]}"
	create_container "$CID"
	runtime start "$CID"
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID" || true
	grep -q '^fail ' "$SHARED/log"
	run runtime state "$CID"
	[ "$status" -ne 0 ]
	assert_nothing_left
}

@test "hooks: a hook past its timeout is killed and fails create" {
	config_set hooks "{\"createRuntime\":[$(hook "$TESTDIR/hook.sh" slow 1)]}"
	start=$(date +%s)
	run create_container "$CID"
	[ "$status" -ne 0 ]
	# runc 1.1 kills the hook but then waits for its stdout (held by the hook's child)
	if is_ocisbx; then [ $(($(date +%s) - start)) -lt 20 ]; fi
	assert_nothing_left
}

@test "hooks: a failing poststop hook is a warning: the hooks after it run, delete succeeds" {
	requires_ocisbx "runc 1.1 stops at the first failing poststop hook"
	config_set hooks "{\"poststop\":[$(hook "$TESTDIR/hook.sh" fail),$(hook "$TESTDIR/hook.sh" after)]}"
	create_container "$CID"
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	run runtime delete "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *warning*"poststop hook #0"*"status 7"* ]]
	[ "$(phases)" = "fail after " ]
	assert_nothing_left
}

# hook_noenv PATH PHASE: a hook object without env
hook_noenv() { echo "{\"path\":\"$1\",\"args\":[\"hook.sh\",\"$2\"]}"; }

@test "hooks: a hook without env gets the runtime's environment (the process's for startContainer)" {
	h=$TESTDIR/hook.sh
	# the log at one path for hooks on the host, in the init and in the container
	bind_shared "$SHARED"
	config_add process.env HOOK_ENV=from-process
	config_add process.env "HOOK_LOG=$SHARED/log"
	config_set hooks "{\"prestart\":[$(hook_noenv "$h" prestart)],\"createRuntime\":[$(hook_noenv "$h" createRuntime)],
		\"createContainer\":[$(hook_noenv "$h" createContainer)],
		\"startContainer\":[$(hook_noenv /hook.sh startContainer)],
		\"poststart\":[$(hook_noenv "$h" poststart)],\"poststop\":[$(hook_noenv "$h" poststop)]}"
	export HOOK_LOG=$SHARED/log HOOK_ENV=from-runtime
	create_container "$CID"
	runtime start "$CID"
	wait_until 30 grep -q '^poststart ' "$SHARED/log"
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID"
	cat "$SHARED/log"
	for p in prestart createRuntime poststart poststop; do
		grep -q "^$p from-runtime " "$SHARED/log"
	done
	grep -q "^startContainer from-process " "$SHARED/log"
	# runc 1.1 has set the process's environment in its init already, crun has not
	if is_ocisbx; then grep -q "^createContainer from-runtime " "$SHARED/log"; fi
}

@test "hooks: prestart's state on stdin says created (as crun and the runtime-tools suite), createRuntime's creating" {
	requires_ocisbx "runc 1.1 passes creating to prestart"
	h=$TESTDIR/hook.sh
	config_set hooks "{\"prestart\":[$(hook "$h" prestart)],\"createRuntime\":[$(hook "$h" createRuntime)]}"
	create_container "$CID"
	[ "$(grep '^prestart ' "$SHARED/log" | cut -d' ' -f3- | json_field status)" = created ]
	[ "$(grep '^createRuntime ' "$SHARED/log" | cut -d' ' -f3- | json_field status)" = creating ]
}

# --- runtime-spec 1.3 lifecycle: a failing hook goes on at steps 12-13 ---

# inner_hook PHASE: a startContainer hook object (it runs in the container: /mnt/log)
inner_hook() { echo "{\"path\":\"/hook.sh\",\"args\":[\"hook.sh\",\"$1\"],\"env\":[\"HOOK_LOG=/mnt/log\"]}"; }

@test "hooks: a failing prestart, createRuntime or createContainer hook fails create, runs poststop, leaves nothing" {
	h=$TESTDIR/hook.sh
	for kind in prestart createRuntime createContainer; do
		rm -f "$SHARED/log"
		config_set hooks "{\"$kind\":[$(hook "$h" fail),$(hook "$h" after)],\"poststop\":[$(hook "$h" poststop)]}"
		run create_container "$CID"
		echo "$kind: status $status, phases: $(phases)"
		[ "$status" -ne 0 ]
		grep -q "hook" "$IO/$CID.err"
		if is_ocisbx; then grep -q "$kind hook #0" "$IO/$CID.err"; fi
		# the hooks after the failing one do not run; poststop does, once
		[ "$(phases)" = "fail poststop " ]
		assert_nothing_left
	done
}

# after_failed_start PID: the container is destroyed at once (runtime-spec 1.3 steps
# 7/9 then 12-13, as runc 1.2 and crun): its process gone, its state gone, poststop run
# once, nothing left; a later delete says it does not exist
after_failed_start() {
	wait_pid_gone "$1" 30
	run runtime state "$CID"
	echo "state: status $status: $output"
	[ "$status" -ne 0 ]
	[ "$(phases)" = "fail poststop " ]
	assert_nothing_left
	run runtime delete "$CID"
	echo "delete: status $status: $output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"does not exist"* ]]
}

@test "hooks: a failing startContainer hook fails start, which destroys the container and runs poststop" {
	requires_ocisbx "runc 1.1's start exits 0 when a startContainer hook fails (the init reports it alone)"
	config_set hooks "{\"startContainer\":[$(inner_hook fail)],\"poststop\":[$(hook "$TESTDIR/hook.sh" poststop)]}"
	create_container "$CID"
	pid=$(container_pid "$CID")
	run runtime start "$CID"
	echo "start: status $status: $output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"startContainer hook #0"*"status 7"* ]]
	after_failed_start "$pid"
}

@test "hooks: a failing poststart hook fails start, which destroys the container and runs poststop" {
	requires_ocisbx "runc 1.1 runs poststart hooks in create"
	h=$TESTDIR/hook.sh
	config_set hooks "{\"poststart\":[$(hook "$h" fail),$(hook "$h" after)],\"poststop\":[$(hook "$h" poststop)]}"
	create_container "$CID"
	pid=$(container_pid "$CID")
	run runtime start "$CID"
	echo "start: status $status: $output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"poststart hook #0"*"status 7"* ]]
	# the hooks after the failing one do not run
	after_failed_start "$pid"
}

@test "hooks: run (and run -d): a failing startContainer hook fails run, which runs poststop and leaves nothing" {
	config_set hooks "{\"startContainer\":[$(inner_hook fail)],\"poststop\":[$(hook "$TESTDIR/hook.sh" poststop)]}"
	modes=("" -d)
	is_ocisbx || modes=("") # runc 1.1's run -d exits 0 when the startContainer hook fails
	for detach in "${modes[@]}"; do
		rm -f "$SHARED/log"
		run run_container "$CID" $detach </dev/null
		echo "run $detach: status $status: $output"
		[ "$status" -ne 0 ]
		# runc 1.1: "error running hook #0: error running hook: exit status 7, ..."
		[[ "$output" == *"hook #0"*"status 7"* ]]
		if is_ocisbx; then [[ "$output" == *"startContainer hook #0"* ]]; fi
		[ "$(phases)" = "fail poststop " ]
		assert_nothing_left
	done
}

@test "hooks: run (and run -d): a failing poststart hook fails run and stops the container; poststop, nothing left" {
	requires_ocisbx "runc 1.1 runs poststart hooks before the process is executed"
	h=$TESTDIR/hook.sh
	config_set hooks "{\"poststart\":[$(hook "$h" fail),$(hook "$h" after)],\"poststop\":[$(hook "$h" poststop)]}"
	for detach in "" -d; do
		rm -f "$SHARED/log"
		run run_container "$CID" $detach </dev/null
		echo "run $detach: status $status: $output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"poststart hook #0"*"status 7"* ]]
		[ "$(phases)" = "fail poststop " ]
		assert_nothing_left
	done
}

@test "hooks: prestart, createRuntime, poststart and poststop run in the runtime's mount namespace; createContainer and startContainer in the container's" {
	# "PHASE MNT-NAMESPACE" appended to the log the hook's LOG names
	cat >"$TESTDIR/ns.sh" <<-'SH'
		#!/bin/sh
		cat >/dev/null
		echo "$1 $(readlink /proc/self/ns/mnt)" >>"$2"
	SH
	chmod +x "$TESTDIR/ns.sh"
	cp "$TESTDIR/ns.sh" "$BUNDLE/rootfs/ns.sh"
	nshook() { echo "{\"path\":\"$TESTDIR/ns.sh\",\"args\":[\"ns.sh\",\"$1\",\"$SHARED/nslog\"]}"; }
	config_set hooks "{\"prestart\":[$(nshook prestart)],\"createRuntime\":[$(nshook createRuntime)],
		\"createContainer\":[$(nshook createContainer)],
		\"startContainer\":[{\"path\":\"/ns.sh\",\"args\":[\"ns.sh\",\"startContainer\",\"/mnt/nslog\"]}],
		\"poststart\":[$(nshook poststart)],\"poststop\":[$(nshook poststop)]}"
	create_container "$CID"
	ctr=$(readlink "/proc/$(container_pid "$CID")/ns/mnt")
	runtime start "$CID"
	has_start() { grep -q '^poststart ' "$SHARED/nslog"; }
	wait_until 30 has_start
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID"
	cat "$SHARED/nslog"
	ours=$(readlink /proc/self/ns/mnt)
	echo "runtime caller: $ours, container: $ctr"
	[ "$ctr" != "$ours" ]
	for p in prestart createRuntime poststart poststop; do grep -Fqx "$p $ours" "$SHARED/nslog"; done
	for p in createContainer startContainer; do grep -Fqx "$p $ctr" "$SHARED/nslog"; done
}
