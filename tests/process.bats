#!/usr/bin/env bats
# The container process: env, cwd, user, umask, hostname, capabilities, nnp,
# rlimits, oom score, pid 1, file descriptors.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

# in_container CMD...: runs CMD in a fresh container (stdin /dev/null); $output, $status.
in_container() {
	set_args "$@"
	run run_container "$CID" </dev/null
	echo "status $status: $output"
}

# status_field NAME: the value of NAME: in /proc/self/status inside the container
status_field() {
	in_container sh -c "grep '^$1:' /proc/self/status | cut -f2-"
	[ "$status" -eq 0 ]
	echo "$output"
}

@test "process: env is exactly the config's, plus HOME from /etc/passwd" {
	config_set process.env '["PATH=/bin:/usr/bin", "FOO=bar baz", "EMPTY="]'
	in_container env
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output")" = "$(printf '%s\n' EMPTY= 'FOO=bar baz' HOME=/root PATH=/bin:/usr/bin)" ]
}

@test "process: a variable listed twice keeps its last value; an empty HOME is filled from passwd" {
	config_set process.env '["PATH=/bin:/usr/bin", "DUP=first", "HOME=", "OTHER=x", "DUP=last"]'
	in_container env
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output")" = "$(printf '%s\n' DUP=last HOME=/root OTHER=x PATH=/bin:/usr/bin)" ]
}

@test "process: HOME is kept when the config sets it, and follows the user" {
	config_set process.env '["PATH=/bin", "HOME=/elsewhere"]'
	in_container sh -c 'echo $HOME'
	[ "$output" = /elsewhere ]
	config_set process.env '["PATH=/bin"]'
	config_set process.user '{"uid":1000,"gid":1000}'
	in_container sh -c 'echo $HOME'
	[ "$output" = /home/user ]
}

# sig_ignored RUNTIME-ARGS...: the standard signals (1-31, as a hex mask) ignored by a
# container process that the runtime, started with SIGHUP, SIGINT, SIGQUIT, SIGPIPE,
# SIGTERM and SIGUSR1 ignored (nohup, a shell's background job, callers ignoring SIGPIPE),
# runs (no `timeout` around it: it would catch some of them).  Not 32 and 33, glibc's own,
# which make ignores and runc leaves so.
sig_ignored() {
	local mask
	mask=$( (
		trap '' HUP INT QUIT PIPE TERM USR1
		"$OCI_RUNTIME" --root "$ROOT" "$@" </dev/null
	) | awk '$1 == "SigIgn:" { print $2 }')
	[ -n "$mask" ] || return 1
	printf '%x\n' $((0x$mask & 0x7fffffff))
}

@test "process: every signal has its default action, whatever the runtime's caller ignored" {
	set_args grep SigIgn: /proc/self/status
	run sig_ignored run -b "$BUNDLE" "$CID"
	echo "run: $output"
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
	set_args sleep 1000
	create_container "$CID-2"
	runtime start "$CID-2"
	run sig_ignored exec "$CID-2" grep SigIgn: /proc/self/status
	echo "exec: $output"
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
	if is_ocisbx; then # an exec tree's leader, started by its reaper
		run sig_ignored exec --kill-tree "$CID-2" grep SigIgn: /proc/self/status
		echo "exec --kill-tree: $output"
		[ "$status" -eq 0 ]
	[ "$output" = 0 ]
	fi
}

@test "process: cwd" {
	config_set process.cwd '"/etc"'
	in_container pwd
	[ "$status" -eq 0 ]
	[ "$output" = /etc ]
}

@test "process: args are passed verbatim" {
	in_container sh -c 'for a in "$@"; do echo "[$a]"; done' sh 'a b' '' '$HOME' '*'
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' '[a b]' '[]' '[$HOME]' '[*]')" ]
}

