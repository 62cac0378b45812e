#!/usr/bin/env bats
# `events` and `events --stats` print runc's JSON (runc's types/events.go): the keys,
# nesting and omitted zero values tools written for runc's events expect.  The shape is
# checked by helpers/runc_events.py; one test compares with runc's own output for the
# same config.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

# resources the stats reflect: memory and swap limits, pids limit, cpuset
limits() {
	config_set linux.resources '{"memory": {"limit": 67108864, "swap": 134217728}, "pids": {"limit": 100},
		"cpu": {"cpus": "0", "mems": "0"}}'
}

# stats_of ID: one `events --stats` line into $TESTDIR/ID.events (and on stdout).
stats_of() { runtime events --stats "$1" | tee "$TESTDIR/$1.events"; }

# check_events FILE: every line is a stats or oom event in runc's shape.
check_events() { "$PYTHON" "$HELPERS/runc_events.py" check "$1"; }

# stat_field FILE EXPR: a value of the first event's data (python EXPR over d).
stat_field() {
	"$PYTHON" -c 'import json, sys; d = json.loads(open(sys.argv[1]).readline())["data"]; print(json.dumps(eval(sys.argv[2])))' "$1" "$2"
}

@test "events --stats: one event in runc's shape, with the container's limits" {
	limits
	set_args sleep 1000
	create_container "$CID"
	runtime start "$CID"
	run stats_of "$CID"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	check_events "$TESTDIR/$CID.events"
	local f="$TESTDIR/$CID.events"
	[ "$(stat_field "$f" 'd["memory"]["usage"]["limit"]')" = 67108864 ]
	[ "$(stat_field "$f" 'd["pids"]["limit"]')" = 100 ]
	[ "$(stat_field "$f" 'd["pids"]["current"]')" = 1 ]
	[ "$(stat_field "$f" 'len(d["memory"]["raw"]) > 0')" = true ]
	[ "$(stat_field "$f" 'd["intel_rdt"]')" = "{}" ]
	[ "$(stat_field "$f" 'd["network_interfaces"]')" = null ]
	if [ -d /sys/fs/cgroup/cpuset ]; then # v1 (and hybrid): cpuset stats and mem+swap
		[ "$(stat_field "$f" 'd["cpuset"]["cpus"]')" = "[0]" ]
		[ "$(stat_field "$f" 'd["cpuset"]["mems"]')" = "[0]" ]
		[ "$(stat_field "$f" 'd["memory"]["swap"]["limit"]')" = 134217728 ]
	fi
}

@test "events --stats: blkio lists per device and operation, as runc reads them" {
	local dev major minor parent
	dev=$(stat -c '%D' "$TESTDIR") # hex major:minor of the test dir's file system
	major=$((0x$dev >> 8)) minor=$((0x$dev & 0xff))
	[ "$major" -ne 0 ] || skip "the test dir is not on a block device"
	# a partition's throttle rule goes on its disk
	parent=$(readlink -f "/sys/dev/block/$major:$minor")
	[ -e "$parent/partition" ] && IFS=: read -r major minor <"$(dirname "$parent")/dev"
	[ -d /sys/fs/cgroup/blkio ] || skip "no v1 blkio hierarchy (v2's io.stat is read by the unit tests)"
	# v1 counts a disk's I/O per cgroup once a throttle rule is set on it
	config_set linux.resources "{\"blockIO\": {\"throttleWriteBpsDevice\": [{\"major\": $major, \"minor\": $minor, \"rate\": 1073741824}]}}"
	bind_shared /mnt
	set_args sleep 1000
	create_container "$CID"
	runtime start "$CID"
	runtime exec "$CID" dd if=/dev/zero of=/mnt/f bs=64k count=16 oflag=direct 2>/dev/null
	stats_of "$CID"
	check_events "$TESTDIR/$CID.events"
	run stat_field "$TESTDIR/$CID.events" "[e for e in d['blkio']['ioServiceBytesRecursive'] if e.get('op') == 'Write' and e.get('major') == $major and e.get('minor', 0) == $minor]"
	[[ "$output" == *'"value": 1048576'* ]]
	run stat_field "$TESTDIR/$CID.events" "[e for e in d['blkio']['ioServicedRecursive'] if e.get('op') == 'Write' and e.get('major') == $major]"
	[[ "$output" == *'"value": 16'* ]]
}

@test "events --stats: the same keys and config-derived values as runc's for the same config" {
	requires_ocisbx "compares ocisbx's output with runc's"
	requires_tool runc runc
	limits
	set_args sleep 1000
	create_container "$CID"
	runtime start "$CID"
	stats_of "$CID" >/dev/null
	# the same bundle under runc, in a state dir and cgroup of its own
	config_set linux.cgroupsPath "\"/$CID-runc\""
	mkdir "$TESTDIR/runc-root"
	timeout 30 runc --root "$TESTDIR/runc-root" run -d -b "$BUNDLE" "$CID-runc" </dev/null >/dev/null 2>&1
	timeout 30 runc --root "$TESTDIR/runc-root" events --stats "$CID-runc" >"$TESTDIR/runc.events"
	timeout 30 runc --root "$TESTDIR/runc-root" delete -f "$CID-runc"
	check_events "$TESTDIR/runc.events" # the checker accepts runc's own output
	run "$PYTHON" "$HELPERS/runc_events.py" compare "$TESTDIR/$CID.events" "$TESTDIR/runc.events"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "events --stats: hugetlb has one entry per page size of the machine, no reservation counters" {
	[ -d /sys/kernel/mm/hugepages ] || skip "the kernel has no huge pages (/sys/kernel/mm/hugepages)"
	set_args sleep 1000
	create_container "$CID"
	runtime start "$CID"
	stats_of "$CID" >/dev/null
	local keys sizes
	keys=$(stat_field "$TESTDIR/$CID.events" 'sorted(d["hugetlb"])')
	# runc names them as its GetHugePageSize: hugepages-2048kB -> 2MB (1024-based units)
	sizes=$(ls /sys/kernel/mm/hugepages | "$PYTHON" -c '
import json, sys
def name(kb):
    for unit in ("KB", "MB", "GB", "TB"):
        if kb < 1024 or kb % 1024:
            return "%d%s" % (kb, unit)
        kb //= 1024
    return "%dPB" % kb
print(json.dumps(sorted(name(int(l.strip()[len("hugepages-"):-2])) for l in sys.stdin if l.strip())))')
	echo "hugetlb keys: $keys; page sizes: $sizes"
	[ "$keys" != "[]" ] || skip "no hugetlb controller for the container here (runc's fs manager reads only a v1 hugetlb hierarchy)"
	[ "$keys" = "$sizes" ]
}

@test "events: a stats event every interval, each in runc's shape" {
	set_args sleep 1000
	create_container "$CID"
	runtime start "$CID"
	runtime events --interval 200ms "$CID" >"$TESTDIR/events" 2>&1 &
	local ev=$! n=0
	for _ in $(seq 100); do
		n=$(wc -l <"$TESTDIR/events")
		[ "$n" -ge 3 ] && break
		sleep 0.1
	done
	kill "$ev"
	wait "$ev" || true
	[ "$n" -ge 3 ]
	check_events "$TESTDIR/events"
}
