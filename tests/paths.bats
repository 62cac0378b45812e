#!/usr/bin/env bats
# linux.maskedPaths, linux.readonlyPaths and linux.sysctl (written under /proc/sys).

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

@test "masked file: reads as /dev/null" {
	echo top-secret >"$BUNDLE/rootfs/etc/secret"
	config_add linux.maskedPaths '"/etc/secret"'
	ctr_sh 'cat /etc/secret; echo "[$(stat -c "%F %t:%T" /etc/secret)]"; cat /proc/timer_list | wc -c'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "[character special file 1:3]" ]
	[ "${lines[1]}" = 0 ]
	[[ "$output" != *top-secret* ]]
	# the file itself is untouched
	[ "$(cat "$BUNDLE/rootfs/etc/secret")" = top-secret ]
}

@test "masked directory: an empty read-only tmpfs" {
	mkdir -p "$BUNDLE/rootfs/etc/secretdir"
	echo x >"$BUNDLE/rootfs/etc/secretdir/file"
	config_add linux.maskedPaths '"/etc/secretdir"'
	ctr_sh 'ls -A /etc/secretdir | wc -l; touch /etc/secretdir/new || echo ro-ok; ls -A /sys/firmware | wc -l'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[[ "$output" == *ro-ok* ]]
	[ "${lines[-1]}" = 0 ]
}

@test "readonly path: writes fail, the rest stays writable" {
	config_set root.readonly false
	mkdir -p "$BUNDLE/rootfs/data"
	config_add linux.readonlyPaths '"/data"'
	ctr_sh 'touch /data/x || echo data-ro; touch /other && echo other-rw; echo 1 >/proc/sys/kernel/ns_last_pid || echo procsys-ro'
	[ "$status" -eq 0 ]
	[[ "$output" == *data-ro* ]]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *other-rw* ]]
	[[ "$output" == *procsys-ro* ]]
	[ ! -e "$BUNDLE/rootfs/data/x" ]
}

@test "missing masked and readonly paths are skipped silently" {
	config_add linux.maskedPaths '"/does/not/exist"'
	config_add linux.readonlyPaths '"/nope/nothing"'
	ctr_sh 'echo ran'
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	[ ! -e "$BUNDLE/rootfs/does" ]
	[ ! -e "$BUNDLE/rootfs/nope" ]
}

@test "masked path through a symlink to a host path stays in the container" {
	mkdir -p "$TESTDIR/hostdir"
	echo host-data >"$TESTDIR/hostdir/file"
	mkdir -p "$BUNDLE/rootfs/$TESTDIR/hostdir"
	echo ctr-data >"$BUNDLE/rootfs/$TESTDIR/hostdir/file"
	ln -s "$TESTDIR/hostdir" "$BUNDLE/rootfs/etc/link"
	config_add linux.maskedPaths '"/etc/link/file"'
	ctr_sh "cat /etc/link/file; cat $TESTDIR/hostdir/file"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(cat "$TESTDIR/hostdir/file")" = host-data ]
	! grep -q " $TESTDIR/hostdir" /proc/self/mountinfo
}

@test "masking never uses a /dev/null the container placed" {
	requires_ocisbx "refuses a fake /dev/null"
	config_del 'mounts[destination=/dev]'
	config_set linux.maskedPaths '["/etc/passwd"]'
	config_set root.readonly false
	echo not-null >"$BUNDLE/rootfs/dev/null"
	ctr_sh 'cat /etc/passwd'
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not the null device"* ]]
}

# --- sysctl -----------------------------------------------------------------------

@test "sysctl: kernel.shmmax in the container's ipc namespace" {
	host_value=$(cat /proc/sys/kernel/shmmax)
	config_set linux.sysctl '{"kernel.shmmax":"123456789","kernel.sem":"250 32000 32 128"}'
	ctr_sh 'cat /proc/sys/kernel/shmmax /proc/sys/kernel/sem'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 123456789 ]
	[ "$(echo "${lines[1]}" | tr -s ' \t' ' ')" = "250 32000 32 128" ]
	[ "$(cat /proc/sys/kernel/shmmax)" = "$host_value" ]
}

