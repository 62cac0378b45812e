#!/usr/bin/env bats
# Container escapes that the runtime must close: /proc/self/exe overwrite
# (CVE-2019-5736), leaked fds and a cwd through them (CVE-2024-21626), mount without
# CAP_SYS_ADMIN; and the LSM labels.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

# A private copy of the runtime: an attack that works corrupts only the copy.
private_runtime() {
	RT="$TESTDIR/rt-$(basename "$OCI_RUNTIME")"
	cp "$OCI_RUNTIME" "$RT"
	RT_SUM=$(sha256sum <"$RT")
}
rt() { OCIT_TAG="$CID" timeout --foreground -k 5 30 "$RT" --root "$ROOT" "$@"; }

# exe_unwritable PID: PID's executable can be written through no path: a sealed memfd
# copy, or a file on a read-only mount (ocisbx's private read-only view of its binary).
exe_unwritable() {
	local exe
	exe=$(readlink "/proc/$1/exe")
	echo "exe of $1: $exe"
	[[ "$exe" == /memfd:ocisbx* ]] && return 0
	"$PYTHON" -c 'import os, sys; sys.exit(0 if os.statvfs(sys.argv[1]).f_flag & os.ST_RDONLY else 1)' "/proc/$1/exe"
}

@test "security: no mount without CAP_SYS_ADMIN" {
	set_args sh -c 'mount -t tmpfs none /mnt && echo MOUNTED; mount --bind /dev/shm /mnt && echo MOUNTED; umount /proc && echo UNMOUNTED; true'
	run run_container "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *MOUNTED* ]]
	[[ "$output" == *"mount:"*"ermission denied"* || "$output" == *"mount:"*"not permitted"* ]]
}

# SCANNER: a container process that looks for processes of its pid namespace running
# something else than busybox, opens their exe, and writes through the fd later.
# (busybox sh: a failed `exec 3<FILE` ends the shell in some contexts, e.g. under `if`)
SCANNER='
	while :; do
		for p in /proc/[0-9]*; do
			case "$p" in /proc/1 | /proc/$$) continue ;; esac
			e=$(readlink "$p/exe" 2>/dev/null) || continue
			case "$e" in */busybox | "") continue ;; esac
			# in a subshell: a failed `exec 3<` ends the shell that runs it
			(
				exec 3<"$p/exe" || exit
				echo "opened $e" >>/dev/shm/log
				sleep 0.1
				echo "#!/bin/sh" 2>/dev/null >>/proc/self/fd/3 && echo "WROTE $e" >>/dev/shm/log
			) 2>/dev/null
		done
	done'

@test "security: a program whose interpreter is /proc/self/exe never runs the runtime (CVE-2019-5736)" {
	private_runtime
	printf '#!/proc/self/exe\n' >"$BUNDLE/rootfs/evil"
	chmod 755 "$BUNDLE/rootfs/evil"
	set_args sh -c "$SCANNER"
	rt create -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>"$TESTDIR/err" || { cat "$TESTDIR/err"; false; }
	rt start "$CID"
	for _ in $(seq 10); do
		run rt exec "$CID" /evil
		echo "exec /evil: $status: $output"
		[ "$status" -ne 0 ]
	done
	if is_ocisbx; then [[ "$output" == *"ocisbx-dmz: not a program to run"* ]]; fi
	sleep 0.3
	# the scanner is still at work
	[ "$(rt state "$CID" | json_field status)" = running ]
	run rt exec "$CID" sh -c 'cat /dev/shm/log 2>/dev/null; echo end'
	echo "$output"
	[[ "$output" == *end* ]]
	[[ "$output" != *WROTE* ]]
	[ "$(sha256sum <"$RT")" = "$RT_SUM" ]
}

@test "security: a seccomp filter that refuses execveat still starts the container, still protected" {
	# ocisbx's exec stub is run with execveat: refused here, so ocisbx re-executes
	# itself from a sealed copy of its binary instead (dmz_stub.h).  Any runtime must start
	# the container and apply the filter to its process.
	private_runtime
	config_set linux.seccomp '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["execveat"],"action":"SCMP_ACT_ERRNO","errnoRet":38}]}'
	set_args sleep 100
	rt create -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>"$TESTDIR/err" || { cat "$TESTDIR/err"; false; }
	pid=$(rt state "$CID" | json_field pid)
	exe=$(readlink "/proc/$pid/exe")
	echo "init exe while created: $exe"
	[ "$exe" != "$RT" ]
	if is_ocisbx; then exe_unwritable "$pid"; fi
	rt start "$CID"
	wait_for_status "$CID" running
	grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status"
	run rt exec "$CID" sh -c 'echo exec-ok'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = exec-ok ]
	[ "$(sha256sum <"$RT")" = "$RT_SUM" ]
}

