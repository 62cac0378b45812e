#!/usr/bin/env bats
# linux.intelRdt (config-linux.md "IntelRdt", src/core/intelrdt/intelrdt.h).  This host
# has no resctrl (no Intel/AMD RDT: no resctrl in /proc/filesystems), and a resctrl
# cannot be faked for the binary without faking the kernel: what these tests reach is
# the spec's MUST error without one, and the features document.  The CLOS, schemata,
# tasks, MON groups and their removal are tested on a fake resctrl tree through the
# resctrl seam by tests/unit/test_intelrdt.c.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

resctrl_mounted() { awk '$0 ~ / - resctrl / {f=1} END {exit !f}' /proc/self/mountinfo; }

@test "intelRdt: without a resctrl mount the create fails, nothing left" {
	resctrl_mounted && skip "this host has resctrl mounted"
	config_set linux.intelRdt '{"closID": "ocit-clos", "l3CacheSchema": "L3:0=f"}'
	snapshot_host
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	# runc 1.1: "intelRdt is specified in config, but Intel RDT is not supported or enabled"
	if is_ocisbx; then
		[[ "$output" == *"config.json: .linux.intelRdt: no resctrl file system is mounted in the runtime's mount namespace (/sys/fs/resctrl"* ]]
	fi
	assert_nothing_left
}

@test "intelRdt: an empty object is refused too (the MUST holds for any intelRdt)" {
	requires_ocisbx "runc 1.1 refuses intelRdt without resctrl only when it has a schema"
	resctrl_mounted && skip "this host has resctrl mounted"
	config_set linux.intelRdt '{}'
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	if is_ocisbx; then
		[[ "$output" == *"config.json: .linux.intelRdt: no resctrl file system is mounted"* ]]
	fi
}

@test "intelRdt: features says enabled, schemata and monitoring" {
	requires_ocisbx "runc 1.1's features predates runtime-spec 1.3's intelRdt.schemata and .monitoring"
	run runtime features
	[ "$status" -eq 0 ]
	got=$("$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["linux"]["intelRdt"])' <<<"$output")
	echo "$got"
	[ "$got" = "{'enabled': True, 'schemata': True, 'monitoring': True}" ]
}

# What delete does with the record a create with intelRdt leaves (<root>/<id>/intelrdt:
# the MON group, then the CLOS, it made): on this host, without resctrl, the record is
# planted by hand, naming plain empty directories.
@test "intelRdt: delete removes the groups the container's intelrdt record names" {
	requires_ocisbx "the intelrdt record is ocisbx's state dir"
	run create_container "$CID"
	[ "$status" -eq 0 ]
	mkdir -p "$TESTDIR/rdt/clos/mon_groups/$CID" "$TESTDIR/rdt/made"
	printf '%s\n%s\n' "$TESTDIR/rdt/clos/mon_groups/$CID" "$TESTDIR/rdt/made" >"$ROOT/$CID/intelrdt"
	run runtime delete --force "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e "$TESTDIR/rdt/clos/mon_groups/$CID" ]
	[ ! -e "$TESTDIR/rdt/made" ]
	[ -d "$TESTDIR/rdt/clos/mon_groups" ]
	[ ! -e "$ROOT/$CID" ]
}

@test "intelRdt: a record delete cannot follow keeps the state dir, and says why" {
	requires_ocisbx "the intelrdt record is ocisbx's state dir"
	run create_container "$CID"
	[ "$status" -eq 0 ]
	printf 'relative/path\n' >"$ROOT/$CID/intelrdt"
	run runtime delete --force "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"intelRdt record: \`relative/path\` is not a resctrl group's path"* ]]
	[ -d "$ROOT/$CID" ]
	rm "$ROOT/$CID/intelrdt"
	runtime delete --force "$CID"
	[ ! -e "$ROOT/$CID" ]
}
