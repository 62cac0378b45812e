#!/usr/bin/env bats
# Reliability: no container becomes unreachable (a lost or corrupt state.json, a create
# killed before its last write), and short runs of contrib/soak/ (the soak, the parallel
# run, the kill-at-every-point loop), whose long runs are done by hand.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

# corrupt_state HOW FILE: empty | half | garbage
corrupt_state() {
	local size
	case "$1" in
	empty) : >"$2" ;;
	half)
		size=$(stat -c %s "$2")
		truncate -s $((size / 2)) "$2"
		;;
	garbage) printf '\x00\x8f{]garbage "not json' >"$2" ;;
	esac
}

# running_container ID: create + start `sleep 1000`, prints the init's pid.
running_container() {
	set_args sleep 1000
	create_container "$1"
	runtime start "$1"
	wait_for_status "$1" running
	container_pid "$1"
}

@test "reliability: a corrupt state.json (emptied, cut, garbage): state, list and delete name the file; delete --force kills the container and leaves nothing" {
	requires_ocisbx "the init record beside state.json and the messages are ocisbx's"
	local how pid file
	snapshot_host
	for how in empty half garbage; do
		pid=$(running_container "$CID")
		file="$ROOT/$CID/state.json"
		corrupt_state "$how" "$file"

		run runtime state "$CID"
		echo "$how: state: $output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"$file"* ]]
		run runtime list
		echo "$how: list: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"$file"* ]]
		run runtime delete "$CID"
		echo "$how: delete: $output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"$file"* ]]
		pid_alive "$pid"

		run runtime delete --force "$CID"
		echo "$how: delete --force: $output"
		[ "$status" -eq 0 ]
		wait_pid_gone "$pid"
		assert_nothing_left
	done
}

@test "reliability: delete --force of a corrupt state whose init record is unreadable too fails, naming what it left" {
	requires_ocisbx "the init record is ocisbx's"
	local pid
	pid=$(running_container "$CID")
	: >"$ROOT/$CID/state.json"
	rm "$ROOT/$CID/init"
	ln -s garbage "$ROOT/$CID/init"
	rm -f "$ROOT/$CID/cgroups" # the cgroups record would still find the processes
	run runtime delete --force "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$ROOT/$CID/init"* ]]
	[[ "$output" == *"left"*"$ROOT/$CID"* ]]
	pid_alive "$pid"
	[ -d "$ROOT/$CID" ]
	kill -9 "$pid"
}

@test "reliability: delete finds the init of a create killed before its last state write" {
	requires_ocisbx "edits ocisbx's state.json as a create killed at that point leaves it"
	local pid
	snapshot_host
	set_args sleep 1000
	create_container "$CID"
	pid=$(container_pid "$CID")
	# what the state holds when create dies after the clone: pid 0, "creating"
	"$PYTHON" -c 'import json, sys
p = sys.argv[1]; d = json.load(open(p)); d["pid"] = 0; d.pop("startTime", None)
json.dump(d, open(p, "w"))' "$ROOT/$CID/state.json"
	[ "$(container_status "$CID")" = creating ]
	run runtime delete "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	wait_pid_gone "$pid"
	assert_nothing_left
}

# ---- short runs of contrib/soak/ (the long ones by hand: `make soak`) ----

# soak_run SCRIPT ARGS...: runs contrib/soak/SCRIPT on this test's runtime and scratch
# dir; its last line (the figure) is in $figure.
soak_run() {
	local script=$1
	shift
	requires_root_soak
	run env OCI_RUNTIME="$OCI_RUNTIME" SOAK_DIR="$TESTDIR/soak" SOAK_BUNDLE="$BATS_FILE_TMPDIR/soak-bundle" \
		STEP_TIMEOUT=60 \
		"$BATS_TEST_DIRNAME/../contrib/soak/$script" "$@"
	echo "$output"
	figure=${output##*$'\n'}
}

requires_root_soak() {
	[ "$(id -u)" = 0 ] || skip "the soak scripts need root"
	requires_tool /usr/bin/time time
}

@test "reliability: soak (a few cycles of create, start, exec, kill, delete) leaves nothing" {
	soak_run soak.sh -n 3
	[ "$status" -eq 0 ]
	[[ "$figure" == "soak: 3 cycles, 0 failures; left: state 0 cgroups 0 mounts 0 procs 0 tmp 0 fds 0;"* ]]
}

@test "reliability: parallel run (containers over workers, exec into half, kill and delete all) fails nothing and leaves nothing" {
	soak_run parallel.sh -n 6 -p 3
	[ "$status" -eq 0 ]
	[[ "$figure" == "parallel: 6 containers, 3 workers, 0 failures "*"left: state 0 cgroups 0 mounts 0 procs 0 tmp 0;"* ]]
}

@test "reliability: create, start, exec and delete killed at some points: delete --force leaves nothing" {
	soak_run killloop.sh -r 1 -d "0.5 2 10 50"
	[ "$status" -eq 0 ]
	[[ "$figure" == "killloop: 16 kills "*"left: state 0 cgroups 0 mounts 0 procs 0; delete failures 0" ]]
}
