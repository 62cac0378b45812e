#!/usr/bin/env bats
# Container escapes, the weaker ones (issue 25): a state.json that names another
# process, sysctls written into the host's network namespace, an image's passwd that
# never ends, a /dev/console that leads into procfs.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

# point_state_at PID: the container's state now names PID as its init, without the
# start time that would tell it apart (ocisbx's state.json or runc's, which crun shares).
point_state_at() {
	"$PYTHON" -c 'import json, sys
p, pid = sys.argv[1], int(sys.argv[2]); d = json.load(open(p))
if "init_process_pid" in d:
    d["init_process_pid"] = pid; d.pop("init_process_start", None)
else:
    d["pid"] = pid; d.pop("startTime", None)
json.dump(d, open(p, "w"))' "$ROOT/$CID/state.json" "$1"
}

@test "escape: kill of a state.json without startTime naming another process signals nothing" {
	local host
	start_ctr
	[ -f "$ROOT/$CID/state.json" ] || skip "$(basename "$OCI_RUNTIME") keeps no state.json under --root"
	sleep 1000 &
	host=$!
	point_state_at "$host"
	run runtime kill "$CID" KILL
	echo "$output"
	# the host process is not the container's: it lives on, and the kill says why
	pid_alive "$host"
	[ "$status" -ne 0 ]
	if is_ocisbx; then
		[[ "$output" == *"$ROOT/$CID/state.json"*"startTime"* ]]
	fi
	# the container's init is found through the init record and goes with the container
	run runtime delete --force "$CID"
	echo "$output"
	pid_alive "$host"
	if is_ocisbx; then
		[ "$status" -eq 0 ]
		wait_pid_gone "$INIT_PID"
		[ -z "$(state_entries)" ]
	fi
	kill "$host"
}

# sysctl_host_netns KEY VALUE: a container that joins the runtime's own network namespace
# (by the path of this shell's, a host process's) with linux.sysctl KEY=VALUE.
sysctl_host_netns() {
	config_set 'linux.namespaces[type=network]' "{\"type\":\"network\",\"path\":\"/proc/$$/ns/net\"}"
	config_set linux.sysctl "{\"$1\":\"$2\"}"
}

@test "escape: a net.* sysctl into a joined network namespace that is the host's is refused" {
	local file=/proc/sys/net/ipv4/tcp_keepalive_probes host_value want now
	host_value=$(cat "$file")
	want=$((host_value == 9 ? 8 : 9))
	sysctl_host_netns net.ipv4.tcp_keepalive_probes "$want"
	snapshot_host
	ctr_sh 'cat /proc/sys/net/ipv4/tcp_keepalive_probes'
	echo "$output"
	# the host's value back first, whatever the runtime did
	now=$(cat "$file")
	echo "$host_value" >"$file"
	[ "$now" = "$host_value" ]
	[ "$status" -ne 0 ]
	if is_ocisbx; then
		[[ "$output" == *'config.json: .linux.sysctl: "net.ipv4.tcp_keepalive_probes"'*"host"*"/proc/$$/ns/net"* ]]
	fi
	assert_nothing_left
}

# passwd_case HOW: the image's /etc/passwd made HOW (fifo: a FIFO, /etc/group too;
# zero: a symlink to /dev/zero); then `run` and `exec` of a process without HOME, which
# the runtime looks up in that passwd, must end (bounded by RUNTIME_TIMEOUT) with the
# default HOME, and leave nothing.
passwd_case() {
	local etc="$BUNDLE/rootfs/etc"
	rm -f "$etc/passwd" "$etc/group"
	case "$1" in
	fifo) mkfifo "$etc/passwd" "$etc/group" ;;
	zero) ln -s /dev/zero "$etc/passwd" ;;
	esac
	snapshot_host
	RUNTIME_TIMEOUT=15 ctr_sh 'echo "home=$HOME"'
	echo "$1: run: $status: $output"
	[ "$status" -eq 0 ]
	grep -qx "home=/" <<<"$output"
	assert_nothing_left

	RUNTIME_TIMEOUT=15 start_ctr
	RUNTIME_TIMEOUT=15 run runtime exec "$CID" sh -c 'echo "home=$HOME"'
	echo "$1: exec: $status: $output"
	[ "$status" -eq 0 ]
	grep -qx "home=/" <<<"$output"
	runtime delete --force "$CID"
	assert_nothing_left
}

@test "escape: an image's /etc/passwd that is a FIFO does not hold run or exec" {
	requires_ocisbx "runc 1.1 waits on the FIFO for ever"
	passwd_case fifo
}

@test "escape: an image's /etc/passwd that is a symlink to /dev/zero does not hold run or exec" {
	requires_ocisbx "runc 1.1 fails it: \"unable to find user 0: bufio.Scanner: token too long\""
	passwd_case zero
}

@test "escape: an image's /dev/console that is a symlink into /proc/sys gets no console bound over a sysctl" {
	requires_ocisbx "runc 1.1 binds the pty over the container's /proc/sys/kernel/shmmax and writes the value into the pty"
	local key=kernel/shmmax host_value
	host_value=$(cat "/proc/sys/$key")
	# the image's own /dev (no tmpfs over it), whose console leads to a sysctl that the
	# runtime then writes: over a pty, its read of the value would wait for ever
	config_del 'mounts[destination=/dev]'
	ln -s "/proc/sys/$key" "$BUNDLE/rootfs/dev/console"
	config_set linux.sysctl '{"kernel.shmmax":"123456789"}'
	config_set process.terminal true
	SOCK="$TESTDIR/console.sock"
	start_recvtty
	snapshot_host
	RUNTIME_TIMEOUT=15 run create_container "$CID" --console-socket "$SOCK"
	echo "$status: $output"
	[ "$status" -ne 0 ]
	# refused, not killed by the timeout
	[ "$status" -ne 124 ]
	[ "$status" -ne 137 ]
	[[ "$output" == *"/dev/console\` in the rootfs is a symbolic link"* ]]
	[ "$(cat "/proc/sys/$key")" = "$host_value" ]
	assert_nothing_left
}

@test "escape: an image's /dev/console that is a character device still gets the console bound over it" {
	requires_ocisbx "runc 1.1 opens the image's node, which its device cgroup refuses (EPERM)"
	config_del 'mounts[destination=/dev]'
	rm -f "$BUNDLE/rootfs/dev/console"
	mknod -m 600 "$BUNDLE/rootfs/dev/console" c 5 1
	config_set process.terminal true
	set_args sh -c 'stat -c "%t:%T" /dev/console "$(tty)"'
	SOCK="$TESTDIR/console.sock"
	start_recvtty
	create_container "$CID" --console-socket "$SOCK"
	runtime start "$CID"
	wait_recvtty
	run tr -d '\r' <"$TESTDIR/tty.out"
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "${lines[1]}" ]
	[[ "${lines[0]}" == 88:* ]] # the pty slave (major 136), not the image's 5:1
}