@test "process: user uid, gid and additionalGids" {
	config_set process.user '{"uid":1000,"gid":1000,"additionalGids":[10,20,65534]}'
	in_container sh -c 'id -u; id -g; id -G; grep -E "^(Uid|Gid|Groups):" /proc/self/status'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[ "${lines[1]}" = 1000 ]
	[ "$(tr ' ' '\n' <<<"${lines[2]}" | sort -n | tr '\n' ' ')" = "10 20 1000 65534 " ]
	[[ "${lines[3]}" == "Uid:"$'\t'"1000"$'\t'"1000"$'\t'"1000"$'\t'"1000" ]]
	[[ "${lines[4]}" == "Gid:"$'\t'"1000"$'\t'"1000"$'\t'"1000"$'\t'"1000" ]]
	[ "$(echo "${lines[5]#Groups:}" | xargs)" = "10 20 65534" ]
}

# A pipe of the caller's is 0600 root: a process that is not root could not reopen its
# own stdout (/dev/stdout, a log path pointing there) without this.
@test "process: stdio pipes become the user's, /dev/null is left alone (as runc, crun)" {
	config_set process.user '{"uid":1000,"gid":1000}'
	in_container sh -c 'stat -L -c %u:%g /proc/self/fd/0 /proc/self/fd/1; echo reopened >/dev/stdout'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == 1000:* ]]
	[ "${lines[2]}" = reopened ]
	# runc 1.1 puts pipes of its own between (stdin too) and changes the uid only;
	# crun and ocisbx pass the caller's fds on and change both
	if is_ocisbx; then
		[ "${lines[0]}" = 0:0 ]
		[ "${lines[1]}" = 1000:1000 ]
	fi
}

@test "process: root user has no supplementary groups unless configured" {
	in_container sh -c 'grep "^Groups:" /proc/self/status'
	[ "$status" -eq 0 ]
	[ -z "$(echo "${output#Groups:}" | xargs)" ]
}

@test "process: umask" {
	config_set process.user.umask 23 # 0027
	tmpfs_at /tmp
	in_container sh -c 'umask; touch /tmp/f; stat -c %a /tmp/f'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0027 ]
	[ "${lines[1]}" = 640 ]
}

@test "process: umask 077" {
	config_set process.user.umask 63
	in_container sh -c umask
	[ "$status" -eq 0 ]
	[ "$output" = 0077 ]
}

@test "process: hostname in a new uts namespace" {
	config_set hostname '"oci-test-host"'
	in_container sh -c 'hostname; cat /proc/sys/kernel/hostname'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = oci-test-host ]
	[ "${lines[1]}" = oci-test-host ]
	[ "$(hostname)" != oci-test-host ]
}

@test "process: capabilities of the default config" {
	# CAP_AUDIT_WRITE, CAP_KILL, CAP_NET_BIND_SERVICE; ambient cannot be raised
	# without inheritable, which the default config does not set
	status_field CapBnd
	[ "$output" = 0000000020000420 ]
	status_field CapEff
	[ "$output" = 0000000020000420 ]
	status_field CapPrm
	[ "$output" = 0000000020000420 ]
	status_field CapInh
	[ "$output" = 0000000000000000 ]
	status_field CapAmb
	[ "$output" = 0000000000000000 ]
}

@test "process: capabilities, a full set in all five sets" {
	caps='["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FSETID","CAP_FOWNER","CAP_MKNOD","CAP_NET_RAW",
		"CAP_SETGID","CAP_SETUID","CAP_SETFCAP","CAP_SETPCAP","CAP_NET_BIND_SERVICE",
		"CAP_SYS_CHROOT","CAP_KILL","CAP_AUDIT_WRITE"]'
	for set in bounding effective permitted inheritable ambient; do
		config_set "process.capabilities.$set" "$caps"
	done
	in_container sh -c 'grep ^Cap /proc/self/status'
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'Cap%s:\t00000000a80425fb\n' Inh Prm Eff Bnd Amb)" ]
}

