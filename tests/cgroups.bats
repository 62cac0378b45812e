#!/usr/bin/env bats
# cgroups: resources land in the container's cgroups, limits bite, cgroups go away with
# the container, cgroupsPath forms, the hybrid layout, pause/resume, ps, update, events.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

is_hybrid() { ! is_v2 && [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; }

# cg_rel CTRL PID: PID's cgroup path in controller CTRL ("" for the cgroup2 line).
cg_rel() {
	local ctrl=$1 pid=$2
	if [ -z "$ctrl" ] || is_v2; then
		awk -F: '$1 == "0" { print $3 }' "/proc/$pid/cgroup"
	else
		awk -F: -v c="$ctrl" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c || a[i] == "name=" c) print $3 }' "/proc/$pid/cgroup"
	fi
}

# cg_dir CTRL PID: the host directory of that cgroup.
cg_dir() {
	local rel
	rel=$(cg_rel "$1" "$2")
	if is_v2; then
		echo "/sys/fs/cgroup$rel"
	elif [ -z "$1" ]; then
		echo "/sys/fs/cgroup/unified$rel"
	else
		echo "/sys/fs/cgroup/$1$rel"
	fi
}

# all_cg_dirs PID: every cgroup directory PID is in (all hierarchies).
all_cg_dirs() {
	local line id ctrls rel name
	while IFS= read -r line; do
		id=${line%%:*}
		ctrls=${line#*:}
		rel=${ctrls#*:}
		ctrls=${ctrls%%:*}
		if [ -z "$ctrls" ]; then
			if is_v2; then echo "/sys/fs/cgroup$rel"; elif is_hybrid; then echo "/sys/fs/cgroup/unified$rel"; fi
			continue
		fi
		name=${ctrls#name=}
		[ -d "/sys/fs/cgroup/$name" ] && echo "/sys/fs/cgroup/$name$rel"
	done <"/proc/$1/cgroup"
}

# all_gone DIR...: none of them exists any more.
all_gone() {
	local d
	for d; do
		echo "$d"
		[ ! -e "$d" ]
	done
}

create_started() {
	create_container "$CID"
	runtime start "$CID"
	wait_for_status "$CID" running
}

mem_limit_file() { if is_v2; then echo memory.max; else echo memory.limit_in_bytes; fi; }

@test "memory: the limit lands in the container's memory cgroup" {
	config_set linux.resources.memory '{"limit": 33554432}'
	set_args sleep 100
	create_container "$CID"
	pid=$(container_pid "$CID")
	[ "$(cat "$(cg_dir memory "$pid")/$(mem_limit_file)")" = 33554432 ]
	[ "$(cg_rel memory "$pid")" != / ]
}

@test "memory: the process runs in the container's memory cgroup, under its limit" {
	config_set linux.cgroupsPath "\"/$CID-mem\""
	config_set linux.resources.memory '{"limit": 16777216}'
	# 64 MiB read into one buffer: more than the limit allows
	set_args sh -c 'grep -e ":memory:" -e "^0::" /proc/self/cgroup
		dd if=/dev/zero of=/dev/null bs=64M count=1 2>/dev/null && echo survived'
	run runtime run -b "$BUNDLE" "$CID"
	echo "$output"
	if is_v2; then
		[[ "$output" == *"0::/$CID-mem"* ]]
	else
		[[ "$output" == *":memory:/$CID-mem"* ]]
	fi
	[[ "$output" != *survived* ]]
}

@test "pids: the limit bounds a fork loop" {
	config_set linux.resources.pids '{"limit": 10}'
	set_args sh -c 'i=0; while [ $i -lt 40 ]; do sleep 60 & i=$((i+1)); done; echo survived'
	run run_container "$CID"
	echo "$output"
	[[ "$output" == *"fork"* ]] || [[ "$output" == *"Resource temporarily unavailable"* ]]
	[[ "$output" != *survived* ]]
}

@test "pids: the limit is visible in pids.max" {
	config_set linux.resources.pids '{"limit": 17}'
	set_args sleep 100
	create_container "$CID"
	pid=$(container_pid "$CID")
	[ "$(cat "$(cg_dir pids "$pid")/pids.max")" = 17 ]
}

@test "delete: every cgroup of the container is removed" {
	set_args sleep 100
	create_started
	pid=$(container_pid "$CID")
	mapfile -t dirs < <(all_cg_dirs "$pid")
	[ "${#dirs[@]}" -ge 1 ]
	for d in "${dirs[@]}"; do [ -d "$d" ]; done
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID"
	all_gone "${dirs[@]}"
}

@test "delete --force: a running container's cgroups are removed, processes killed" {
	set_args sh -c 'sleep 100 & sleep 100'
	create_started
	pid=$(container_pid "$CID")
	mapfile -t dirs < <(all_cg_dirs "$pid")
	runtime delete --force "$CID"
	wait_pid_gone "$pid"
	all_gone "${dirs[@]}"
}

@test "delete: the default cgroup parent is ocisbx/<id>" {
	requires_ocisbx "default cgroup path"
	set_args sleep 100
	create_container "$CID"
	pid=$(container_pid "$CID")
	[ "$(cg_rel memory "$pid")" = "/ocisbx/$CID" ]
	runtime delete --force "$CID"
	[ ! -e "/sys/fs/cgroup/memory/ocisbx/$CID" ] && [ ! -e "/sys/fs/cgroup/ocisbx/$CID" ]
}

@test "cgroupsPath: an absolute path is used in every hierarchy" {
	config_set linux.cgroupsPath "\"/$CID/sub\""
	set_args sleep 100
	create_container "$CID"
	pid=$(container_pid "$CID")
	while IFS= read -r line; do
		echo "$line"
		[ "${line##*:}" = "/$CID/sub" ]
	done < <(grep -v -e '^0::' -e ':misc:' -e ':perf_event:' -e ':net_cls' "/proc/$pid/cgroup")
	runtime delete --force "$CID"
	[ ! -e "/sys/fs/cgroup/memory/$CID/sub" ]
}

@test "cgroupsPath: a second container in a cgroup that has processes gets a warning (as runc)" {
	config_set linux.cgroupsPath "\"/$CID-shared\""
	set_args sleep 100
	create_container "$CID"
	f="$IO/$CID-2"
	runtime create -b "$BUNDLE" "$CID-2" </dev/null >"$f.out" 2>"$f.err"
	cat "$f.err"
	grep -q "container's cgroup is not empty" "$f.err"
	! grep -q "not empty" "$IO/$CID.err"
	runtime delete --force "$CID-2"
	runtime delete --force "$CID"
}

@test "cgroupsPath: a relative path is under the runtime's own cgroup" {
	requires_ocisbx "relative cgroupsPath placement"
	config_set linux.cgroupsPath "\"$CID-rel\""
	set_args sleep 100
	create_container "$CID"
	pid=$(container_pid "$CID")
	own=$(cg_rel memory $$)
	[ "$(cg_rel memory "$pid")" = "${own%/}/$CID-rel" ]
	runtime delete --force "$CID"
	[ ! -e "/sys/fs/cgroup/memory${own%/}/$CID-rel" ]
}

@test "cgroupsPath: the cgroup mount shows the container's own cgroup (relative path)" {
	is_v2 && skip "v1 layout test"
	config_set linux.cgroupsPath "\"$CID-relmnt\""
	config_set linux.resources.memory '{"limit": 50331648}'
	set_args cat /sys/fs/cgroup/memory/memory.limit_in_bytes
	run runtime run -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = 50331648 ]
}

@test "cgroupsPath: \"..\" is rejected, naming the field" {
	requires_ocisbx "error message"
	config_set linux.cgroupsPath '"/ocit/../../etc"'
	run create_container "$CID"
	[ "$status" -ne 0 ]
	[[ "$output" == *".linux.cgroupsPath"* ]]
}

@test "--systemd-cgroup without systemd running: runc's error, nothing created (no fallback to cgroupfs)" {
	[ ! -e /run/systemd/system ] || skip "systemd runs on this host (tests/systemd.bats boots its own)"
	config_set linux.cgroupsPath "\"ocit-a.slice::$CID\""
	set_args true
	snapshot_host
	run "$OCI_RUNTIME" --root "$ROOT" --systemd-cgroup run -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"systemd not running on this host, cannot use systemd cgroups manager"* ]]
	[ ! -e /sys/fs/cgroup/memory/ocit.slice ]
	[ ! -e /sys/fs/cgroup/pids/ocit.slice ]
	assert_nothing_left
}

