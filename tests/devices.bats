#!/usr/bin/env bats
# /dev: default devices and links on a tmpfs /dev, linux.devices.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }

@test "default devices: type, major:minor and mode" {
	# busybox stat: %t/%T are the major/minor in hex
	ctr_sh 'for d in null zero full random urandom tty; do stat -c "%n %F %t:%T %a %u:%g" /dev/$d; done'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/dev/null character special file 1:3 666 0:0" ]
	[ "${lines[1]}" = "/dev/zero character special file 1:5 666 0:0" ]
	[ "${lines[2]}" = "/dev/full character special file 1:7 666 0:0" ]
	[ "${lines[3]}" = "/dev/random character special file 1:8 666 0:0" ]
	[ "${lines[4]}" = "/dev/urandom character special file 1:9 666 0:0" ]
	[ "${lines[5]}" = "/dev/tty character special file 5:0 666 0:0" ]
}

@test "default devices work" {
	ctr_sh 'echo discard >/dev/null && echo null-ok
		echo "zero=$(head -c 4 /dev/zero | od -An -tx1 | tr -d " ")"
		echo "urandom=$(head -c 16 /dev/urandom | wc -c)"
		(echo x >/dev/full) 2>/dev/null || echo full-ok'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *null-ok* ]]
	[[ "$output" == *zero=00000000* ]]
	[[ "$output" == *urandom=16* ]]
	[[ "$output" == *full-ok* ]]
}

@test "default links: fd stdin stdout stderr ptmx (core only with /proc/kcore)" {
	ctr_sh 'for l in fd stdin stdout stderr ptmx; do echo "$l -> $(readlink /dev/$l)"; done; [ -e /dev/core ] || [ -L /dev/core ] && echo "core -> $(readlink /dev/core)" || echo no-core'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "fd -> /proc/self/fd" ]
	[ "${lines[1]}" = "stdin -> /proc/self/fd/0" ]
	[ "${lines[2]}" = "stdout -> /proc/self/fd/1" ]
	[ "${lines[3]}" = "stderr -> /proc/self/fd/2" ]
	[ "${lines[4]}" = "ptmx -> pts/ptmx" ]
	if [ -e /proc/kcore ]; then
		[ "${lines[5]}" = "core -> /proc/kcore" ]
	else
		[ "${lines[5]}" = no-core ]
	fi
}

@test "/dev is the config's tmpfs, /dev/pts a new devpts instance" {
	ctr_sh "awk '\$5 == \"/dev\" || \$5 == \"/dev/pts\" {print \$5, \$(NF-2)}' /proc/self/mountinfo"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/dev tmpfs" ]
	[ "${lines[1]}" = "/dev/pts devpts" ]
}

@test "read-only /dev: the devices and links are made, then /dev is read-only" {
	config_add 'mounts[destination=/dev].options' '"ro"'
	config_add linux.devices '{"path":"/dev/mychar","type":"c","major":1,"minor":5}'
	ctr_sh 'grep "^tmpfs /dev " /proc/mounts; echo x >/dev/null && echo null-ok; ls /dev/mychar; readlink /dev/stdin; touch /dev/new 2>/dev/null || echo ro-ok'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "tmpfs /dev tmpfs ro,"* ]]
	[ "${lines[1]}" = null-ok ]
	[ "${lines[2]}" = /dev/mychar ]
	[ "${lines[3]}" = /proc/self/fd/0 ]
	[[ "$output" == *ro-ok* ]]
}