@test "process: capabilities, bounding wider than permitted" {
	config_set process.capabilities '{"bounding":["CAP_KILL","CAP_CHOWN","CAP_SETUID"],
		"permitted":["CAP_KILL","CAP_CHOWN"],"effective":["CAP_KILL"]}'
	in_container sh -c 'grep ^Cap /proc/self/status'
	[ "$status" -eq 0 ]
	# root's execve makes effective = permitted; no_new_privs keeps permitted from growing
	[ "$output" = "$(printf 'Cap%s:\t%s\n' Inh 0000000000000000 Prm 0000000000000021 \
		Eff 0000000000000021 Bnd 00000000000000a1 Amb 0000000000000000)" ]

	# without no_new_privs root's execve fills permitted up to the bounding set
	config_set process.noNewPrivileges false
	in_container sh -c 'grep ^Cap /proc/self/status'
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'Cap%s:\t%s\n' Inh 0000000000000000 Prm 00000000000000a1 \
		Eff 00000000000000a1 Bnd 00000000000000a1 Amb 0000000000000000)" ]
}

@test "process: capabilities of a non-root user come from ambient" {
	config_set process.user '{"uid":1000,"gid":1000}'
	config_set process.capabilities '{"bounding":["CAP_KILL","CAP_NET_BIND_SERVICE"],
		"permitted":["CAP_KILL","CAP_NET_BIND_SERVICE"],"effective":["CAP_KILL","CAP_NET_BIND_SERVICE"],
		"inheritable":["CAP_KILL"],"ambient":["CAP_KILL"]}'
	in_container sh -c 'grep ^Cap /proc/self/status'
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'Cap%s:\t%s\n' Inh 0000000000000020 Prm 0000000000000020 \
		Eff 0000000000000020 Bnd 0000000000000420 Amb 0000000000000020)" ]
}

@test "process: an unknown capability (CAP_BOGUS) is a warning and left out, the rest applies" {
	# runtime-spec 1.3 config.md: MUST be logged as a warning, SHOULD NOT fail (runc warns too)
	config_set process.capabilities '{"bounding":["CAP_KILL","CAP_BOGUS"],"permitted":["CAP_KILL","CAP_BOGUS"],
		"effective":["CAP_BOGUS","CAP_KILL"]}'
	set_args sh -c 'grep ^CapBnd /proc/self/status'
	run_container "$CID" </dev/null >"$TESTDIR/out" 2>"$TESTDIR/err"
	cat "$TESTDIR/out" "$TESTDIR/err"
	[ "$(cut -f2 "$TESTDIR/out")" = 0000000000000020 ]
	grep -i warn "$TESTDIR/err" | grep -q CAP_BOGUS
}

@test "process: a capability outside the runtime's bounding set is a warning and left out, the rest applies" {
	requires_ocisbx "runc 1.1 fails: unable to apply caps: operation not permitted"
	requires_tool setpriv util-linux
	# runtime-spec config.md: a capability the runtime cannot grant MUST be logged as a
	# warning and SHOULD NOT fail the create
	config_set process.capabilities '{"bounding":["CAP_KILL","CAP_SYS_TIME"],"permitted":["CAP_KILL","CAP_SYS_TIME"],
		"effective":["CAP_SYS_TIME","CAP_KILL"]}'
	set_args sh -c 'grep -E "^Cap(Bnd|Eff)" /proc/self/status'
	snapshot_host
	OCIT_TAG="$CID" timeout -k 5 30 setpriv --bounding-set -sys_time -- \
		"$OCI_RUNTIME" --root "$ROOT" run -b "$BUNDLE" "$CID" </dev/null >"$TESTDIR/out" 2>"$TESTDIR/err" || {
		cat "$TESTDIR/out" "$TESTDIR/err"
		false
	}
	cat "$TESTDIR/out" "$TESTDIR/err"
	# CAP_KILL (5) alone
	[ "$(grep -c $'\t0000000000000020$' "$TESTDIR/out")" -eq 2 ]
	grep -i warn "$TESTDIR/err" | grep -q CAP_SYS_TIME
	assert_nothing_left
}