@test "--version says +SYSTEMD exactly when features has cgroup.systemd, and the helper is beside the binary" {
	requires_ocisbx "ocisbx's build flags and its ocisbx-systemd helper"
	local feat ver
	feat=$("$OCI_RUNTIME" features | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["linux"]["cgroup"]["systemd"])')
	ver=$("$OCI_RUNTIME" --version)
	if [ "$feat" = True ]; then
		[[ "$ver" == *+SYSTEMD* ]]
		[ -x "$(dirname "$OCI_RUNTIME")/ocisbx-systemd" ] || [ -x /usr/lib/ocisbx/ocisbx-systemd ] ||
			[ -x /usr/local/libexec/ocisbx/ocisbx-systemd ] || [ -x /usr/libexec/ocisbx/ocisbx-systemd ]
	else
		[[ "$ver" != *+SYSTEMD* ]]
	fi
}

@test "hybrid: the container joins the unified hierarchy too" {
	is_hybrid || skip "not a hybrid cgroup layout"
	set_args sleep 100
	create_container "$CID"
	pid=$(container_pid "$CID")
	unified=$(cg_rel "" "$pid")
	[ "$unified" != / ]
	[ "$unified" = "$(cg_rel pids "$pid")" ]
	[ -d "/sys/fs/cgroup/unified$unified" ]
	runtime delete --force "$CID"
	[ ! -e "/sys/fs/cgroup/unified$unified" ]
}

@test "devices: the default list allows /dev/null and denies what it does not list" {
	config_add mounts '{"destination": "/dev/fuse", "type": "bind", "source": "/dev/fuse", "options": ["bind"]}'
	set_args sh -c 'echo x >/dev/null && echo null-ok; : </dev/fuse && echo fuse-opened; true'
	run run_container "$CID"
	echo "$output"
	[[ "$output" == *null-ok* ]]
	[[ "$output" != *fuse-opened* ]]
	[[ "$output" == *"not permitted"* ]]
}

@test "devices: a resources.devices rule allows a device" {
	config_add mounts '{"destination": "/dev/fuse", "type": "bind", "source": "/dev/fuse", "options": ["bind"]}'
	config_add linux.resources.devices '{"allow": true, "type": "c", "major": 10, "minor": 229, "access": "r"}'
	set_args sh -c ': </dev/fuse && echo fuse-read; : >>/dev/fuse && echo fuse-write; true'
	run run_container "$CID"
	echo "$output"
	[[ "$output" == *fuse-read* ]]
	[[ "$output" != *fuse-write* ]]
}

@test "resources: a controller the kernel lacks is an error naming the field" {
	requires_ocisbx "error message"
	if is_v2; then
		grep -qw hugetlb /sys/fs/cgroup/cgroup.controllers && skip "hugetlb available"
	else
		[ -d /sys/fs/cgroup/hugetlb ] && skip "hugetlb available"
		is_hybrid && unified_hugetlb && skip "hugetlb available in the unified hierarchy"
	fi
	config_set linux.resources.hugepageLimits '[{"pageSize": "2MB", "limit": 4194304}]'
	run create_container "$CID"
	[ "$status" -ne 0 ]
	[[ "$output" == *".linux.resources.hugepageLimits"* ]]
	# nothing left behind
	[ ! -e "/sys/fs/cgroup/memory/ocisbx/$CID" ] && [ ! -e "/sys/fs/cgroup/ocisbx/$CID" ]
}

# hugetlb bound to the hybrid layout's cgroup2 hierarchy rather than to a v1 one.
unified_hugetlb() {
	is_hybrid && [ ! -d /sys/fs/cgroup/hugetlb ] && grep -qw hugetlb /sys/fs/cgroup/unified/cgroup.controllers &&
		[ -d /sys/kernel/mm/hugepages/hugepages-2048kB ]
}

