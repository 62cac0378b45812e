#!/usr/bin/env bats
# Namespaces: what a new one starts with, the runtime's own where the config has none,
# joining one by path.

load helpers/common

ctr() {
	set_args sh -c "$1"
	run runtime run -b "$BUNDLE" "$CID" </dev/null
}

# --- network -------------------------------------------------------------------------

@test "network: a new network namespace has lo up" {
	ctr 'ip link show lo'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"<LOOPBACK,UP,LOWER_UP>"* ]]
}

@test "network: lo is up in a new network namespace of a new user namespace" {
	use_userns
	ctr 'ip link show lo'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"<LOOPBACK,UP,LOWER_UP>"* ]]
}