@test "linux.devices: char, block and fifo nodes with fileMode, uid and gid" {
	config_add linux.devices '{"path":"/dev/mychar","type":"c","major":1,"minor":5,"fileMode":416,"uid":1000,"gid":1001}'
	config_add linux.devices '{"path":"/dev/myblock","type":"b","major":7,"minor":200,"fileMode":384,"uid":0,"gid":6}'
	config_add linux.devices '{"path":"/dev/myfifo","type":"p","fileMode":420}'
	config_add linux.devices '{"path":"/dev/nested/dir/node","type":"u","major":1,"minor":7}'
	ctr_sh 'for d in mychar myblock myfifo nested/dir/node; do stat -c "%n %F %t:%T %a %u:%g" /dev/$d; done'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/dev/mychar character special file 1:5 640 1000:1001" ]
	[ "${lines[1]}" = "/dev/myblock block special file 7:c8 600 0:6" ]
	[[ "${lines[2]}" == "/dev/myfifo fifo 0:0 644 0:0" ]]
	[ "${lines[3]}" = "/dev/nested/dir/node character special file 1:7 666 0:0" ]
	# nothing of this landed in the bundle: /dev is a tmpfs
	[ ! -e "$BUNDLE/rootfs/dev/mychar" ]
}

@test "linux.devices: mode and owner as given in a set-group-ID directory with a default ACL" {
	# the directory would hand its group and its ACL's mode to a new node
	mkdir -p "$BUNDLE/rootfs/sgid"
	chown 0:5 "$BUNDLE/rootfs/sgid"
	chmod 2775 "$BUNDLE/rootfs/sgid"
	requires_tool setfacl acl
	have_acl=0
	if setfacl -d -m u::rw,g::-,o::- "$BUNDLE/rootfs/sgid" 2>/dev/null; then
		have_acl=1
	fi
	config_add linux.devices '{"path":"/sgid/node","type":"c","major":1,"minor":3,"fileMode":438,"uid":0,"gid":0}'
	ctr_sh 'stat -c "%a %u:%g" /sgid/node'
	echo "$output (default ACL: $have_acl)"
	[ "$status" -eq 0 ]
	# runc 1.1 leaves the mode the default ACL gave (600)
	if is_ocisbx || [ "$have_acl" = 0 ]; then
		[ "$output" = "666 0:0" ]
	else
		[[ "$output" == *" 0:0" ]]
	fi
}

@test "linux.devices: a device through a rootfs symlink stays inside the rootfs" {
	mkdir -p "$TESTDIR/hostdir"
	config_del 'mounts[destination=/dev]'
	ln -s "$TESTDIR/hostdir" "$BUNDLE/rootfs/dev/evil"
	config_add linux.devices '{"path":"/dev/evil/node","type":"c","major":1,"minor":3}'
	ctr_sh 'true'
	[ "$status" -eq 0 ]
	[ ! -e "$TESTDIR/hostdir/node" ]
	[ -c "$BUNDLE/rootfs/$TESTDIR/hostdir/node" ]
}

@test "linux.devices: a path where the rootfs holds a regular file is refused, naming it; a device there is fine" {
	requires_ocisbx "runc 1.1 skips the entry silently (no device, no error)"
	echo data >"$BUNDLE/rootfs/mydev"
	config_add linux.devices '{"path":"/mydev","type":"c","major":1,"minor":3}'
	snapshot_host
	set_args sh -c 'echo RAN'
	run run_container "$CID"
	echo "status $status: $output"
	[ "$status" -ne 0 ]
	[[ "$output" != *RAN* ]]
	[[ "$output" == *'config.json: .linux.devices: `/mydev` exists in the rootfs and is no device'* ]]
	[ "$(cat "$BUNDLE/rootfs/mydev")" = data ]
	assert_nothing_left
	# an entry for a default device (/dev/null, 1:3) is that device: taken
	make_config
	config_add linux.devices '{"path":"/dev/null","type":"c","major":1,"minor":3}'
	set_args sh -c 'stat -c "%t:%T" /dev/null'
	run run_container "$CID"
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "$output" = "1:3" ]
}

@test "linux.devices: a relative path is refused, naming the field" {
	requires_ocisbx "error text"
	config_add linux.devices '{"path":"dev/rel","type":"c","major":1,"minor":3}'
	ctr_sh 'true'
	[ "$status" -ne 0 ]
	[[ "$output" == *'.linux.devices[0].path: "dev/rel" is not an absolute path'* ]]
	[ -z "$(state_entries)" ]
}