@test "security: the fallback re-exec keeps run's signal mask" {
	# The same filter as above: ocisbx re-executes itself while `run` already blocks
	# the signals it forwards; the container's process must not inherit that mask.
	# (Read from the host: a shell in the container would clear its own mask.)
	config_set linux.seccomp '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["execveat"],"action":"SCMP_ACT_ERRNO","errnoRet":38}]}'
	set_args sleep 30
	run_container "$CID" </dev/null >/dev/null 2>&1 &
	rt=$!
	wait_for_status "$CID" running
	pid=$(runtime state "$CID" | json_field pid)
	grep -E '^Sig(Blk|Ign)' "/proc/$pid/status"
	blk=$(awk '/^SigBlk:/ {print $2}' "/proc/$pid/status")
	kill "$pid"
	wait "$rt" || true
	[ "$blk" = 0000000000000000 ]
}

@test "security: a container cannot overwrite the runtime through /proc/PID/exe" {
	private_runtime
	# The CVE-2019-5736 flow, deterministic: A waits in `created`, its pid 1 still
	# the runtime.  B shares A's pid namespace, opens /proc/1/exe, waits until A's
	# pid 1 has exec'd its process (the runtime binary is no longer busy), then
	# writes through the fd it kept.
	set_args sleep 100
	rt create -b "$BUNDLE" "$CID-a" </dev/null >/dev/null 2>"$TESTDIR/err" || { cat "$TESTDIR/err"; false; }
	pid=$(rt state "$CID-a" | json_field pid)

	mkdir "$TESTDIR/b"
	cp -a "$BUNDLE/rootfs" "$TESTDIR/b/rootfs"
	cp "$BUNDLE/config.json" "$TESTDIR/b/config.json"
	BUNDLE="$TESTDIR/b"
	config_set 'linux.namespaces[type=pid]' "{\"type\":\"pid\",\"path\":\"/proc/$pid/ns/pid\"}"
	bind_shared /mnt
	set_args sh -c '
		echo "exe: $(readlink /proc/1/exe)" >/mnt/log
		# (a failed `exec 3<` would end this shell: try it in a subshell first)
		if (exec 3</proc/1/exe) 2>/dev/null; then exec 3</proc/1/exe; echo opened >>/mnt/log; else echo open-refused >>/mnt/log; fi
		echo "#!/bin/sh" >>/proc/1/exe && echo WROTE-IN-PLACE >>/mnt/log
		echo ready >/mnt/ready
		i=0
		until readlink /proc/1/exe | grep -q busybox || [ $i -gt 100 ]; do sleep 0.05; i=$((i + 1)); done
		echo "then: $(readlink /proc/1/exe)" >>/mnt/log
		echo "#!/bin/sh" >>/proc/self/fd/3 && echo WROTE-THROUGH-FD >>/mnt/log
		echo done >>/mnt/log'
	# B runs from the real runtime: nothing may execute the copy once A has started
	runtime run -b "$BUNDLE" "$CID-b" </dev/null >"$TESTDIR/b.out" 2>&1 &
	wait_for_file "$SHARED/ready" 10 || { cat "$TESTDIR/b.out"; false; }
	rt start "$CID-a"
	wait_until 60 grep -qs done "$SHARED/log" || true
	cat "$SHARED/log" "$TESTDIR/b.out"
	grep -q done "$SHARED/log"
	! grep -q WROTE "$SHARED/log"
	[ "$(sha256sum <"$RT")" = "$RT_SUM" ]
	wait_for_status "$CID-a" running
}

