#!/usr/bin/env bats
# A cgroup per exec (src/core/cgroups/exec_cgroup.h): exec --memory, --pids-limit, --cpus
# and the container's annotations io.github.ocisbx.exec.*, the usage of an exec
# (--usage-file), runc's exec --cgroup; a fork bomb or a memory hog stopped in its
# own cgroup while the container and its other execs go on; the cgroups removed.
# (tests/podman.bats drives the annotations through podman; the v2 logic, which this
# machine's layouts cannot run, is in tests/unit/test_exec_cgroup.c.)

load helpers/common

setup_file() { common_setup_file; }

setup() {
	common_setup
	[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] || skip "no cgroup hierarchy"
}

teardown() { common_teardown; }

# exec_dirs: the exec cgroups below this test's container's cgroups.
exec_dirs() { find /sys/fs/cgroup/ -maxdepth 7 -type d -path "*/$CID/ocisbx-exec-*" 2>/dev/null || true; }

# proc_cg PID CONTROLLER: PID's cgroup directory of the v1 CONTROLLER ("" : cgroup2).
proc_cg() {
	local line path
	if [ -z "$2" ]; then
		line=$(grep '^0::' "/proc/$1/cgroup")
		path=${line#0::}
		if [ -d /sys/fs/cgroup/unified ]; then echo "/sys/fs/cgroup/unified$path"; else echo "/sys/fs/cgroup$path"; fi
		return
	fi
	line=$(grep -E "^[0-9]+:([^:]*,)?$2(,[^:]*)?:" "/proc/$1/cgroup")
	path=${line#*:*:}
	echo "/sys/fs/cgroup/$(echo "$line" | cut -d: -f2)$path"
}

is_v2() { [ -f /sys/fs/cgroup/cgroup.controllers ]; }

# bg_exec NAME ARG...: a foreground `exec ARG...` in the background (stdio on
# $TESTDIR/NAME.out); BG_PID the runtime.
bg_exec() {
	local name=$1
	shift
	OCIT_TAG="$CID" "$OCI_RUNTIME" --root "$ROOT" exec "$@" </dev/null >"$TESTDIR/$name.out" 2>&1 &
	BG_PID=$!
}

usage_field() { json_field "$1" "$TESTDIR/usage.json"; }

@test "exec --memory --pids-limit --cpus: the process in a cgroup of its own below the container's, with those limits; ps sees it; removed when it ends" {
	requires_ocisbx "per-exec cgroups are ocisbx's"
	is_v2 && skip "cgroup v2 resource files: tests/unit/test_exec_cgroup.c"
	start_ctr
	bg_exec limited --memory 16m --pids-limit 7 --cpus 0.5 --pid-file "$TESTDIR/p.pid" "$CID" sleep 299
	wait_for_file "$TESTDIR/p.pid" 20
	pid=$(cat "$TESTDIR/p.pid")
	mem=$(proc_cg "$pid" memory)
	[[ "$mem" == */"$CID"/ocisbx-exec-* ]]
	[ "$(cat "$mem/memory.limit_in_bytes")" -eq $((16 << 20)) ]
	[ "$(cat "$(proc_cg "$pid" pids)/pids.max")" -eq 7 ]
	[ "$(cat "$(proc_cg "$pid" cpu)/cpu.cfs_quota_us")" -eq 50000 ]
	[ "$(cat "$(proc_cg "$pid" cpu)/cpu.cfs_period_us")" -eq 100000 ]
	[[ "$(proc_cg "$pid" freezer)" == */"$CID" ]] # the other hierarchies: the container's
	# the container's init stays where it was
	[[ "$(proc_cg "$INIT_PID" memory)" == */"$CID" ]]
	runtime ps --format json "$CID" | grep -qw "$pid"
	kill "$pid"
	wait "$BG_PID" || true
	[ -z "$(exec_dirs)" ] || { echo "left: $(exec_dirs)" >&2; false; }
	[ "$(container_status "$CID")" = running ]
}

@test "exec --pids-limit: a fork bomb is stopped in its own cgroup; the container forks on, another exec runs on; --usage-file says the limit was hit" {
	requires_ocisbx "per-exec cgroups are ocisbx's"
	is_v2 && skip "cgroup v2 resource files: tests/unit/test_exec_cgroup.c"
	start_ctr
	bg_exec other "$CID" sleep 298
	wait_until 20 pgrep -f "sleep 298"
	# forks until the kernel refuses one: busybox sh then fails ("can't fork")
	run runtime exec --kill-tree --pids-limit 5 --usage-file "$TESTDIR/usage.json" "$CID" \
		sh -c 'i=0; while [ $i -lt 40 ]; do sleep 297 & i=$((i+1)); done; echo all forked'
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" != *"all forked"* ]]
	cat "$TESTDIR/usage.json"
	[ "$(usage_field limitHit)" = true ]
	[ "$(usage_field pidsLimitHits)" -ge 1 ]
	[ "$(usage_field pidsLimit)" -eq 5 ]
	[ "$(usage_field oomKills)" -eq 0 ]
	[ "$(usage_field exitCode)" -eq "$status" ]
	# the tree is gone, its cgroup too; the container's own limit was never reached
	[ -z "$(pgrep -f "sleep 297")" ]
	[ -z "$(exec_dirs)" ]
	run runtime exec "$CID" sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0 & done; wait; echo forked'
	[ "$status" -eq 0 ]
	[ "$output" = forked ]
	pid_alive "$BG_PID"
	[ "$(container_status "$CID")" = running ]
}

@test "exec --memory: a memory hog is OOM-killed in its own cgroup; the container and another exec go on; --usage-file has the OOM kill and the peak" {
	requires_ocisbx "per-exec cgroups are ocisbx's"
	is_v2 && skip "cgroup v2 resource files: tests/unit/test_exec_cgroup.c"
	start_ctr
	bg_exec other "$CID" sleep 298
	wait_until 20 pgrep -f "sleep 298"
	# a shell string doubled until the kernel kills it (2 GiB at most otherwise)
	run runtime exec --memory 8m --usage-file "$TESTDIR/usage.json" "$CID" \
		sh -c 'x=0123456789abcdef; i=0; while [ $i -lt 27 ]; do x=$x$x; i=$((i+1)); done; echo survived'
	echo "$output"
	[ "$status" -eq 137 ]
	cat "$TESTDIR/usage.json"
	[ "$(usage_field oomKills)" -ge 1 ]
	[ "$(usage_field limitHit)" = true ]
	[ "$(usage_field memoryLimitBytes)" -eq $((8 << 20)) ]
	peak=$(usage_field memoryPeakBytes)
	[ "$peak" -gt $((1 << 20)) ] && [ "$peak" -le $((8 << 20)) ]
	[ "$(usage_field cpuNs)" -gt 0 ]
	[ -z "$(exec_dirs)" ]
	pid_alive "$INIT_PID"
	pid_alive "$BG_PID"
	run runtime exec "$CID" echo fine
	[ "$output" = fine ]
}

@test "exec --usage-file: an exec within its limits reports its usage and no limit hit" {
	requires_ocisbx "per-exec cgroups are ocisbx's"
	is_v2 && skip "cgroup v2 resource files: tests/unit/test_exec_cgroup.c"
	start_ctr
	runtime exec --usage-file "$TESTDIR/usage.json" "$CID" sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done'
	cat "$TESTDIR/usage.json"
	[ "$(usage_field limitHit)" = false ]
	[ "$(usage_field exitCode)" -eq 0 ]
	[ "$(usage_field memoryLimitBytes)" -eq -1 ]
	[ "$(usage_field cpuNs)" -gt 0 ]
	[[ "$(usage_field cgroup)" == */"$CID"/ocisbx-exec-* ]]
	[ -z "$(exec_dirs)" ]
	# with --log-format=json the usage is also a log line
	OCIT_TAG="$CID" "$OCI_RUNTIME" --root "$ROOT" --log "$TESTDIR/log.json" --log-format json \
		exec --pids-limit 20 "$CID" true
	grep '"exec usage: {' "$TESTDIR/log.json"
	# usage needs the exec's end
	run runtime exec -d --usage-file "$TESTDIR/u2.json" "$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"--usage-file needs a foreground exec"* ]]
}

@test "exec: the annotations io.github.ocisbx.exec.* give every exec its limits; the flags win" {
	requires_ocisbx "per-exec cgroups are ocisbx's"
	is_v2 && skip "cgroup v2 resource files: tests/unit/test_exec_cgroup.c"
	config_set annotations '{"io.github.ocisbx.exec.memory": "32m", "io.github.ocisbx.exec.pids-limit": "9", "io.github.ocisbx.exec.cpus": "1.5"}'
	start_ctr
	bg_exec a --pid-file "$TESTDIR/a.pid" "$CID" sleep 299
	wait_for_file "$TESTDIR/a.pid" 20
	pid=$(cat "$TESTDIR/a.pid")
	[ "$(cat "$(proc_cg "$pid" memory)/memory.limit_in_bytes")" -eq $((32 << 20)) ]
	[ "$(cat "$(proc_cg "$pid" pids)/pids.max")" -eq 9 ]
	[ "$(cat "$(proc_cg "$pid" cpu)/cpu.cfs_quota_us")" -eq 150000 ]
	bg_exec b --pids-limit 3 --memory 1g --pid-file "$TESTDIR/b.pid" "$CID" sleep 299
	wait_for_file "$TESTDIR/b.pid" 20
	pid2=$(cat "$TESTDIR/b.pid")
	[ "$(cat "$(proc_cg "$pid2" pids)/pids.max")" -eq 3 ]
	[ "$(cat "$(proc_cg "$pid2" memory)/memory.limit_in_bytes")" -eq $((1 << 30)) ]
	[ "$(proc_cg "$pid" pids)" != "$(proc_cg "$pid2" pids)" ]
	kill "$pid" "$pid2"
	wait
	[ -z "$(exec_dirs)" ]
	runtime features | grep -q '"io.github.ocisbx.exec.pids-limit"'
	runtime features | grep -q '"io.github.ocisbx.exec.memory"'
	runtime features | grep -q '"io.github.ocisbx.exec.cpus"'
}

@test "exec: bad per-exec limits fail naming the flag or the annotation, and leave no cgroup" {
	requires_ocisbx "per-exec cgroups are ocisbx's"
	start_ctr
	run runtime exec --memory 12x "$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *'--memory: "12x" is not a size'* ]]
	run runtime exec --cpus 0.001 "$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *'--cpus: "0.001"'* ]]
	run runtime exec --pids-limit many "$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *'--pids-limit: "many"'* ]]
	run runtime exec --cgroup ../x "$CID" true
	[ "$status" -ne 0 ]
	# runc's words ("... is not a sub cgroup path"), which its own suite checks
	[[ "$output" == *' ../x is not a sub cgroup path'* ]]
	[[ "$output" == *'"." and ".." are not allowed'* ]]
	run runtime exec --cgroup x --memory 8m "$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *'--cgroup: not with a cgroup of its own'* ]]
	runtime delete -f "$CID"
	config_set annotations '{"io.github.ocisbx.exec.memory": "lots"}'
	start_ctr
	run runtime exec "$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *'.annotations["io.github.ocisbx.exec.memory"]: "lots"'* ]]
	[ -z "$(exec_dirs)" ]
}

@test "exec: the cgroup of a detached exec, and of a killed runtime's, is removed by the next exec once empty, and by delete -f" {
	requires_ocisbx "per-exec cgroups are ocisbx's"
	is_v2 && skip "cgroup v2 resource files: tests/unit/test_exec_cgroup.c"
	start_ctr
	# a foreground exec whose runtime is killed: its process goes on, then ends
	bg_exec killed --memory 16m --pid-file "$TESTDIR/k.pid" "$CID" sleep 299
	wait_for_file "$TESTDIR/k.pid" 20
	killed=$BG_PID
	kill -9 "$killed"
	wait "$killed" || true
	exec_dirs | grep -q "/ocisbx-exec-$killed-"
	kill "$(cat "$TESTDIR/k.pid")"
	wait_pid_gone "$(cat "$TESTDIR/k.pid")" 20
	# a detached one, still running: kept
	runtime exec -d --pids-limit 10 --pid-file "$TESTDIR/d.pid" "$CID" sleep 299
	dpid=$(cat "$TESTDIR/d.pid")
	dcg=$(proc_cg "$dpid" pids)
	runtime exec --pids-limit 10 "$CID" true
	# the killed runtime's cgroup was swept; the running detached one stays
	exec_dirs
	! exec_dirs | grep "/ocisbx-exec-$killed-"
	[ -d "$dcg" ]
	# delete -f removes the container's cgroups with everything below them
	runtime delete -f "$CID"
	[ -z "$(exec_dirs)" ]
	[ -z "$(cgroup_dirs)" ] || { echo "left: $(cgroup_dirs)" >&2; false; }
}

@test "exec --cgroup SUB: the process joins the container's existing sub-cgroup (v1: also CONTROLLER:SUB); a missing one is an error" {
	is_v2 && skip "cgroup v1 layout test"
	start_ctr
	run runtime exec --cgroup sub "$CID" true
	echo "$output"
	[ "$status" -ne 0 ]
	! is_ocisbx || [[ "$output" == *"no cgroup"*sub* ]]
	# the path form: in every hierarchy of the container (as runc)
	while IFS=: read -r _ ctrls path; do
		case "$ctrls" in
		"") dir=/sys/fs/cgroup/unified$path ;;
		name=*) dir=/sys/fs/cgroup/${ctrls#name=}$path ;;
		*) dir=/sys/fs/cgroup/$ctrls$path ;;
		esac
		[ -d "$dir" ] || continue
		mkdir "$dir/sub"
		# a v1 cpuset cgroup takes no task before it has cpus and mems
		if [ -f "$dir/cpuset.cpus" ]; then
			cat "$dir/cpuset.cpus" >"$dir/sub/cpuset.cpus"
			cat "$dir/cpuset.mems" >"$dir/sub/cpuset.mems"
		fi
	done <"/proc/$INIT_PID/cgroup"
	find /sys/fs/cgroup -maxdepth 4 -type d -name sub -path "*$CID*"
	bg_exec j --cgroup sub --pid-file "$TESTDIR/j.pid" "$CID" sleep 299
	wait_for_file "$TESTDIR/j.pid" 20 || { cat "$TESTDIR/j.out" >&2; false; }
	pid=$(cat "$TESTDIR/j.pid")
	[[ "$(proc_cg "$pid" memory)" == */"$CID"/sub ]]
	[[ "$(proc_cg "$pid" freezer)" == */"$CID"/sub ]]
	bg_exec k --cgroup memory,pids:sub --pid-file "$TESTDIR/k.pid" "$CID" sleep 298
	wait_for_file "$TESTDIR/k.pid" 20
	pid2=$(cat "$TESTDIR/k.pid")
	[[ "$(proc_cg "$pid2" memory)" == */"$CID"/sub ]]
	[[ "$(proc_cg "$pid2" pids)" == */"$CID"/sub ]]
	[[ "$(proc_cg "$pid2" freezer)" == */"$CID" ]]
	kill "$pid" "$pid2"
	wait
	# not ours: kept
	[ -d "$(proc_cg "$INIT_PID" memory)/sub" ]
}