@test "hybrid: hugepageLimits use the unified hierarchy's hugetlb, on create and update" {
	unified_hugetlb || skip "needs hybrid with hugetlb only in /sys/fs/cgroup/unified (and 2MB pages)"
	requires_ocisbx "runc 1.1 fails here (\"cannot set hugetlb limit\"): it sets hugetlb only through a v1 hierarchy"
	config_set linux.resources.hugepageLimits '[{"pageSize": "2MB", "limit": 4194304}]'
	set_args sleep 100
	create_started
	dir=$(cg_dir "" "$(container_pid "$CID")")
	[ "$dir" != /sys/fs/cgroup/unified/ ]
	[ "$(cat "$dir/hugetlb.2MB.max")" = 4194304 ]
	if [ -e "$dir/hugetlb.2MB.rsvd.max" ]; then
		[ "$(cat "$dir/hugetlb.2MB.rsvd.max")" = 4194304 ]
	fi
	echo '{"hugepageLimits": [{"pageSize": "2MB", "limit": 8388608}]}' | runtime update --resources - "$CID"
	[ "$(cat "$dir/hugetlb.2MB.max")" = 8388608 ]
	runtime delete --force "$CID"
	[ ! -e "$dir" ]
}

@test "hybrid: hugetlb is enabled in a new unified parent, which delete removes" {
	unified_hugetlb || skip "needs hybrid with hugetlb only in /sys/fs/cgroup/unified (and 2MB pages)"
	requires_ocisbx "runc 1.1 fails here (\"cannot set hugetlb limit\"): it sets hugetlb only through a v1 hierarchy"
	config_set linux.cgroupsPath "\"/ocit-hg-$CID/c\""
	config_set linux.resources.hugepageLimits '[{"pageSize": "2MB", "limit": 2097152}]'
	set_args sleep 100
	create_started
	grep -qw hugetlb "/sys/fs/cgroup/unified/ocit-hg-$CID/cgroup.subtree_control"
	[ "$(cat "/sys/fs/cgroup/unified/ocit-hg-$CID/c/hugetlb.2MB.max")" = 2097152 ]
	runtime delete --force "$CID"
	[ ! -e "/sys/fs/cgroup/unified/ocit-hg-$CID" ] && [ ! -e "/sys/fs/cgroup/memory/ocit-hg-$CID" ]
}

@test "resources: unified needs cgroup v2 files and names the key" {
	requires_ocisbx "error message"
	is_v2 && skip "memory.high exists on v2"
	config_set linux.resources.unified '{"memory.high": "1000000"}'
	run create_container "$CID"
	[ "$status" -ne 0 ]
	[[ "$output" == *".linux.resources.unified"* ]]
}

@test "pause and resume: frozen, state paused, then running again" {
	set_args sleep 100
	create_started
	pid=$(container_pid "$CID")
	runtime pause "$CID"
	[ "$(container_status "$CID")" = paused ]
	if is_v2; then
		[ "$(cat "$(cg_dir "" "$pid")/cgroup.freeze")" = 1 ]
	else
		[ "$(cat "$(cg_dir freezer "$pid")/freezer.state")" = FROZEN ]
	fi
	grep -q '^State:.*T\|^State:.*S\|^State:.*D' "/proc/$pid/status"
	runtime resume "$CID"
	[ "$(container_status "$CID")" = running ]
	if ! is_v2; then
		[ "$(cat "$(cg_dir freezer "$pid")/freezer.state")" = THAWED ]
	fi
	run runtime resume "$CID"
	[ "$status" -ne 0 ]
}

@test "pause: a paused container can be killed and deleted" {
	set_args sleep 100
	create_started
	runtime pause "$CID"
	runtime delete --force "$CID"
	run runtime state "$CID"
	[ "$status" -ne 0 ]
}

@test "ps: lists the container's processes, table and json" {
	set_args sh -c 'sleep 100 & sleep 101'
	create_started
	pid=$(container_pid "$CID")
	# both sleeps run: the background one forked, the init exec'd the other
	ps_ready() { [ "$(ctr_pid_count)" = 2 ] && runtime ps "$CID" | grep -q 'sleep 101'; }
	wait_until 30 ps_ready
	run runtime ps "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *PID* ]]
	[ "${#lines[@]}" -eq 3 ]
	[[ "$output" == *"sleep 101"* ]]
	run runtime ps --format json "$CID"
	[ "$status" -eq 0 ]
	echo "$output" | "$PYTHON" -c "import json,sys; p=json.load(sys.stdin); assert $pid in p and len(p) == 2, p"
	run runtime ps "$CID" -o pid,comm
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *PID*COMMAND* ]]
	[ "${#lines[@]}" -eq 3 ]
}

@test "ps: the default table is ps -ef's lines of the container, also with a ps that has no -q" {
	set_args sh -c 'sleep 100 & sleep 101 & exec sleep 102'
	create_started
	wait_for_output 3 30 "container processes" ctr_pid_count
	local pids
	pids=$(runtime ps --format json "$CID" | tr -d '[]')
	# ps -ef's header and the lines whose PID is the container's, in ps's order; the C
	# column (CPU use over the life of the process) moves between two calls: left out
	no_c() { awk '{ $4 = "-"; print }' "$@"; }
	ps -ef | awk -v list="$pids" 'BEGIN { n = split(list, a, ","); for (i = 1; i <= n; i++) w[a[i]] = 1 }
		NR == 1 || ($2 in w)' | no_c >"$TESTDIR/want"
	[ "$(wc -l <"$TESTDIR/want")" -eq 4 ]
	runtime ps "$CID" | no_c >"$TESTDIR/got"
	diff "$TESTDIR/want" "$TESTDIR/got"
	# a ps without -q (busybox's, an old procps) gives the same table
	mkdir "$TESTDIR/bin"
	printf '#!/bin/sh\nfor a; do [ "$a" = -q ] && { echo "ps: invalid option -- q" >&2; exit 1; }; done\nexec %s "$@"\n' \
		"$(command -v ps)" >"$TESTDIR/bin/ps"
	chmod +x "$TESTDIR/bin/ps"
	PATH="$TESTDIR/bin:$PATH" runtime ps "$CID" 2>"$TESTDIR/err2" | no_c >"$TESTDIR/got2"
	diff "$TESTDIR/want" "$TESTDIR/got2"
	[ ! -s "$TESTDIR/err2" ]
}