@test "process: noNewPrivileges" {
	status_field NoNewPrivs
	[ "$output" = 1 ]
	config_set process.noNewPrivileges false
	status_field NoNewPrivs
	[ "$output" = 0 ]
}

@test "process: rlimits" {
	config_set process.rlimits '[{"type":"RLIMIT_NOFILE","soft":1000,"hard":2000},
		{"type":"RLIMIT_NPROC","soft":500,"hard":600},{"type":"RLIMIT_CORE","soft":0,"hard":0}]'
	in_container sh -c 'ulimit -n; ulimit -Hn; grep -E "^Max (open files|processes|core file size)" /proc/self/limits'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[ "${lines[1]}" = 2000 ]
	[ "$(grep 'open files' <<<"$output" | awk '{print $4, $5}')" = "1000 2000" ]
	[ "$(grep 'processes' <<<"$output" | awk '{print $3, $4}')" = "500 600" ]
	[ "$(grep 'core file' <<<"$output" | awk '{print $5, $6}')" = "0 0" ]
}

@test "process: an rlimit above the runtime's hard limit fails create" {
	capeff=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
	if (((0x$capeff >> 24) & 1)); then
		skip "the runtime has CAP_SYS_RESOURCE here: raising the hard limit is allowed"
	fi
	hard=$(ulimit -Hn)
	config_set process.rlimits "[{\"type\":\"RLIMIT_NOFILE\",\"soft\":$((hard + 1)),\"hard\":$((hard + 1))}]"
	snapshot_host
	run create_container "$CID"
	[ "$status" -ne 0 ]
	assert_nothing_left
}

@test "process: an unknown rlimit type fails create" {
	config_set process.rlimits '[{"type":"RLIMIT_BOGUS","soft":1,"hard":1}]'
	snapshot_host
	run create_container "$CID"
	[ "$status" -ne 0 ]
	assert_nothing_left
}

@test "process: oomScoreAdj" {
	config_set process.oomScoreAdj 100
	in_container cat /proc/self/oom_score_adj
	[ "$status" -eq 0 ]
	[ "$output" = 100 ]
}

@test "process: is pid 1 of a new pid namespace" {
	in_container sh -c 'echo $$; cat /proc/1/cmdline | tr "\0" " "'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1 ]
	[ "${lines[1]}" = "sh -c echo \$\$; cat /proc/1/cmdline | tr \"\\0\" \" \" " ]
}

@test "process: leads its own session and process group, without a terminal too (as runc)" {
	in_container sh -c 'read -r pid comm state ppid pgrp sid rest </proc/self/stat; echo "$pid $pgrp $sid"'
	[ "$status" -eq 0 ]
	[ "$output" = "1 1 1" ]
}

@test "process: no file descriptors leak into the container" {
	# the test holds extra fds (bats' 3, and 5, 7 here): none may reach the process
	exec 5</dev/null 7>"$TESTDIR/seven"
	in_container ls /proc/self/fd
	exec 5<&- 7>&-
	[ "$status" -eq 0 ]
	# 0 1 2 and the directory ls is reading
	[ "$(echo $output)" = "0 1 2 3" ]
}

@test "process: --preserve-fds passes exactly the extra fds" {
	echo three >"$TESTDIR/three"
	set_args sh -c 'ls /proc/self/fd | tr "\n" " "; echo; cat <&3; echo four >&4'
	run run_container "$CID" --preserve-fds 2 </dev/null 3<"$TESTDIR/three" 4>"$TESTDIR/four" 5</dev/null
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "0 1 2 3 4 5 " ] # 5: the dir ls reads (the test's 5 is not passed)
	[ "${lines[1]}" = three ]
	[ "$(cat "$TESTDIR/four")" = four ]
}

