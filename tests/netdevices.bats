#!/usr/bin/env bats
# linux.netDevices (runtime-spec 1.3, config-linux.md "Network Devices"): host network
# interfaces moved into the container's network namespace, renamed, their permanent
# global addresses kept, set up; gone with the namespace (a virtual device is destroyed
# by the kernel, a physical one returns to the host: only veth pairs are tested here).

load helpers/common

setup_file() { common_setup_file; }

setup() {
	common_setup
	requires_ocisbx "runc 1.1 predates linux.netDevices (runtime-spec 1.3): it ignores them"
	requires_tool ip iproute2
	# a veth pair per test, named after it (15 bytes at most): VA moves, VB stays
	VA="ocvA$(($$ % 100000))t$BATS_TEST_NUMBER"
	VB="ocvB$(($$ % 100000))t$BATS_TEST_NUMBER"
	ip link add "$VA" type veth peer name "$VB"
}

teardown() {
	common_teardown
	ip link del "$VA" 2>/dev/null || true
	ip link del "$VB" 2>/dev/null || true
}

# link_flags LINE: the <FLAGS> of `ip link show`'s first LINE as ",F1,F2,".
link_flags() { sed -n '1s/^[^<]*<\([^>]*\)>.*/,\1,/p' <<<"$1"; }

# host_has DEV: the host's network namespace has DEV.
host_has() { ip link show "$1" >/dev/null 2>&1; }

# gone_from_host DEV: until DEV is not on the host (a namespace is freed by a kernel
# worker, after its last process).
gone_from_host() {
	local tries=100
	while host_has "$1" && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	! host_has "$1" || { echo "$1 is still on the host" >&2; return 1; }
}

@test "netDevices: moved, renamed, up, with its permanent global addresses alone" {
	ip addr add 10.77.1.2/24 dev "$VA"
	ip -6 addr add fd77::2/64 dev "$VA" nodad
	# not kept: a link-scope address, one with a lifetime (not permanent)
	ip addr add 169.254.77.2/16 scope link dev "$VA"
	ip -6 addr add fd78::2/64 dev "$VA" nodad valid_lft 1000 preferred_lft 1000
	config_set linux.netDevices "{\"$VA\": {\"name\": \"ctr0\"}}"
	ctr_sh 'ip link show ctr0; ip addr show ctr0'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$(link_flags "${lines[0]}")" == *,UP,* ]]
	[[ "$output" == *"inet 10.77.1.2/24"* ]]
	[[ "$output" == *"inet6 fd77::2/64"* ]]
	[[ "$output" != *"169.254.77.2"* ]]
	[[ "$output" != *"fd78::2"* ]]
}

@test "netDevices: without a name the device keeps its host name" {
	config_set linux.netDevices "{\"$VA\": {}}"
	ctr_sh "ip link show $VA"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *": $VA@"* ]]
}

@test "netDevices: a name ending in %d is numbered by the kernel" {
	ip link add "${VA}x" type veth peer name "${VB}x"
	config_set linux.netDevices "{\"$VA\": {\"name\": \"ctr%d\"}, \"${VA}x\": {\"name\": \"ctr%d\"}}"
	ctr_sh 'ip -o link show | cut -d: -f2 | cut -d@ -f1 | tr -d " " | sort | tr "\n" " "'
	ip link del "${VA}x" 2>/dev/null || true
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ctr0 ctr1 lo " ]
}

@test "netDevices: the device leaves the host while the container runs; a veth is gone after delete" {
	config_set linux.netDevices "{\"$VA\": {\"name\": \"ctr0\"}}"
	start_ctr
	! host_has "$VA"
	host_has "$VB"
	run nsenter -t "$INIT_PID" -n ip link show ctr0
	echo "$output"
	[ "$status" -eq 0 ]
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID"
	# the spec: nothing moved back; the kernel destroys a virtual device with its
	# namespace, and a veth's peer with it
	gone_from_host "$VB"
	! host_has "$VA"
}

@test "netDevices: a device the host does not have fails the create, naming it, nothing left" {
	config_set linux.netDevices '{"ocvnosuchdev0": {}}'
	snapshot_host
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .linux.netDevices.ocvnosuchdev0: no such network device on the host"* ]]
	assert_nothing_left
}

@test "netDevices: a name the container's namespace has already fails, the device stays on the host" {
	config_set linux.netDevices "{\"$VA\": {\"name\": \"lo\"}}"
	snapshot_host
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .linux.netDevices.$VA: \`lo\` exists in the container's network namespace"* ]]
	assert_nothing_left
	host_has "$VA"
}

@test "netDevices: two devices with one name in the container fail the create before anything moves" {
	ip link add "${VA}x" type veth peer name "${VB}x"
	config_set linux.netDevices "{\"$VA\": {\"name\": \"ctr0\"}, \"${VA}x\": {\"name\": \"ctr0\"}}"
	run create_container "$CID"
	host_has "${VA}x" && ip link del "${VA}x"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .linux.netDevices.${VA}x: \`ctr0\` is also the container's name of \`$VA\`"* ]]
	host_has "$VA"
}

@test "netDevices: an invalid interface name is refused, naming the entry" {
	config_set linux.netDevices "{\"$VA\": {\"name\": \"a/b\"}}"
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .linux.netDevices.$VA.name: \`a/b\`: not a valid interface name"* ]]
	host_has "$VA"
}

@test "netDevices: a container in the host's network namespace is refused" {
	config_del 'linux.namespaces[type=network]'
	config_set linux.netDevices "{\"$VA\": {}}"
	snapshot_host
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .linux.netDevices: the container has no network namespace of its own"* ]]
	assert_nothing_left
	host_has "$VA"
}

@test "netDevices: a joined network namespace that is the runtime's own is refused" {
	config_set 'linux.namespaces[type=network]' '{"type": "network", "path": "/proc/self/ns/net"}'
	config_set linux.netDevices "{\"$VA\": {}}"
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .linux.netDevices: the network namespace the container joins is the runtime's own"* ]]
	host_has "$VA"
}

@test "netDevices: moved into a new network namespace of a new user namespace" {
	use_userns
	ip addr add 10.77.2.2/24 dev "$VA"
	config_set linux.netDevices "{\"$VA\": {\"name\": \"ctr0\"}}"
	ctr_sh 'ip addr show ctr0'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$(link_flags "${lines[0]}")" == *,UP,* ]]
	[[ "$output" == *"inet 10.77.2.2/24"* ]]
}

@test "netDevices: moved before the createRuntime hooks run" {
	config_set linux.netDevices "{\"$VA\": {\"name\": \"ctr0\"}}"
	cat >"$TESTDIR/hook.sh" <<-EOF
		#!/bin/sh
		pid=\$(sed 's/.*"pid": *\([0-9]*\).*/\1/')
		nsenter -t "\$pid" -n ip link show ctr0 >"$TESTDIR/hook.out" 2>&1
	EOF
	chmod +x "$TESTDIR/hook.sh"
	config_set hooks "{\"createRuntime\": [{\"path\": \"$TESTDIR/hook.sh\"}]}"
	ctr_sh true
	echo "$output"
	cat "$TESTDIR/hook.out"
	[ "$status" -eq 0 ]
	grep -q ': ctr0@' "$TESTDIR/hook.out"
}