@test "sysctl: net.* in the container's network namespace" {
	config_set linux.sysctl '{"net.ipv4.ip_forward":"1","net.ipv4.ping_group_range":"0 0"}'
	host_value=$(cat /proc/sys/net/ipv4/ping_group_range)
	ctr_sh 'cat /proc/sys/net/ipv4/ip_forward /proc/sys/net/ipv4/ping_group_range'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1 ]
	[ "$(echo "${lines[1]}" | tr -s ' \t' ' ')" = "0 0" ]
	[ "$(cat /proc/sys/net/ipv4/ping_group_range)" = "$host_value" ]
}

@test "sysctl: a non-namespaced key is refused before anything is created" {
	requires_ocisbx "error text"
	config_set linux.sysctl '{"vm.swappiness":"10"}'
	host_value=$(cat /proc/sys/vm/swappiness)
	ctr_sh 'true'
	[ "$status" -ne 0 ]
	[[ "$output" == *'config.json: .linux.sysctl: "vm.swappiness" is not a namespaced sysctl'* ]]
	[ "$(cat /proc/sys/vm/swappiness)" = "$host_value" ]
	[ -z "$(state_entries)" ]
	[ -z "$(cgroup_dirs)" ]
}

@test "sysctl: net.* without a network namespace is refused" {
	config_del 'linux.namespaces[type=network]'
	config_set linux.sysctl '{"net.ipv4.ip_forward":"1"}'
	ctr_sh 'true'
	[ "$status" -ne 0 ]
	if is_ocisbx; then
		[[ "$output" == *'"net.ipv4.ip_forward" needs the network namespace'* ]]
	fi
}

# uts_sysctl FIELD: kernel.FIELD beside .FIELD: a different value is refused naming
# both; the same value passes (crun's "domainname with syctl"); alone, the sysctl sets it
uts_sysctl() {
	local field=$1 value
	snapshot_host
	for value in '"other"' '"same"' ''; do
		config_set linux.sysctl "{\"kernel.$field\":\"same\"}"
		if [ -n "$value" ]; then config_set "$field" "$value"; else config_del "$field"; fi
		ctr_sh "cat /proc/sys/kernel/$field"
		echo "$field ${value:-unset}: status $status: $output"
		if [ "$value" = '"other"' ] && ! is_ocisbx && [ "$field" = domainname ]; then
			[ "$status" -eq 0 ] # runc 1.1 lets kernel.domainname through: the sysctl wins
		elif [ "$value" = '"other"' ]; then
			[ "$status" -ne 0 ]
			[[ "$output" == *kernel.$field*$field* ]]
			if is_ocisbx; then
				[[ "$output" == *"config.json: .linux.sysctl: \"kernel.$field\" (\"same\") conflicts with .$field (\"other\")"* ]]
			fi
		elif is_ocisbx || [ "$field" = domainname ]; then
			[ "$status" -eq 0 ]
			[ "$output" = same ]
		else
			# runc 1.1 refuses kernel.hostname whatever the values, .hostname set or not
			[ "$status" -ne 0 ]
		fi
		assert_nothing_left
	done
}

@test "sysctl: kernel.hostname beside .hostname: the same value passes, another is refused naming both" {
	uts_sysctl hostname
}

@test "sysctl: kernel.domainname beside .domainname: the same value passes, another is refused naming both" {
	uts_sysctl domainname
}

@test "masked and readonly paths that are not absolute are refused, naming the field" {
	requires_ocisbx "runc 1.1 accepts a relative path"
	local field
	for field in maskedPaths readonlyPaths; do
		make_config
		config_add "linux.$field" '"etc/hostname"'
		set_args true
		run run_container "$CID"
		echo "$field: status $status: $output"
		[ "$status" -ne 0 ]
		[[ $output == *"config.json: .linux.$field["*']: "etc/hostname" is not an absolute path'* ]]
		[ -z "$(state_entries)" ]
	done
}