# The initial affinity is not checked: on cgroup v1 (this CI's cpuset) joining the
# cpuset cgroup resets a task's affinity to the cgroup's CPUs, so nothing after the
# join (hooks included) can see it.
@test "process: execCPUAffinity: final, or every CPU again after initial (ocisbx-only)" {
	requires_ocisbx "runc 1.1 predates execCPUAffinity (runc 1.2)"
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs, this runner has $(nproc)"
	all=$(grep '^Cpus_allowed_list:' /proc/self/status | cut -f2)
	set_args sh -c 'grep ^Cpus_allowed_list: /proc/self/status | cut -f2'
	config_set process.execCPUAffinity '{"initial":"1"}'
	run run_container "$CID" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$all" ]
	config_set process.execCPUAffinity '{"initial":"1","final":"0"}'
	run run_container "$CID-f" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
}

@test "process: without oomScoreAdj the container keeps the runtime's oom_score_adj" {
	set_args cat /proc/self/oom_score_adj
	# the runtime starts with oom_score_adj 123 (its subshell's: raising it needs no privilege)
	run_adjusted() { (echo 123 >/proc/self/oom_score_adj && run_container "$CID"); }
	run run_adjusted </dev/null
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "$output" = 123 ]
}

@test "process: linux.personality LINUX32 makes uname say the 32-bit machine" {
	requires_ocisbx "runc 1.1 does not know linux.personality"
	[ "$(uname -m)" = x86_64 ] || skip "the 32-bit name checked is x86_64's (i686)"
	config_set linux.personality '{"domain":"LINUX32"}'
	in_container uname -m
	[ "$status" -eq 0 ]
	[ "$output" = i686 ]
	config_set linux.personality '{"domain":"LINUX"}'
	in_container uname -m
	[ "$status" -eq 0 ]
	[ "$output" = x86_64 ]
}

@test "process: consoleSize without terminal is ignored" {
	config_set process.terminal false
	config_set process.consoleSize '{"height":30,"width":100}'
	in_container echo ran
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
}

@test "process: ioPriority class and priority" {
	requires_ocisbx "runc 1.1 does not know process.ioPriority"
	config_set process.ioPriority '{"class":"IOPRIO_CLASS_BE","priority":6}'
	in_container ionice
	[ "$status" -eq 0 ]
	[ "$output" = "best-effort: prio 6" ]
	config_set process.ioPriority '{"class":"IOPRIO_CLASS_IDLE","priority":0}'
	in_container ionice
	[ "$status" -eq 0 ]
	[ "$output" = idle ]
}

@test "process: ioPriority without its (REQUIRED) priority is priority 0, as runc takes it" {
	requires_ocisbx "runc 1.1 does not know process.ioPriority"
	config_set process.ioPriority '{"class":"IOPRIO_CLASS_BE"}'
	in_container ionice
	[ "$status" -eq 0 ]
	[ "$output" = "best-effort: prio 0" ]
}

@test "process: scheduler policy SCHED_BATCH with its nice value" {
	requires_ocisbx "runc 1.1 does not know process.scheduler"
	config_set process.scheduler '{"policy":"SCHED_BATCH","nice":5}'
	# /proc/self/stat: field 19 is nice, field 41 the policy (SCHED_BATCH = 3)
	in_container awk '{print $19, $41}' /proc/self/stat
	[ "$status" -eq 0 ]
	[ "$output" = "5 3" ]
}

@test "process: a user without uid and gid (both REQUIRED) is root, as runc takes it" {
	config_set process.user '{}'
	in_container sh -c 'id -u; id -g'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = 0 ]
}

@test "process: linux.personality without its (REQUIRED) domain is refused, naming it" {
	requires_ocisbx "runc 1.1 does not know linux.personality"
	config_set linux.personality '{"flags":[]}'
	in_container true
	[ "$status" -ne 0 ]
	[[ $output == *'config.json: .linux.personality.domain: unknown domain ""'* ]]
	[ -z "$(state_entries)" ]
}