@test "ps: a container of more processes than one ps -q takes (255) gets the whole table, read without ps -e" {
	requires_ocisbx "runc's ps reads every process of the host (ps -ef)"
	set_args sh -c 'i=0; while [ $i -lt 300 ]; do sleep 1000 & i=$((i + 1)); done; exec sleep 1001'
	create_started
	wait_for_output 301 60 "container processes" ctr_pid_count
	# the shell counts as one of the 301 until it has executed sleep 1001
	init_cmd() { tr '\0' ' ' <"/proc/$(container_pid "$CID")/cmdline"; }
	wait_for_output "sleep 1001 " 30 "the container's init" init_cmd
	# a ps that refuses to read every process: the table must come from ps -q alone
	mkdir "$TESTDIR/bin"
	printf '#!/bin/sh\nfor a; do case "$a" in -e*) echo "ps: -e refused" >&2; exit 1 ;; esac; done\nexec %s "$@"\n' \
		"$(command -v ps)" >"$TESTDIR/bin/ps"
	chmod +x "$TESTDIR/bin/ps"
	PATH="$TESTDIR/bin:$PATH" run runtime ps "$CID"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 302 ]
	[[ "${lines[0]}" == UID*PID*PPID*CMD ]]
	[ "$(printf '%s\n' "${lines[@]:1}" | grep -c ' sleep 1000$')" -eq 300 ]
	[ "$(printf '%s\n' "${lines[@]:1}" | grep -c ' sleep 1001$')" -eq 1 ]
	# in ps -ef's order: ascending pids
	printf '%s\n' "${lines[@]:1}" | awk '{ print $2 }' >"$TESTDIR/pids"
	sort -n -c "$TESTDIR/pids"
}

@test "update: flags change memory, pids and cpu limits" {
	config_set linux.resources.memory '{"limit": 33554432}'
	set_args sleep 100
	create_started
	pid=$(container_pid "$CID")
	runtime update --memory 64M --memory-swap 128M --pids-limit 20 --cpu-share 512 --cpu-quota 20000 --cpu-period 100000 "$CID"
	[ "$(cat "$(cg_dir memory "$pid")/$(mem_limit_file)")" = 67108864 ]
	[ "$(cat "$(cg_dir pids "$pid")/pids.max")" = 20 ]
	if is_v2; then
		[ "$(cat "$(cg_dir cpu "$pid")/cpu.max")" = "20000 100000" ]
		[ "$(cat "$(cg_dir memory "$pid")/memory.swap.max")" = 67108864 ]
	else
		[ "$(cat "$(cg_dir cpu "$pid")/cpu.shares")" = 512 ]
		[ "$(cat "$(cg_dir cpu "$pid")/cpu.cfs_quota_us")" = 20000 ]
		[ "$(cat "$(cg_dir memory "$pid")/memory.memsw.limit_in_bytes")" = 134217728 ]
	fi
}

@test "update: a memory limit above memory+swap names what to raise (v1)" {
	requires_ocisbx "error message"
	is_v2 && skip "no memory+swap coupling on cgroup v2"
	config_set linux.resources.memory '{"limit": 33554432, "swap": 67108864}'
	set_args sleep 100
	create_started
	run runtime update --memory 128M "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"memory.swap"* ]]
	runtime update --memory 128M --memory-swap 256M "$CID"
	[ "$(cat "$(cg_dir memory "$(container_pid "$CID")")/memory.limit_in_bytes")" = 134217728 ]
}

@test "update: --resources - reads the resources JSON from stdin" {
	set_args sleep 100
	create_started
	pid=$(container_pid "$CID")
	echo '{"pids": {"limit": 30}, "memory": {"limit": 50331648}}' | runtime update --resources - "$CID"
	[ "$(cat "$(cg_dir pids "$pid")/pids.max")" = 30 ]
	[ "$(cat "$(cg_dir memory "$pid")/$(mem_limit_file)")" = 50331648 ]
	echo '{"pids": {"limit": 31}}' >"$TESTDIR/res.json"
	runtime update --resources "$TESTDIR/res.json" "$CID"
	[ "$(cat "$(cg_dir pids "$pid")/pids.max")" = 31 ]
}

@test "update: device rules change on a running container without ever denying a device it keeps" {
	requires_ocisbx "runc 1.1's update ignores resources.devices"
	is_v2 && skip "cgroup v1 devices files (v2 replaces an eBPF program atomically)"
	# the process opens /dev/null without pause while the rules change 20 times
	set_args sh -c 'while :; do : </dev/null || echo DENIED >>/dev/shm/log; done'
	create_started
	pid=$(container_pid "$CID")
	with='{"devices": [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 200, "access": "rwm"}]}'
	without='{"devices": [{"allow": false, "access": "rwm"}]}'
	for i in $(seq 10); do
		echo "$with" | runtime update --resources - "$CID"
		grep -qx 'c 10:200 rwm' "$(cg_dir devices "$pid")/devices.list"
		echo "$without" | runtime update --resources - "$CID"
		! grep -q '^c 10:200 ' "$(cg_dir devices "$pid")/devices.list" || false
	done
	grep -qx 'c 1:3 rwm' "$(cg_dir devices "$pid")/devices.list"
	run runtime exec "$CID" sh -c 'cat /dev/shm/log 2>/dev/null; echo end'
	echo "$output"
	[ "$output" = end ]
}

@test "update: a stopped or unknown container is an error" {
	run runtime update --pids-limit 10 "$CID-nope"
	[ "$status" -ne 0 ]
}

@test "events --stats: one stats event with memory and pids" {
	set_args sh -c 'sleep 100 & sleep 100'
	create_started
	wait_for_output 2 30 "container processes" ctr_pid_count
	run runtime events --stats "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | "$PYTHON" -c '
import json, sys
e = json.loads(sys.stdin.read())
assert e["type"] == "stats", e
d = e["data"]
assert d["pids"]["current"] >= 2, d["pids"]
assert d["memory"]["usage"]["usage"] > 0, d["memory"]
assert d["cpu"]["usage"]["total"] > 0, d["cpu"]'
}