# config-linux.md: major and minor are REQUIRED unless the type is "p"; a missing one is
# not 0 (runc 1.1 takes it as 0 and makes the node 0:0)
@test "linux.devices: a missing major or minor is refused, naming the field; a fifo needs neither" {
	requires_ocisbx "runc 1.1 takes a missing major or minor as 0"
	config_add linux.devices '{"path":"/dev/myfifo","type":"p"}'
	config_add linux.devices '{"path":"/dev/nomajor","type":"c","minor":3}'
	snapshot_host
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *'config.json: .linux.devices[1].major: missing required field (the device type is "c")'* ]]
	assert_nothing_left

	config_set linux.devices '[{"path":"/dev/myfifo","type":"p"}, {"path":"/dev/nominor","type":"b","major":7}]'
	run create_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *'config.json: .linux.devices[1].minor: missing required field (the device type is "b")'* ]]
	assert_nothing_left

	config_set linux.devices '[{"path":"/dev/myfifo","type":"p"}]'
	ctr_sh 'test -p /dev/myfifo'
	[ "$status" -eq 0 ]
}

# --- the host's device nodes are never changed -----------------------------------

HOST_NODES="null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0"

# host_nodes: owner, mode and ctime of the host's /dev nodes that containers get.
host_nodes() {
	local n
	for n in $HOST_NODES; do stat -c '%n %u:%g %a %z' "/dev/${n%%:*}"; done
}

# devices_with_owners: a linux.devices entry for each of them with uid, gid and fileMode
# that differ from the host's (and the device cgroup rules to use them).
devices_with_owners() {
	local n name maj min
	for n in $HOST_NODES; do
		IFS=: read -r name maj min <<<"$n"
		config_add linux.devices "{\"path\":\"/dev/$name\",\"type\":\"c\",\"major\":$maj,\"minor\":$min,\"fileMode\":384,\"uid\":1000,\"gid\":1000}"
		config_add linux.resources.devices "{\"allow\":true,\"type\":\"c\",\"major\":$maj,\"minor\":$min,\"access\":\"rwm\"}"
	done
}

# Another runtime under test may change the host's nodes (crun 1.8 gives /dev/null to a
# user namespace's root): give them back their owner and mode, whatever the test found.
teardown() {
	local path owner mode rest
	if [ -f "$TESTDIR/host-nodes" ]; then
		while read -r path owner mode rest; do
			[ "$(stat -c '%u:%g %a' "$path")" = "$owner $mode" ] && continue
			chown "$owner" "$path"
			chmod "$mode" "$path"
		done <"$TESTDIR/host-nodes"
	fi
	common_teardown
}

# dev_from_host [nodes]: /dev bound from the host (rbind), or each node bound alone
dev_from_host() {
	local n
	if [ "${1:-}" = nodes ]; then
		for n in $HOST_NODES; do
			config_add mounts "{\"destination\":\"/dev/${n%%:*}\",\"type\":\"bind\",\"source\":\"/dev/${n%%:*}\",\"options\":[\"bind\"]}"
		done
	else
		config_del 'mounts[destination=/dev]'
		config_add mounts '{"destination":"/dev","type":"bind","source":"/dev","options":["rbind","nosuid"]}'
	fi
}

# create, start, exec, delete a container, then: the host's nodes are as they were.
# Other programs on the host may change a node meanwhile (another runtime's tests chown
# /dev/null and give it back, a new ctime): a changed node is tried again, up to 3
# cycles; a runtime that changes it fails every cycle.
assert_host_nodes_kept() {
	local before after try
	set_args sleep 1000
	for try in 1 2 3; do
		before=$(host_nodes)
		[ -f "$TESTDIR/host-nodes" ] || echo "$before" >"$TESTDIR/host-nodes"
		create_container "$CID"
		runtime start "$CID"
		wait_for_status "$CID" running
		runtime exec "$CID" ls -l /dev/null /dev/zero /dev/tty >/dev/null
		runtime delete --force "$CID"
		after=$(host_nodes)
		echo "cycle $try: before:"$'\n'"$before"$'\n'"after:"$'\n'"$after"
		[ "$before" = "$after" ] && return 0
	done
	return 1
}

