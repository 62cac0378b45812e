#!/usr/bin/env bats
# linux.memoryPolicy (runtime-spec 1.3, config-linux.md "Memory policy"): the init's
# NUMA policy (set_mempolicy), which its process inherits; /proc/self/numa_maps shows
# it on each mapping ("bind:0", "interleave:0", "prefer:0", ...).  Node 0 is the one
# every NUMA kernel has.

load helpers/common

setup_file() { common_setup_file; }

setup() {
	common_setup
	requires_ocisbx "runc 1.1 predates linux.memoryPolicy (runtime-spec 1.3): it ignores it"
	[ -e /proc/self/numa_maps ] || skip "the kernel has no NUMA (CONFIG_NUMA): no /proc/self/numa_maps"
	[ -d /sys/devices/system/node/node0 ] || skip "no NUMA node 0"
}

# policy_shows JSON WANT: a container with linux.memoryPolicy JSON; the policy of its
# process's first mapping is WANT.
policy_shows() {
	config_set linux.memoryPolicy "$1"
	ctr_sh 'head -n 1 /proc/self/numa_maps'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | cut -d' ' -f2)" = "$2" ]
}

@test "memoryPolicy: MPOL_BIND to node 0" {
	policy_shows '{"mode": "MPOL_BIND", "nodes": "0"}' bind:0
}

@test "memoryPolicy: MPOL_INTERLEAVE, MPOL_WEIGHTED_INTERLEAVE, MPOL_PREFERRED, MPOL_PREFERRED_MANY" {
	policy_shows '{"mode": "MPOL_INTERLEAVE", "nodes": "0"}' interleave:0
	policy_shows '{"mode": "MPOL_PREFERRED", "nodes": "0"}' prefer:0
	policy_shows '{"mode": "MPOL_PREFERRED_MANY", "nodes": "0"}' "prefer"
	[[ "$output" == *"prefer (many):0"* ]]
	policy_shows '{"mode": "MPOL_WEIGHTED_INTERLEAVE", "nodes": "0"}' weighted
	[[ "$output" == *"weighted interleave:0"* ]]
}

@test "memoryPolicy: MPOL_LOCAL, MPOL_DEFAULT" {
	policy_shows '{"mode": "MPOL_LOCAL"}' local
	policy_shows '{"mode": "MPOL_DEFAULT"}' default
}

@test "memoryPolicy: the flags" {
	policy_shows '{"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_STATIC_NODES"]}' bind=static:0
	policy_shows '{"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_RELATIVE_NODES"]}' bind=relative:0
	policy_shows '{"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_NUMA_BALANCING"]}' bind=balancing:0
}

@test "memoryPolicy: a child of the container's process inherits the policy" {
	config_set linux.memoryPolicy '{"mode": "MPOL_INTERLEAVE", "nodes": "0"}'
	ctr_sh 'sh -c "head -n 1 /proc/self/numa_maps"'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" interleave:0 "* ]]
}

# expect_refused JSON MESSAGE: create fails with MESSAGE, nothing left.
expect_refused() {
	config_set linux.memoryPolicy "$1"
	snapshot_host
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$2"* ]]
	assert_nothing_left
}

@test "memoryPolicy: a node that does not exist is refused, naming it" {
	expect_refused '{"mode": "MPOL_BIND", "nodes": "0,1023"}' \
		"config.json: .linux.memoryPolicy.nodes: node 1023 does not exist (no \`/sys/devices/system/node/node1023\`)"
	expect_refused '{"mode": "MPOL_BIND", "nodes": "5000"}' "config.json: .linux.memoryPolicy.nodes: node 5000: beyond 1023"
	expect_refused '{"mode": "MPOL_BIND", "nodes": "0-"}' "config.json: .linux.memoryPolicy.nodes: \`0-\`: want a list"
}

@test "memoryPolicy: combinations set_mempolicy refuses are refused, naming the field" {
	expect_refused '{"mode": "MPOL_BIND"}' "config.json: .linux.memoryPolicy.nodes: MPOL_BIND needs at least one node"
	expect_refused '{"mode": "MPOL_LOCAL", "nodes": "0"}' "config.json: .linux.memoryPolicy.nodes: MPOL_LOCAL takes no nodes"
	expect_refused '{"mode": "MPOL_DEFAULT", "flags": ["MPOL_F_STATIC_NODES"]}' \
		"config.json: .linux.memoryPolicy.flags: MPOL_DEFAULT takes no node flags"
	expect_refused '{"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_STATIC_NODES", "MPOL_F_RELATIVE_NODES"]}' \
		"config.json: .linux.memoryPolicy.flags: MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES exclude each other"
	expect_refused '{"mode": "MPOL_INTERLEAVE", "nodes": "0", "flags": ["MPOL_F_NUMA_BALANCING"]}' \
		"config.json: .linux.memoryPolicy.flags: MPOL_F_NUMA_BALANCING goes with MPOL_BIND or MPOL_PREFERRED_MANY"
	expect_refused '{"nodes": "0"}' "config.json: .linux.memoryPolicy.mode: required"
}

@test "memoryPolicy: a policy without its (REQUIRED) mode is refused, naming it" {
	expect_refused '{"nodes": "0"}' "config.json: .linux.memoryPolicy.mode: required"
}