@test "events: an OOM kill is reported" {
	config_set linux.resources.memory '{"limit": 16777216, "swap": 16777216}'
	bind_shared /mnt
	# the init allocates once events watches (/mnt/go), not after a guessed delay
	set_args sh -c 'while [ ! -e /mnt/go ]; do sleep 0.1; done; x=$(head -c 100000000 /dev/zero | tr "\0" a); sleep 100'
	create_started
	timeout 120 "$OCI_RUNTIME" --root "$ROOT" events --interval 1s "$CID" >"$TESTDIR/events" 2>&1 3>&- &
	# the first stats event: events is running, its OOM notification already set up
	wait_until 60 grep -q '"type": \{0,1\}"stats"' "$TESTDIR/events"
	touch "$SHARED/go"
	wait_until 60 grep -q '"oom"' "$TESTDIR/events"
	cat "$TESTDIR/events"
	grep -q '"type":"oom"\|"type": "oom"' "$TESTDIR/events"
}

# create_killed_at_mkdir N [OPTION...]: create $CID killed by SIGKILL when it enters its
# Nth mkdir (2): the cgroup directories, made one per hierarchy with mkdir (2), and
# nothing else of ocisbx's create uses that call.
create_killed_at_mkdir() {
	local n=$1
	shift
	run strace -f -o /dev/null -e trace=mkdir -e inject=mkdir:signal=KILL:when="$n" \
		"$OCI_RUNTIME" --root "$ROOT" create -b "$BUNDLE" "$@" "$CID" </dev/null
	[ "$status" -ne 0 ]
}

@test "create killed while it makes its cgroups: delete --force removes them, a new container of that id owns nothing old" {
	requires_ocisbx "kills ocisbx at its 4th cgroup mkdir (runc 1.1 makes cgroups another way and leaves them)"
	requires_tool strace strace
	set_args sleep 100
	create_killed_at_mkdir 4
	[ "$(cgroup_dirs | wc -l)" -eq 3 ] # three hierarchies done
	runtime delete --force "$CID"
	[ -z "$(cgroup_dirs)" ]
	[ -z "$(state_entries)" ]
	# killed again at its first mkdir, then deleted without --force: nothing was made
	create_killed_at_mkdir 1
	[ -z "$(cgroup_dirs)" ]
	runtime delete "$CID"
	[ -z "$(state_entries)" ]
	# the id is clean: a new container's delete leaves nothing
	create_started
	runtime delete --force "$CID"
	[ -z "$(cgroup_dirs)" ]
}

@test "create killed while it makes parent cgroups: delete removes the levels it made, not those that were there" {
	requires_ocisbx "kills ocisbx at a chosen cgroup mkdir (runc 1.1 makes cgroups another way and leaves them)"
	requires_tool strace strace
	config_set linux.cgroupsPath "\"/$CID/pod/c\""
	mkdir -p "/sys/fs/cgroup/memory/$CID"
	set_args sleep 100
	# four mkdir calls per hierarchy (the leaf, ENOENT; then each level, EEXIST for the
	# memory one): killed at the very last, the leaf of the last hierarchy
	create_killed_at_mkdir $((4 * $(all_cg_dirs $$ | wc -l)))
	[ "$(find /sys/fs/cgroup/*/"$CID" -maxdepth 2 -name c | wc -l)" -eq $(($(all_cg_dirs $$ | wc -l) - 1)) ]
	runtime delete --force "$CID"
	[ "$(cgroup_dirs)" = "/sys/fs/cgroup/memory/$CID" ]
	rmdir "/sys/fs/cgroup/memory/$CID"
}

# make_pod: a parent cgroup /$CID-pod made with mkdir alone in every hierarchy (as
# runc's tests and some engines do): a v1 cpuset level made so has no cpus and mems.
make_pod() {
	local d
	for d in $(all_cg_dirs $$); do
		d=${d%"$(cg_rel_of_dir "$d")"}
		mkdir -p "$d/$CID-pod"
	done
	config_set linux.cgroupsPath "\"/$CID-pod/c\""
}