@test "host device nodes: linux.devices entries with uid, gid and fileMode for /dev/null and friends leave the host's alone" {
	devices_with_owners
	assert_host_nodes_kept
}

@test "host device nodes: the same in a user namespace" {
	use_userns
	devices_with_owners
	assert_host_nodes_kept
}

@test "host device nodes: in a user namespace the nodes bound from the host are nosuid, noexec (as crun)" {
	requires_ocisbx "runc 1.1 binds them with the host mount's flags only"
	use_userns
	ctr_sh 'grep -E " /dev/(null|zero|full|tty|random|urandom) " /proc/self/mountinfo'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 6 ]
	for l in "${lines[@]}"; do
		opts=,$(cut -d' ' -f6 <<<"$l"),
		[[ "$opts" == *,nosuid,* && "$opts" == *,noexec,* ]]
	done
}

@test "host device nodes: /dev bound from the host, linux.devices entries for its nodes" {
	dev_from_host
	devices_with_owners
	assert_host_nodes_kept
}

@test "host device nodes: /dev bound from the host, in a user namespace" {
	use_userns
	dev_from_host
	devices_with_owners
	assert_host_nodes_kept
}

@test "host device nodes: each node bound from the host, with linux.devices entries, with and without a user namespace" {
	dev_from_host nodes
	devices_with_owners
	assert_host_nodes_kept
	runtime delete --force "$CID" 2>/dev/null || true
	use_userns
	assert_host_nodes_kept
}

@test "linux.devices in a user namespace: a node the host lacks, with the entry's fileMode, uid and gid" {
	requires_ocisbx "runc 1.1 binds the host's node at the same path: there is none"
	use_userns
	# 1:5 is the zero device; the host has no /dev/ocisbx-zero
	[ ! -e /dev/ocisbx-zero ]
	config_add linux.devices '{"path":"/dev/ocisbx-zero","type":"c","major":1,"minor":5,"fileMode":388,"uid":10,"gid":11}'
	config_add linux.devices '{"path":"/dev/sub/ocisbx-blk","type":"b","major":7,"minor":200,"fileMode":384}'
	ctr_sh 'stat -c "%n %F %t:%T %a %u:%g" /dev/ocisbx-zero /dev/sub/ocisbx-blk
		echo "zero=$(head -c 4 /dev/ocisbx-zero | od -An -tx1 | tr -d " ")"
		grep " /dev/ocisbx-zero " /proc/self/mountinfo | cut -d" " -f6'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/dev/ocisbx-zero character special file 1:5 604 10:11" ]
	[ "${lines[1]}" = "/dev/sub/ocisbx-blk block special file 7:c8 600 0:0" ]
	[ "${lines[2]}" = "zero=00000000" ]
	opts=,${lines[3]},
	[[ "$opts" == *,nosuid,* && "$opts" == *,noexec,* ]]
	[ ! -e /dev/ocisbx-zero ]
}

@test "linux.devices in a user namespace: an owner not mapped there is refused, naming the field" {
	requires_ocisbx "runc 1.1 binds the host's node, ignoring uid and gid"
	use_userns
	config_add linux.devices '{"path":"/dev/ocisbx-zero","type":"c","major":1,"minor":5,"uid":0,"gid":70000}'
	snapshot_host
	set_args sh -c 'echo RAN'
	run run_container "$CID"
	echo "status $status: $output"
	[ "$status" -ne 0 ]
	[[ "$output" != *RAN* ]]
	[[ "$output" == *'config.json: .linux.devices[0].gid: 70000 is not mapped in the user namespace'* ]]
	assert_nothing_left
}