@test "security: exec'd processes race for the runtime's exe and lose" {
	private_runtime
	# The attacker scans for non-busybox executables in its pid namespace while the
	# runtime enters it for `exec`, opens them and writes through the fd later.
	set_args sh -c "$SCANNER"
	rt create -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>"$TESTDIR/err" || { cat "$TESTDIR/err"; false; }
	rt start "$CID"
	for _ in $(seq 20); do rt exec "$CID" true; done
	run rt exec "$CID" sh -c 'cat /dev/shm/log 2>/dev/null; echo end'
	echo "$output"
	[[ "$output" == *end* ]]
	[[ "$output" != *WROTE* ]]
	[ "$(sha256sum <"$RT")" = "$RT_SUM" ]
}

# fds_of PID: "N -> target" for each open fd, seen from the host.
fds_of() {
	local f
	for f in /proc/"$1"/fd/*; do echo "${f##*/} -> $(readlink "$f")"; done
}

@test "security: no runtime fd reaches the container (run and exec)" {
	set_args sleep 100
	exec 7>"$TESTDIR/host-file" # an fd the runtime inherits from its caller
	create_container "$CID"
	runtime start "$CID"
	wait_for_status "$CID" running
	pid=$(container_pid "$CID")
	fds_of "$pid"
	[ "$(ls /proc/"$pid"/fd | sort -n | tr '\n' ' ')" = "0 1 2 " ]

	runtime exec -d --pid-file "$TESTDIR/exec.pid" "$CID" sleep 100 </dev/null >/dev/null 2>&1
	exec 7>&-
	wait_for_file "$TESTDIR/exec.pid"
	epid=$(cat "$TESTDIR/exec.pid")
	fds_of "$epid"
	[ "$(ls /proc/"$epid"/fd | sort -n | tr '\n' ' ')" = "0 1 2 " ]
	run fds_of "$epid"
	[[ "$output" != *host-file* ]]
	[[ "$output" != *"$ROOT"* ]]
	[[ "$output" != *memfd* ]]
}

@test "security: cwd /proc/self/fd/N does not reach the host (CVE-2024-21626)" {
	local n
	# The container checks that its cwd is under its root; ESCAPED otherwise.
	local check='cwd=$(pwd -P 2>/dev/null) || { echo ESCAPED-unreachable; exit 0; }
		case "$cwd" in /*) ;; *) echo "ESCAPED $cwd"; exit 0 ;; esac
		[ "$(stat -c %d:%i .)" = "$(stat -c %d:%i "$cwd")" ] || { echo "ESCAPED $cwd"; exit 0; }
		[ -e /.in-container ] && echo "inside $cwd"'
	touch "$BUNDLE/rootfs/.in-container"
	set_args sh -c "$check"
	for n in 3 4 5 6 7 8 9; do
		config_set process.cwd "/proc/self/fd/$n"
		run run_container "$CID-$n"
		echo "cwd fd $n: status $status: $output"
		[[ "$output" != *ESCAPED* ]]
	done

	config_set process.cwd /
	set_args sleep 100
	create_container "$CID"
	runtime start "$CID"
	for n in 3 4 5 6 7 8 9; do
		run runtime exec --cwd "/proc/self/fd/$n" "$CID" sh -c "$check"
		echo "exec cwd fd $n: status $status: $output"
		[[ "$output" != *ESCAPED* ]]
	done
}

@test "security: an AppArmor profile on a host without AppArmor is an error" {
	if [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ]; then
		skip "AppArmor is enabled here"
	fi
	config_set process.apparmorProfile ocisbx-test-profile
	set_args sh -c 'echo RAN'
	run run_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" != *RAN* ]]
	if is_ocisbx; then [[ "$output" == *"AppArmor is not enabled"* ]]; fi
	[ -z "$(runtime list -q 2>/dev/null)" ]
}

@test "security: an SELinux process or mount label on a host without SELinux is refused, naming the field" {
	if [ -e /sys/fs/selinux/enforce ]; then skip "SELinux is enabled here"; fi
	snapshot_host
	for field in process.selinuxLabel linux.mountLabel; do
		make_config
		config_set "$field" '"system_u:object_r:container_file_t:s0:c1,c2"'
		set_args sh -c 'echo RAN'
		run run_container "$CID"
		echo "$field: status $status: $output"
		[ "$status" -ne 0 ]
		[[ "$output" != *RAN* ]]
		# runc 1.1: "selinux label is specified in config, but selinux is disabled or not
		# supported"; the mount label fails its first mount (context=...)
		if is_ocisbx; then [[ "$output" == *"config.json: .$field: SELinux is not enabled on this host"* ]]; fi
		assert_nothing_left
	done
}