# cg_rel_of_dir DIR: the part of an all_cg_dirs entry after the hierarchy's mount point.
cg_rel_of_dir() {
	local d=$1 m
	for m in /sys/fs/cgroup/unified /sys/fs/cgroup/*; do
		if [ "${d#"$m"/}" != "$d" ] || [ "$d" = "$m" ]; then
			echo "${d#"$m"}"
			return
		fi
	done
}

@test "cgroupsPath: under a pod parent made with mkdir alone (empty v1 cpuset), the container runs" {
	make_pod
	set_args sleep 100
	create_started
	pid=$(container_pid "$CID")
	[ "$(cg_rel memory "$pid")" = "/$CID-pod/c" ]
	if ! is_v2; then
		[ -n "$(cat "/sys/fs/cgroup/cpuset/$CID-pod/c/cpuset.cpus")" ]
		[ -n "$(cat "/sys/fs/cgroup/cpuset/$CID-pod/c/cpuset.mems")" ]
	fi
}

@test "update: a cpu period under a pod parent with its own cpu limit (v1)" {
	is_v2 && skip "cgroup v1 cpu controller"
	make_pod
	echo 50000 >"/sys/fs/cgroup/cpu/$CID-pod/cpu.cfs_quota_us"
	config_set linux.resources.cpu '{"shares": 100, "quota": 500000, "period": 1000000}'
	set_args sleep 100
	create_started
	# above the pod's 50%: refused
	run runtime update --cpu-quota 600000 "$CID"
	[ "$status" -ne 0 ]
	# 30% with a shorter period: the quota goes first, then the period
	runtime update --cpu-period 10000 --cpu-quota 3000 "$CID"
	[ "$(cat "/sys/fs/cgroup/cpu/$CID-pod/c/cpu.cfs_quota_us")" = 3000 ]
	[ "$(cat "/sys/fs/cgroup/cpu/$CID-pod/c/cpu.cfs_period_us")" = 10000 ]
}

# rt_group_sched: the kernel has real-time group scheduling (cpu.rt_runtime_us, v1).
rt_group_sched() { ! is_v2 && [ -e "$(cg_dir cpu $$)/cpu.rt_runtime_us" ]; }

@test "cpu: realtimeRuntime and realtimePeriod on the default cgroup path, on create and update (v1)" {
	rt_group_sched || skip "no real-time group scheduling (cgroup v2, or no CONFIG_RT_GROUP_SCHED)"
	config_set linux.resources.cpu '{"realtimeRuntime": 10000, "realtimePeriod": 1000000}'
	set_args sleep 100
	create_started
	d=$(cg_dir cpu "$(container_pid "$CID")")
	[ "$(cat "$d/cpu.rt_runtime_us")" = 10000 ]
	[ "$(cat "$d/cpu.rt_period_us")" = 1000000 ]
	runtime update --cpu-rt-runtime 30000 "$CID"
	[ "$(cat "$d/cpu.rt_runtime_us")" = 30000 ]
}

# crun's suite asks for SCHED_FIFO/SCHED_RR with no realtimeRuntime: under real-time
# group scheduling a new cpu cgroup has no budget, and the kernel says only EPERM.
@test "cpu: a real-time process.scheduler without the cgroup's budget fails naming realtimeRuntime; runs with it (v1)" {
	requires_ocisbx "runc 1.1 ignores process.scheduler"
	rt_group_sched || skip "no real-time group scheduling (cgroup v2, or no CONFIG_RT_GROUP_SCHED)"
	config_set process.scheduler '{"policy":"SCHED_FIFO","priority":10}'
	ctr_sh 'grep -E "^(policy|prio) " /proc/self/sched | tr -s " "'
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"sched_setattr (process.scheduler): a real-time policy needs CAP_SYS_NICE and, under cgroup v1 real-time group scheduling, a budget in the container's cpu cgroup (.linux.resources.cpu.realtimeRuntime)"* ]]
	config_set linux.resources.cpu '{"realtimeRuntime": 10000}'
	ctr_sh 'grep -E "^(policy|prio) " /proc/self/sched | tr -s " "'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "policy : 1" ]
	[ "${lines[1]}" = "prio : 89" ]
}

@test "cpu: levels the runtime makes above a container get its real-time budget, and give it back (v1)" {
	requires_ocisbx "runc 1.1 gives no budget to the levels it makes above the container"
	rt_group_sched || skip "no real-time group scheduling (cgroup v2, or no CONFIG_RT_GROUP_SCHED)"
	local top
	top="$(cg_dir cpu $$)"
	top="${top%"$(cg_rel cpu $$)"}"
	before=$(cat "$top/ocisbx/cpu.rt_runtime_us" 2>/dev/null || echo 0)
	config_set linux.resources.cpu '{"realtimeRuntime": 20000, "realtimePeriod": 500000}'
	set_args sleep 100
	create_started
	[ "$(cat "$top/ocisbx/$CID/cpu.rt_runtime_us")" = 20000 ]
	[ "$(cat "$top/ocisbx/cpu.rt_runtime_us")" -ge $((before + 40000)) ]
	# a new path, three levels made: each gets the share of 40000 us per second
	config_set linux.cgroupsPath "\"/$CID-rt/a/c\""
	create_container "$CID-2"
	[ "$(cat "$top/$CID-rt/cpu.rt_runtime_us")" = 40000 ]
	[ "$(cat "$top/$CID-rt/a/cpu.rt_runtime_us")" = 40000 ]
	runtime delete --force "$CID-2"
	[ ! -e "$top/$CID-rt" ]
	# the budget returns to the host when the container goes
	runtime delete --force "$CID"
	[ "$(cat "$top/ocisbx/cpu.rt_runtime_us")" = "$before" ]
}

@test "create: a pre-existing frozen cgroup is refused at once, not waited for" {
	local d state
	config_set linux.cgroupsPath "\"/$CID-frozen\""
	if is_v2; then
		d="/sys/fs/cgroup/$CID-frozen" state=1
		mkdir "$d"
		echo 1 >"$d/cgroup.freeze"
	else
		d="/sys/fs/cgroup/freezer/$CID-frozen" state=FROZEN
		mkdir "$d"
		echo FROZEN >"$d/freezer.state"
	fi
	set_args true
	RUNTIME_TIMEOUT=20 run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ] && [ "$status" -ne 124 ]
	[[ "$output" == *"container's cgroup unexpectedly frozen"* ]]
	RUNTIME_TIMEOUT=20 run runtime run -b "$BUNDLE" "$CID-2"
	[ "$status" -ne 0 ] && [ "$status" -ne 124 ]
	[[ "$output" == *"container's cgroup unexpectedly frozen"* ]]
	if is_v2; then echo 0 >"$d/cgroup.freeze"; else echo THAWED >"$d/freezer.state"; fi
	[ -z "$(state_entries)" ]
}

@test "resources: unified on cgroup v1 (or hybrid) is an invalid configuration" {
	is_v2 && skip "cgroup v2 takes unified resources"
	config_set linux.resources.unified '{"memory.min": "131072"}'
	set_args true
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"invalid configuration"* ]]
	[ -z "$(cgroup_dirs)" ]
}

@test "devices: a node from linux.devices is not allowed in the device cgroup when resources.devices denies it" {
	config_set linux.resources.devices '[{"allow": false, "access": "rwm"}]'
	config_add linux.devices '{"path": "/dev/kmsg", "type": "c", "major": 1, "minor": 11}'
	for set in bounding effective permitted; do config_add "process.capabilities.$set" '"CAP_SYSLOG"'; done
	set_args sleep 100
	create_started
	[ -c "/proc/$(container_pid "$CID")/root/dev/kmsg" ]
	run runtime exec "$CID" sh -c 'head -n 1 /dev/kmsg'
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	run runtime exec "$CID" sh -c 'echo x >/dev/kmsg'
	[ "$status" -ne 0 ]
	# an update of other resources leaves the device rules alone
	runtime update --pids-limit 42 "$CID"
	run runtime exec "$CID" sh -c 'head -n 1 /dev/kmsg'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	if ! is_v2; then
		! grep -q '^c 1:11 ' "$(cg_dir devices "$(container_pid "$CID")")/devices.list" || false
	fi
}

@test "devices: the defaults allow null, zero, full, tty, random, urandom, ptmx and pts, not the console" {
	is_v2 && skip "cgroup v1 devices.list (v2: an eBPF program)"
	config_set linux.resources.devices '[{"allow": false, "access": "rwm"}]'
	set_args sleep 100
	create_started
	list=$(cat "$(cg_dir devices "$(container_pid "$CID")")/devices.list")
	echo "$list"
	for d in 'c 1:3' 'c 1:5' 'c 1:7' 'c 5:0' 'c 1:8' 'c 1:9' 'c 5:2' 'c 136:\*'; do
		grep -qx "$d rwm" <<<"$list"
	done
	grep -qx 'c \*:\* m' <<<"$list"
	grep -qx 'b \*:\* m' <<<"$list"
	! grep -q '^c 5:1 ' <<<"$list" || false
	run runtime exec "$CID" sh -c 'echo x >/dev/null && head -c 1 /dev/zero | wc -c && head -c 1 /dev/urandom | wc -c'
	[ "$status" -eq 0 ]
}

@test "update: device rules switch between deny-all and allow-all both ways, with a device denied (v1)" {
	requires_ocisbx "runc 1.1's update ignores resources.devices"
	is_v2 && skip "cgroup v1 devices files (v2 replaces an eBPF program)"
	config_add linux.devices '{"path": "/dev/kmsg", "type": "c", "major": 1, "minor": 11}'
	set_args sleep 100
	create_started
	list="$(cg_dir devices "$(container_pid "$CID")")/devices.list"
	echo '{"devices": [{"allow": true, "access": "rwm"}]}' | runtime update -r - "$CID"
	[ "$(cat "$list")" = "a *:* rwm" ]
	runtime exec "$CID" sh -c 'echo ocisbx-test >/dev/kmsg'
	echo '{"devices": [{"allow": true, "access": "rwm"}, {"allow": false, "type": "c", "major": 1, "minor": 11, "access": "rwm"}]}' |
		runtime update -r - "$CID"
	run runtime exec "$CID" sh -c 'echo ocisbx-test >/dev/kmsg'
	[[ "$output" == *"Operation not permitted"* ]]
	run runtime exec "$CID" sh -c 'echo x >/dev/null'
	[ "$status" -eq 0 ]
	echo '{"devices": [{"allow": false, "access": "rwm"}]}' | runtime update -r - "$CID"
	grep -qx 'c 1:3 rwm' "$list"
	! grep -q '^a ' "$list" || false
	# a sub-cgroup (systemd or nested containers do that): changes within deny-all work,
	# a switch of the default is refused by the kernel, and the error says why
	mkdir "$(dirname "$list")/sub"
	echo '{"devices": [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 200, "access": "rwm"}]}' |
		runtime update -r - "$CID"
	grep -qx 'c 10:200 rwm' "$list"
	run runtime update -r - "$CID" <<<'{"devices": [{"allow": true, "access": "rwm"}]}'
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"sub-cgroups"* ]]
	rmdir "$(dirname "$list")/sub"
}

@test "resources: a negative limit other than -1 is refused, naming the field, on create and update" {
	requires_ocisbx "runc 1.1 takes some (pids.limit -2, cpu quota -5) and lets the kernel refuse others"
	set_args true
	for f in 'memory {"limit": -5}' 'memory {"reservation": -2}' 'memory {"swap": -3}' \
		'memory {"kernel": -7}' 'memory {"kernelTCP": -2}' 'cpu {"quota": -5}' \
		'cpu {"realtimeRuntime": -2}' 'pids {"limit": -2}'; do
		make_config true
		config_set "linux.resources.${f%% *}" "${f#* }"
		run create_container "$CID"
		echo "$output"
		[ "$status" -ne 0 ]
		field=${f#* \{\"}
		[[ "$output" == *".linux.resources.${f%% *}.${field%%\"*}: -"*" is not a limit"* ]]
		[ -z "$(state_entries)" ] && [ -z "$(cgroup_dirs)" ]
	done
	# -1 is unlimited
	config_set linux.resources.memory '{"limit": -1, "reservation": -1, "swap": -1}'
	config_set linux.resources.cpu '{"quota": -1}'
	config_set linux.resources.pids '{"limit": -1}'
	set_args sleep 100
	create_started
	for opt in --cpu-quota --pids-limit --cpu-rt-runtime; do
		run runtime update "$opt" -5 "$CID"
		[ "$status" -ne 0 ]
		[[ "$output" == *"$opt"* ]]
	done
	run runtime update -r - "$CID" <<<'{"memory": {"limit": -5}}'
	[ "$status" -ne 0 ]
	[[ "$output" == *".linux.resources.memory.limit: -5 is not a limit"* ]]
	runtime update --cpu-quota -1 --pids-limit -1 "$CID"
}

# cpu_quota_is QUOTA PERIOD: the container's cfs quota and period (v1 files, v2 cpu.max).
cpu_quota_is() {
	local d
	d=$(cg_dir cpu "$(container_pid "$CID")")
	if is_v2; then
		[ "$(cat "$d/cpu.max")" = "$([ "$1" = -1 ] && echo max || echo "$1") $2" ]
	else
		[ "$(cat "$d/cpu.cfs_quota_us")" = "$1" ] && [ "$(cat "$d/cpu.cfs_period_us")" = "$2" ]
	fi
}

@test "update: cpuset cpus, a large cpu period, quota changes in every order (as runc's tests)" {
	config_set linux.cgroupsPath "\"/$CID-p/c\""
	config_set linux.resources.cpu '{"shares": 100, "quota": 500000, "period": 1000000}'
	config_set linux.resources.memory '{"limit": 33554432, "reservation": 25165824}'
	set_args sleep 100
	create_started
	cpuset=$(cg_dir cpuset "$(container_pid "$CID")")
	if [ "$(nproc)" -gt 1 ]; then
		runtime update --cpuset-cpus 1 "$CID"
		[ "$(cat "$cpuset/cpuset.cpus")" = 1 ]
	fi
	runtime update --cpu-period 900000 "$CID"
	cpu_quota_is 500000 900000
	runtime update --cpu-quota 600000 "$CID"
	cpu_quota_is 600000 900000
	runtime update --cpu-quota -1 "$CID"
	cpu_quota_is -1 900000
	runtime update -r - "$CID" <<<'{"cpu": {"shares": 100, "quota": 500000, "period": 1000000, "cpus": "0"}}'
	cpu_quota_is 500000 1000000
	[ "$(cat "$cpuset/cpuset.cpus")" = 0 ]
	runtime update --cpu-period 900000 --cpu-quota 600000 --cpu-share 200 --memory 67108864 \
		--memory-reservation 33554432 --pids-limit 10 "$CID"
	cpu_quota_is 600000 900000
	runtime update --cpu-quota -1 --cpu-period 100000 "$CID"
	cpu_quota_is -1 100000
}

@test "delete --force: sub-cgroups the container made in v1 hierarchies go too" {
	is_v2 && skip "cgroup v1 hierarchies"
	config_add linux.namespaces '{"type": "cgroup"}'
	config_set 'mounts[destination=/sys/fs/cgroup].options' '["nosuid", "noexec", "nodev", "relatime", "rw"]'
	config_set linux.cgroupsPath "\"/$CID-p/c\""
	set_args sleep 100
	create_started
	runtime exec -d "$CID" sleep 1000
	pid=$(runtime exec "$CID" ps -o pid,args | awk '$2 == "sleep" && $3 == 1000 { print $1 }')
	[ -n "$pid" ]
	runtime exec "$CID" sh -c "for s in memory freezer pids; do mkdir /sys/fs/cgroup/\$s/sub && echo $pid >/sys/fs/cgroup/\$s/sub/tasks; done"
	for s in memory freezer pids; do [ -d "/sys/fs/cgroup/$s/$CID-p/c/sub" ]; done
	runtime delete --force "$CID"
	run runtime state "$CID"
	[ "$status" -ne 0 ]
	[ -z "$(cgroup_dirs | grep "/$CID-p/c")" ] # runc leaves the parent it made
}

@test "events: an OOM kill in the container is reported as {\"type\":\"oom\",\"id\":ID}" {
	config_set linux.resources.memory '{"limit": 33554432, "swap": 33554432}'
	set_args sleep 1000
	create_started
	"$OCI_RUNTIME" --root "$ROOT" events "$CID" >"$TESTDIR/events" 2>"$TESTDIR/events.err" &
	for _ in $(seq 100); do grep -q "\"$CID\"" "$TESTDIR/events" && break; sleep 0.1; done
	runtime exec -d "$CID" sh -c 'x=$(dd if=/dev/urandom ibs=5120k 2>/dev/null)'
	for _ in $(seq 300); do grep -q '"oom"' "$TESTDIR/events" && break; sleep 0.1; done
	runtime delete --force "$CID"
	wait
	cat "$TESTDIR/events.err"
	grep -qx "{\"type\":\"oom\",\"id\":\"$CID\"}" "$TESTDIR/events"
}

@test "create: empty cgroups left at the default path by an earlier container of that id go with the new one" {
	requires_ocisbx "the default cgroup path /ocisbx/<id> is ocisbx's"
	local d
	for d in $(all_cg_dirs $$); do
		d=${d%"$(cg_rel_of_dir "$d")"}
		mkdir -p "$d/ocisbx/$CID"
	done
	set_args sleep 100
	create_started
	runtime delete --force "$CID"
	[ -z "$(cgroup_dirs)" ]
}

# as_older_ocisbx: rewrite the state of container $CID as an older ocisbx kept it: the
# cgroups as "ocisbx-cgroups 1" text (state.json's "cgroup" string and the record), with
# its "fake 0" line.
as_older_ocisbx() {
	"$PYTHON" - "$ROOT/$CID" <<-'PY'
	import json, sys
	d = sys.argv[1]
	def text(cg):
	    s = "ocisbx-cgroups 1\nlayout %s\nfake 0\nrootless %d\n" % (cg["layout"], 1 if cg.get("rootless") else 0)
	    if cg.get("systemdUnit"):
	        s += "systemd %s\t%s\n" % (cg["systemdUnit"], cg.get("systemdSlice", ""))
	    for h in cg["hierarchies"]:
	        s += "h %d %s\t%s\t%d\t%s\n" % (h["created"], h["name"], h["controllers"], 1 if h["v2"] else 0, h["path"])
	    return s
	st = json.load(open(d + "/state.json"))
	st["cgroup"] = text(st.pop("cgroups"))
	json.dump(st, open(d + "/state.json", "w"))
	rec = text(json.load(open(d + "/cgroups")))
	open(d + "/cgroups", "w").write(rec)
	PY
}

@test "upgrade: a container an older ocisbx created (its cgroups kept as text) is paused, listed, joined, killed and deleted" {
	requires_ocisbx "ocisbx's own state.json"
	set_args sh -c 'sleep 100 & exec sleep 101'
	create_started
	pid=$(container_pid "$CID")
	mapfile -t dirs < <(all_cg_dirs "$pid")
	[ "${#dirs[@]}" -ge 1 ]
	as_older_ocisbx
	grep -q 'ocisbx-cgroups 1' "$ROOT/$CID/state.json"
	grep -q 'ocisbx-cgroups 1' "$ROOT/$CID/cgroups"
	runtime pause "$CID"
	[ "$(container_status "$CID")" = paused ]
	runtime resume "$CID"
	[ "$(container_status "$CID")" = running ]
	run runtime ps --format json "$CID"
	[ "$status" -eq 0 ]
	echo "$output" | "$PYTHON" -c "import json,sys; p=json.load(sys.stdin); assert $pid in p and len(p) == 2, p"
	# an exec joins the same cgroups
	runtime exec -d --pid-file "$TESTDIR/exec.pid" "$CID" sleep 102
	[ "$(cat "/proc/$(cat "$TESTDIR/exec.pid")/cgroup")" = "$(cat "/proc/$pid/cgroup")" ]
	runtime kill --all "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID"
	all_gone "${dirs[@]}"
}

@test "upgrade: delete --force of an older ocisbx's container whose state.json is lost finds its cgroups by the text record" {
	requires_ocisbx "ocisbx's own state dir"
	set_args sleep 100
	create_started
	pid=$(container_pid "$CID")
	mapfile -t dirs < <(all_cg_dirs "$pid")
	as_older_ocisbx
	# state.json emptied: delete finds the cgroups through the record alone
	: >"$ROOT/$CID/state.json"
	runtime delete --force "$CID"
	wait_pid_gone "$pid"
	all_gone "${dirs[@]}"
	[ -z "$(state_entries)" ]
}
