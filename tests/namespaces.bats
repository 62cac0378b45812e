#!/usr/bin/env bats
# Namespaces: what a new one starts with, the runtime's own where the config has none,
# joining one by path.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

# --- network -------------------------------------------------------------------------

@test "network: a new network namespace has lo up" {
	ctr_sh 'ip link show lo'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"<LOOPBACK,UP,LOWER_UP>"* ]]
}

@test "network: lo is up in a new network namespace of a new user namespace" {
	use_userns
	ctr_sh 'ip link show lo'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"<LOOPBACK,UP,LOWER_UP>"* ]]
}

# --- the runtime's namespaces ------------------------------------------------------------

# no_namespaces: a config with no namespace at all (each is the runtime's), nor what
# needs one of its own (hostname; masked and read-only paths, which runc refuses then).
no_namespaces() {
	config_del linux.namespaces
	config_del hostname
	config_del linux.maskedPaths
	config_del linux.readonlyPaths
	config_del 'mounts[destination=/sys/fs/cgroup]'
}

@test "namespaces left out of the config are the runtime's, the mount namespace included" {
	no_namespaces
	set_args sh -c 'cat /etc/passwd >/dev/null && echo in-rootfs; sleep 1000'
	snapshot_host
	create_container "$CID"
	pid=$(container_pid "$CID")
	for ns in ipc mnt net pid uts cgroup; do
		[ "$(readlink "/proc/$pid/ns/$ns")" = "$(readlink "/proc/self/ns/$ns")" ] || {
			echo "$ns: $(readlink "/proc/$pid/ns/$ns") is not the runtime's $(readlink "/proc/self/ns/$ns")"
			return 1
		}
	done
	# the container is in its rootfs, with its mounts
	[ "$(stat -L -c %i "/proc/$pid/root/bin/busybox")" = "$(stat -c %i "$BUNDLE/rootfs/bin/busybox")" ]
	[ -e "/proc/$pid/root/dev/null" ]
	runtime start "$CID"
	wait_for_file "$IO/$CID.out"
	[ "$(cat "$IO/$CID.out")" = in-rootfs ]
	if is_ocisbx; then # runc 1.1: "nsexec-1: ns paths are empty"
		runtime exec "$CID" ls /bin/busybox >"$TESTDIR/exec.out"
		[ "$(cat "$TESTDIR/exec.out")" = /bin/busybox ]
	fi
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID"
	# runc and crun leave the container's mounts in the runtime's mount namespace
	if is_ocisbx; then assert_nothing_left; fi
}

@test "without a mount namespace nothing of the container's root is mounted in the runtime's" {
	requires_ocisbx "runc and crun mount the container's root and mounts in the runtime's mount namespace"
	no_namespaces
	set_args sleep 1000
	snapshot_host
	create_container "$CID"
	test_mounts | diff "$TESTDIR/mounts.before" -
	! grep -q -F "$BUNDLE/rootfs" /proc/self/mountinfo
}

@test "without a mount namespace masked and read-only paths still apply" {
	requires_ocisbx "runc refuses maskedPaths and readonlyPaths without a mount namespace"
	config_del linux.namespaces
	config_add linux.namespaces '{"type":"pid"}'
	config_del hostname
	ctr_sh 'wc -c </proc/timer_list; echo 1 2>/dev/null >/proc/sys/kernel/ns_last_pid || echo sys-ro'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = sys-ro ]
}

@test "a mount namespace joined by path: the container is in it, its root built there" {
	unshare --mount sleep 1000 &
	holder=$!
	# unshare has entered its namespace once its mnt link differs from ours
	ns_entered() { [ "$(readlink "/proc/$holder/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ]; }
	wait_until 30 ns_entered
	want=$(readlink "/proc/$holder/ns/mnt")
	[ "$want" != "$(readlink /proc/self/ns/mnt)" ]
	config_set 'linux.namespaces[type=mount]' "{\"type\":\"mount\",\"path\":\"/proc/$holder/ns/mnt\"}"
	before=$(grep -c -F "$TESTDIR" "/proc/$holder/mountinfo" || true)
	ctr_sh 'readlink /proc/self/ns/mnt; ls /bin/busybox'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$want" ]
	[ "${lines[1]}" = /bin/busybox ]
	if is_ocisbx; then
		[ "$(grep -c -F "$TESTDIR" "/proc/$holder/mountinfo" || true)" = "$before" ]
	fi
}

# uidMappings and gidMappings are both OPTIONAL (runtime-spec config-linux.md): without
# them the caller's own uid/gid is mapped to 0, one id each, as crun does (crun's own
# suite runs its mount tests that way); runc refuses such a config.
@test "a user namespace without uidMappings/gidMappings maps the caller's ids to 0" {
	requires_ocisbx "runc 1.1 refuses a user namespace without mappings; crun maps the caller"
	config_add linux.namespaces '{"type":"user"}'
	config_del linux.uidMappings
	config_del linux.gidMappings
	ctr_sh 'id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map | tr -s " " | sed "s/^ //"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = 0 ]
	[ "${lines[2]}" = "0 $(id -u) 1" ]
	[ "${lines[3]}" = "0 $(id -g) 1" ]
	# one given: it stays, the other is the caller's
	config_set linux.gidMappings '[{"containerID":0,"hostID":0,"size":2000}]'
	ctr_sh 'cat /proc/self/uid_map /proc/self/gid_map | tr -s " " | sed "s/^ //"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "0 $(id -u) 1" ]
	[ "${lines[1]}" = "0 0 2000" ]
	# a process user outside the one id: refused, naming the field
	config_set process.user '{"uid":1000,"gid":0}'
	snapshot_host
	ctr_sh true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .process.user.uid: 1000 is not mapped: without .linux.uidMappings only the caller's own uid is, to 0"* ]]
	assert_nothing_left
}

@test "a user namespace without a mount namespace of its own is refused, saying why" {
	config_del 'linux.namespaces[type=mount]'
	config_add linux.namespaces '{"type":"user"}'
	config_set linux.uidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	config_set linux.gidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	snapshot_host
	ctr_sh true
	echo "$output"
	[ "$status" -ne 0 ]
	if is_ocisbx; then
		[[ "$output" == *'config.json: .linux.namespaces: a user namespace of the container needs a mount namespace of its own'* ]]
		assert_nothing_left
	fi
}

@test "a namespace path of another type is refused, nothing left" {
	config_del 'linux.namespaces[type=ipc]'
	config_add linux.namespaces '{"type":"ipc","path":"/proc/self/ns/net"}'
	set_args true
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	if is_ocisbx; then [[ $output == *'.linux.namespaces['*'].path: `/proc/self/ns/net` is a net namespace, not ipc'* ]]; fi
	run runtime state "$CID"
	[ "$status" -ne 0 ]
}
