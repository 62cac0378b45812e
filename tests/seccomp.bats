#!/usr/bin/env bats
# linux.seccomp: actions, errno values, argument filters, architectures, flags,
# the podman default profile, SCMP_ACT_NOTIFY with a listener, validation errors,
# and (ocisbx) the compiled-filter cache.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }

PODMAN_PROFILE="$BATS_TEST_DIRNAME/../contrib/seccomp/podman-default.json"

# seccomp JSON: linux.seccomp = JSON.
seccomp() { config_set linux.seccomp "$1"; }

# block_rule ACTION [EXTRA]: ALLOW by default, ACTION for mkdir/mkdirat.
block_rule() {
	seccomp '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["mkdir","mkdirat"],"action":"'"$1"'"'"${2:+,$2}"'}]}'
}

@test "seccomp: ERRNO with errnoRet blocks one syscall with that errno, others work" {
	block_rule SCMP_ACT_ERRNO '"errnoRet":38'
	set_args sh -c 'mkdir /dev/shm/d; echo "mkdir=$?"; touch /dev/shm/f && echo touched; ls -d /dev/shm/d'
	run run_container "$CID"
	echo "$output"
	[[ "$output" == *"Function not implemented"* ]]
	[[ "$output" == *"mkdir=1"* ]]
	[[ "$output" == *touched* ]]
	[[ "$output" == *"No such file or directory"* ]]
}

@test "seccomp: ERRNO without errnoRet is EPERM" {
	block_rule SCMP_ACT_ERRNO
	set_args mkdir /dev/shm/d
	run run_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
}

@test "seccomp: unknown syscall names are skipped, not fatal" {
	seccomp '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[
		{"names":["no_such_syscall_ocisbx","mkdir","mkdirat","another_unknown_one"],"action":"SCMP_ACT_ERRNO","errnoRet":38}]}'
	set_args mkdir /dev/shm/d
	run run_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Function not implemented"* ]]
}

@test "seccomp: argument filters match only their values (EQ, MASKED_EQ, two args ANDed)" {
	# personality(PER_LINUX32 = 8) refused, personality(0) allowed;
	# chmod with o+w (mask 0002 == 0002) refused;
	# kill(1, SIGUSR1) refused, kill(1, 0) and kill(other, SIGUSR1) allowed.
	seccomp '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[
		{"names":["personality"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":8,"op":"SCMP_CMP_EQ"}]},
		{"names":["chmod"],"action":"SCMP_ACT_ERRNO","args":[{"index":1,"value":2,"valueTwo":2,"op":"SCMP_CMP_MASKED_EQ"}]},
		{"names":["fchmodat"],"action":"SCMP_ACT_ERRNO","args":[{"index":2,"value":2,"valueTwo":2,"op":"SCMP_CMP_MASKED_EQ"}]},
		{"names":["kill"],"action":"SCMP_ACT_ERRNO","errnoRet":13,"args":[
			{"index":0,"value":1,"op":"SCMP_CMP_EQ"},{"index":1,"value":10,"op":"SCMP_CMP_EQ"}]}]}'
	set_args sh -c '
		linux64 true && echo linux64-ok
		linux32 true || echo linux32-refused
		touch /dev/shm/f
		chmod 755 /dev/shm/f && echo chmod755-ok
		chmod 777 /dev/shm/f || echo chmod777-refused
		kill -0 1 && echo kill0-ok
		kill -USR1 1 || echo usr1-refused
		sh -c "trap \"\" USR1; kill -USR1 \$\$ && echo usr1-self-ok"
		echo done'
	run run_container "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	for word in linux64-ok linux32-refused chmod755-ok chmod777-refused kill0-ok usr1-refused usr1-self-ok; do
		[[ "$output" == *"$word"* ]]
	done
	[[ "$output" == *"Permission denied"* ]] # errnoRet 13 of the kill rule
}

@test "seccomp: comparison operators NE LT LE GE GT" {
	# kill(pid, sig): the rule looks at the signal; SIGUSR1=10, SIGUSR2=12 ignored by trap
	# SPEC: operator value usr1-result usr2-result (a: allowed, r: refused)
	for spec in "SCMP_CMP_NE 10 a r" "SCMP_CMP_LT 11 r a" "SCMP_CMP_LE 10 r a" \
		"SCMP_CMP_GE 11 a r" "SCMP_CMP_GT 10 a r"; do
		set -- $spec
		make_config
		seccomp '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["kill"],"action":"SCMP_ACT_ERRNO",
			"args":[{"index":1,"value":'"$2"',"op":"'"$1"'"},{"index":0,"value":0,"op":"SCMP_CMP_NE"}]}]}'
		set_args sh -c 'trap "" USR1 USR2
			if kill -USR1 $$ 2>/dev/null; then echo usr1=a; else echo usr1=r; fi
			if kill -USR2 $$ 2>/dev/null; then echo usr2=a; else echo usr2=r; fi'
		run run_container "$CID-$1"
		echo "$1 $2: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"usr1=$3"* ]]
		[[ "$output" == *"usr2=$4"* ]]
	done
}

@test "seccomp: ERRNO default with an allow list" {
	# podman's unconditional allow list, without mkdir/mkdirat; default ERRNO (EPERM)
	"$PYTHON" - "$PODMAN_PROFILE" "$BUNDLE/config.json" <<-'EOF'
		import json, sys
		prof = json.load(open(sys.argv[1]))
		names = sorted({n for s in prof["syscalls"] if s["action"] == "SCMP_ACT_ALLOW" and not s.get("args")
		                for n in s["names"]} - {"mkdir", "mkdirat"})
		cfg = json.load(open(sys.argv[2]))
		cfg["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ERRNO",
		                           "syscalls": [{"names": names, "action": "SCMP_ACT_ALLOW"}]}
		json.dump(cfg, open(sys.argv[2], "w"))
	EOF
	set_args sh -c 'echo shell-works; mkdir /dev/shm/d'
	run run_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *shell-works* ]]
	[[ "$output" == *"Operation not permitted"* ]]
	# defaultErrnoRet changes the default's errno
	config_set linux.seccomp.defaultErrnoRet 38
	run run_container "$CID-2"
	echo "$output"
	[[ "$output" == *"Function not implemented"* ]]
}

@test "seccomp: podman's default profile runs a shell and blocks unshare" {
	config_set linux.seccomp "$(cat "$PODMAN_PROFILE")"
	set_args sh -c 'echo hello; grep "^Seccomp:" /proc/self/status; unshare -m true && echo UNSHARED; unshare -n true && echo UNSHARED; true'
	run run_container "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *hello* ]]
	[[ "$output" == *"Seccomp:"*2* ]] # filter mode
	[[ "$output" != *UNSHARED* ]]
	[[ "$output" == *"unshare"*"Operation not permitted"* ]]
}

@test "seccomp: loads without noNewPrivileges while CAP_SYS_ADMIN is not in the process's caps" {
	config_set process.noNewPrivileges false
	block_rule SCMP_ACT_ERRNO '"errnoRet":38'
	set_args sh -c 'grep "^NoNewPrivs:" /proc/self/status; mkdir /dev/shm/d'
	run run_container "$CID"
	echo "$output"
	[[ "$output" == *"NoNewPrivs:"*0* ]]
	[[ "$output" == *"Function not implemented"* ]]
}

# log_entries SINCE: kernel audit lines of SCMP_ACT_LOG for mkdir (x86_64: 83) stamped
# at or after SINCE (epoch seconds): the ring buffer may rotate, so no counting.
log_entries() {
	dmesg 2>/dev/null | awk -v since="$1" '/type=1326/ && /syscall=83 / && /code=0x7ffc0000/ {
		if (match($0, /audit\([0-9]+/)) { t = substr($0, RSTART + 6, RLENGTH - 6); if (t + 0 >= since) n++ } }
		END { print n + 0 }'
}

@test "seccomp: SCMP_ACT_LOG allows the call (and logs it)" {
	block_rule SCMP_ACT_LOG
	since=$(date +%s)
	set_args sh -c 'mkdir /dev/shm/d && ls -d /dev/shm/d'
	run run_container "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == */dev/shm/d* ]]
	if dmesg >/dev/null 2>&1 && [ "$(uname -m)" = x86_64 ]; then
		logged() { [ "$(log_entries "$since")" -gt 0 ]; }
		wait_until 30 logged || true
		[ "$(log_entries "$since")" -gt 0 ]
	fi
}

@test "seccomp: KILL, KILL_PROCESS, KILL_THREAD and TRAP end the process with SIGSYS" {
	for action in SCMP_ACT_KILL SCMP_ACT_KILL_PROCESS SCMP_ACT_KILL_THREAD SCMP_ACT_TRAP; do
		make_config
		block_rule "$action"
		set_args mkdir /dev/shm/d
		run run_container "$CID-${action#SCMP_ACT_}"
		echo "$action: status $status: $output"
		[ "$status" -eq 159 ] # 128 + SIGSYS
	done
}

@test "seccomp: TRACE without a tracer fails the call with ENOSYS" {
	block_rule SCMP_ACT_TRACE '"errnoRet":5'
	set_args sh -c 'mkdir /dev/shm/d; echo after=$?'
	run run_container "$CID"
	echo "$output"
	[[ "$output" == *"Function not implemented"* ]]
	[[ "$output" == *after=1* ]]
}

@test "seccomp: several architectures" {
	seccomp '{"defaultAction":"SCMP_ACT_ALLOW","architectures":["SCMP_ARCH_X86_64","SCMP_ARCH_X86","SCMP_ARCH_X32"],
		"syscalls":[{"names":["mkdir","mkdirat"],"action":"SCMP_ACT_ERRNO","errnoRet":38}]}'
	set_args mkdir /dev/shm/d
	run run_container "$CID"
	echo "$output"
	[[ "$output" == *"Function not implemented"* ]]
}

@test "seccomp: flags LOG, SPEC_ALLOW, TSYNC and WAIT_KILLABLE_RECV are accepted" {
	case "$(basename "$OCI_RUNTIME")" in runc) skip "runc 1.1 supports no seccomp flags" ;; esac
	local flag
	for flag in SECCOMP_FILTER_FLAG_LOG SECCOMP_FILTER_FLAG_SPEC_ALLOW SECCOMP_FILTER_FLAG_TSYNC \
		SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV; do
		make_config
		seccomp '{"defaultAction":"SCMP_ACT_ALLOW","flags":["'"$flag"'"],
			"syscalls":[{"names":["mkdir","mkdirat"],"action":"SCMP_ACT_ERRNO","errnoRet":38}]}'
		set_args mkdir /dev/shm/d
		run run_container "$CID-$flag"
		echo "$flag: $output"
		[[ "$output" == *"Function not implemented"* ]]
	done
}

@test "seccomp: exec'd processes get the container's filter" {
	block_rule SCMP_ACT_ERRNO '"errnoRet":38'
	set_args sleep 100
	create_container "$CID"
	runtime start "$CID"
	run runtime exec "$CID" mkdir /dev/shm/x
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Function not implemented"* ]]
	run runtime exec "$CID" sh -c 'echo works'
	[ "$status" -eq 0 ]
	[[ "$output" == works ]]
}

@test "seccomp: invalid profiles are refused before anything runs" {
	local bad
	for bad in \
		'{"defaultAction":"SCMP_ACT_ALLOW","flags":["SECCOMP_FILTER_FLAG_NOPE"]}|.linux.seccomp.flags[0]' \
		'{"defaultAction":"SCMP_ACT_ALLOW","architectures":["SCMP_ARCH_VAX"]}|.linux.seccomp.architectures[0]' \
		'{"defaultAction":"SCMP_ACT_NOPE"}|.linux.seccomp.defaultAction' \
		'{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["mkdir"],"action":"SCMP_ACT_NOTIFY"}]}|.linux.seccomp.listenerPath' \
		'{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["kill"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":1,"op":"SCMP_CMP_XOR"}]}]}|.linux.seccomp.syscalls[0].args[0].op'; do
		make_config
		seccomp "${bad%|*}"
		set_args sh -c 'echo RAN >/dev/shm/ran; echo RAN'
		run run_container "$CID"
		echo "${bad%|*}: status $status: $output"
		[ "$status" -ne 0 ]
		[[ "$output" != *RAN* ]]
		if is_ocisbx; then
			[[ "$output" == *"${bad#*|}"* ]]
		fi
		[ -z "$(runtime list -q 2>/dev/null)" ]
	done
}

@test "seccomp: errnoRet where nothing returns it, listenerMetadata without listenerPath: refused naming the field" {
	requires_ocisbx "runc 1.1 accepts and ignores them (crun refuses errnoRet on such actions)"
	local bad
	for bad in \
		'{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["mkdir"],"action":"SCMP_ACT_KILL","errnoRet":5}]}|.linux.seccomp.syscalls[0].errnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE return it, not SCMP_ACT_KILL' \
		'{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["mkdir"],"action":"SCMP_ACT_ALLOW","errnoRet":0}]}|.linux.seccomp.syscalls[0].errnoRet' \
		'{"defaultAction":"SCMP_ACT_ALLOW","defaultErrnoRet":5}|.linux.seccomp.defaultErrnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE return it, not SCMP_ACT_ALLOW' \
		'{"defaultAction":"SCMP_ACT_ALLOW","listenerMetadata":"x","syscalls":[{"names":["mkdir"],"action":"SCMP_ACT_ERRNO"}]}|.linux.seccomp.listenerMetadata: set without .listenerPath'; do
		make_config
		seccomp "${bad%|*}"
		set_args sh -c 'echo RAN'
		run run_container "$CID"
		echo "${bad%|*}: status $status: $output"
		[ "$status" -ne 0 ]
		[[ "$output" != *RAN* ]]
		[[ "$output" == *"config.json: ${bad#*|}"* ]]
		[ -z "$(state_entries)" ]
	done
	# on SCMP_ACT_TRACE it is taken (the value a tracer sees)
	make_config
	seccomp '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["mkdir"],"action":"SCMP_ACT_TRACE","errnoRet":1}]}'
	set_args sh -c 'echo RAN'
	run run_container "$CID"
	[ "$status" -eq 0 ]
	[ "$output" = RAN ]
}

# many_rules N KIND: linux.seccomp (default ERRNO, allowing what a shell needs) with N
# more rules: "distinct" (read with arg0 == i, each its own comparison) or "repeated"
# (N copies of rules for the same syscalls).
many_rules() {
	"$PYTHON" - "$BUNDLE/config.json" "$1" "$2" <<-'EOF'
		import json, sys
		path, n, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
		cfg = json.load(open(path))
		base = ["read", "write", "openat", "open", "close", "fstat", "newfstatat", "stat", "lstat", "mmap",
		        "mprotect", "munmap", "brk", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "ioctl",
		        "execve", "execveat", "exit", "exit_group", "arch_prctl", "set_tid_address", "getpid",
		        "getppid", "getuid", "geteuid", "getgid", "getegid", "capget", "capset", "prctl",
		        "setuid", "setgid", "setgroups", "setresuid", "setresgid", "fcntl", "dup2", "dup3",
		        "getcwd", "chdir", "uname", "wait4", "clone", "fork", "vfork", "clone3", "faccessat",
		        "faccessat2", "access", "pread64", "readlink", "getrandom", "close_range",
		        "sigaltstack", "futex", "set_robust_list", "rseq", "prlimit64", "nanosleep",
		        "clock_nanosleep", "poll", "getdents64", "lseek", "writev"]
		rules = []
		for i in range(n):
		    if kind == "distinct":
		        rules.append({"names": ["personality"], "action": "SCMP_ACT_ALLOW",
		                      "args": [{"index": 0, "value": i, "op": "SCMP_CMP_EQ"}]})
		    else:
		        rules.append({"names": [base[i % len(base)]], "action": "SCMP_ACT_ALLOW"})
		rules.append({"names": base, "action": "SCMP_ACT_ALLOW"})
		cfg["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ERRNO", "syscalls": rules}
		json.dump(cfg, open(path, "w"))
	EOF
}

@test "seccomp: a filter that cannot fit in the kernel's 4096 instructions is refused at once, naming the field" {
	# 20000 distinct comparisons need at least 20000 instructions; libseccomp alone
	# would take minutes to find out (longer than the test's runtime timeout)
	many_rules 20000 distinct
	set_args sh -c 'echo RAN'
	snapshot_host
	run run_container "$CID"
	echo "${output:0:600}"
	[ "$status" -ne 0 ]
	[[ "$output" != *RAN* ]]
	if is_ocisbx; then
		[[ "$output" == *".linux.seccomp.syscalls"*"4096"* ]]
	fi
	[ ! -e "$ROOT/$CID" ] # (the seccomp cache may stay)
	[ -z "$(cgroup_dirs)" ]
	test_mounts | diff "$TESTDIR/mounts.before" -
}

@test "seccomp: 20000 rules that repeat a few compile as the few do" {
	requires_ocisbx "runc hands every repeat to libseccomp, which takes minutes over them"
	many_rules 20000 repeated
	set_args sh -c 'echo RAN'
	run run_container "$CID"
	echo "${output:0:600}"
	[ "$status" -eq 0 ]
	[[ "$output" == *RAN* ]]
}

# --- SCMP_ACT_NOTIFY ---------------------------------------------------------------

start_agent() {
	AGENT_SOCK="$TESTDIR/agent.sock"
	AGENT_OUT="$TESTDIR/agent.json"
	"$PYTHON" "$HELPERS/seccomp_agent.py" "$AGENT_SOCK" "$AGENT_OUT" "$@" 3>&- &
	AGENT_PID=$!
	wait_until 30 test -S "$AGENT_SOCK"
}

notify_profile() {
	seccomp '{"defaultAction":"SCMP_ACT_ALLOW","listenerPath":"'"$AGENT_SOCK"'","listenerMetadata":"meta-'"$CID"'",
		"architectures":["SCMP_ARCH_X86","SCMP_ARCH_X32","SCMP_ARCH_X86_64"],
		"syscalls":[{"names":['"$1"'],"action":"SCMP_ACT_NOTIFY"}]}'
}

@test "seccomp: NOTIFY hands the listener fd and the state to the agent" {
	[ "$(uname -m)" = x86_64 ] || skip "the agent decodes x86_64 notifications"
	start_agent
	notify_profile '"mkdir","mkdirat"'
	set_args sh -c 'mkdir /dev/shm/foo; echo after=$?; touch /dev/shm/bar && echo touched'
	run run_container "$CID"
	echo "$output"
	[[ "$output" == *"No medium found"* ]] # the agent's answer (ENOMEDIUM)
	[[ "$output" == *after=1* ]]
	[[ "$output" == *touched* ]]
	wait_for_file "$AGENT_OUT"
	cat "$AGENT_OUT"
	"$PYTHON" - "$AGENT_OUT" "$CID" <<-'EOF'
		import json, sys
		d = json.load(open(sys.argv[1]))
		st = d["state"]
		assert d["nfds"] == 1, d
		assert st["fds"] == ["seccompFd"], st
		assert st["metadata"] == "meta-" + sys.argv[2], st
		assert isinstance(st["pid"], int) and st["pid"] > 0, st
		assert st["ociVersion"], st
		assert st["state"]["id"] == sys.argv[2], st
		assert st["state"]["pid"] == st["pid"], st
		assert st["state"]["status"] in ("creating", "created"), st
	EOF
}

@test "seccomp: NOTIFY of the syscalls the runtime uses after loading the filter" {
	[ "$(uname -m)" = x86_64 ] || skip "the agent decodes x86_64 notifications"
	start_agent
	notify_profile '"execve","openat","open","read","close","mkdir","mkdirat"'
	set_args sh -c 'mkdir /dev/shm/foo; echo after=$?'
	run run_container "$CID"
	echo "$output"
	[[ "$output" == *"No medium found"* ]]
	[[ "$output" == *after=1* ]]
}

@test "seccomp: NOTIFY with no agent listening fails the container" {
	AGENT_SOCK="$TESTDIR/nobody-listens.sock"
	notify_profile '"mkdir"'
	set_args sh -c 'echo RAN'
	run run_container "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" != *RAN* ]]
	# the error names the agent's socket (runc: "... connect ...: no such file or directory")
	[[ "$output" == *"$AGENT_SOCK"* ]]
	[[ "$output" == *agent* ]]
	[ -z "$(runtime list -q)" ]
}

@test "seccomp: listenerPath without a NOTIFY rule is not used (runtime-spec: ignored)" {
	# config-linux.md: "If the SCMP_ACT_NOTIFY action is not used this value is ignored."
	# Nothing listens there: a runtime that connected anyway would have to fail (crun
	# sends the filter's fd whenever listenerPath is set).
	seccomp '{"defaultAction":"SCMP_ACT_ALLOW","listenerPath":"'"$TESTDIR/nobody-listens.sock"'","listenerMetadata":"m",
		"syscalls":[{"names":["mkdir"],"action":"SCMP_ACT_ERRNO"}]}'
	set_args sh -c 'mkdir /tmp/x 2>/dev/null || echo denied; echo RAN'
	run run_container "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = denied ]
	[ "${lines[1]}" = RAN ]
}

# --- the compiled-filter cache (ocisbx) ------------------------------------------

@test "seccomp: the compiled filter is cached under --root, a corrupt entry is rewritten" {
	requires_ocisbx "seccomp cache under --root"
	config_set linux.seccomp "$(cat "$PODMAN_PROFILE")"
	set_args true
	run_container "$CID"
	entries=("$ROOT"/seccomp-cache/*.bpf)
	[ "${#entries[@]}" -eq 1 ] && [ -s "${entries[0]}" ]
	sum=$(sha256sum <"${entries[0]}")
	[ "$(stat -c %a "$ROOT/seccomp-cache")" = 700 ]

	run runtime --debug run -b "$BUNDLE" "$CID-2"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"from the cache"* ]]
	[ "$(sha256sum <"${entries[0]}")" = "$sum" ]

	printf 'garbage' | dd of="${entries[0]}" bs=1 seek=120 conv=notrunc 2>/dev/null
	run runtime --debug run -b "$BUNDLE" "$CID-3"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"corrupt entry"* ]]
	[[ "$output" == *"compiled"* ]]
	[ "$(sha256sum <"${entries[0]}")" = "$sum" ]

	# the filter from the cache still filters
	set_args sh -c 'unshare -m true || echo refused'
	run run_container "$CID-4"
	[[ "$output" == *refused* ]]
}

# --- nothing of the runtime's between the filter and execve -----------------------------

teardown() {
	[ -z "${USERNS_DIR:-}" ] || rm -rf "$USERNS_DIR"
	common_teardown
}

# The program: who it runs as, under which filter, to its end.
ALLOWLIST_PROG=(sh -c 'echo cwd=$(readlink /proc/self/cwd) uid=$(id -u) gid=$(id -g)
	grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status; echo done')
# Its calls, busybox's sh, readlink, id and grep (`strace -f` of it in a chroot of the test rootfs as
# uid 1000; x86_64 names), and sleep's for the exec case.  sh tries getcwd at start and
# does without it.
BUSYBOX_CALLS='"arch_prctl","brk","clone","close","dup2","execve","exit_group","getegid","geteuid",
	"getgid","getpid","getppid","getrandom","getuid","mprotect","newfstatat","openat","pipe2","prctl",
	"prlimit64","read","readlink","rseq","rt_sigaction","rt_sigreturn","set_robust_list",
	"set_tid_address","setgid","setuid","uname","wait4","write","nanosleep","clock_nanosleep"'
# The privilege drop and the exec: what a runtime may have to do after the filter.
PRIVDROP_CALLS='"capget","capset","prctl","setgroups","setresgid","setresuid","execve","execveat"'
# Not ocisbx's: what runc 1.1's init (Go) makes after the filter with noNewPrivileges,
# and what crun 1.8 does (found by trial; crun by hand, it refuses this host's hybrid
# cgroup layout).
RUNC_NNP_CALLS='"fstatfs","getdents64","fcntl","futex","mmap","munmap","epoll_ctl","epoll_pwait",
	"nanosleep","sched_yield","tgkill","gettid","sigaltstack","rt_sigprocmask","close_range"'
CRUN_CALLS='"rt_sigprocmask","umask","fstatfs","statfs","statx","mmap","munmap","fcntl","ioctl","lseek","fstat",
	"getdents64"'

# allowlist_case NNP MODE [DEFAULT]: default ERRNO (EPERM) and only the calls above
# allowed: neither faccessat2 (the executable check) nor getcwd (the cwd check) nor
# anything else of the runtime's.  The program runs as uid 1000, noNewPrivileges NNP,
# through MODE: run, create (+ start), or exec into a container whose own process
# sleeps.  DEFAULT SCMP_ACT_KILL_PROCESS: any other call kills (getcwd and faccessat2
# still fail with EPERM).  $CWD: the process.cwd expected (default /).
allowlist_case() {
	local extra= default=${3:-SCMP_ACT_ERRNO}
	[ "$(uname -m)" = x86_64 ] || skip "the allow-list has x86_64 names"
	case "$(basename "$OCI_RUNTIME"):$1:$2" in
	runc:false:*) skip "runc 1.1 calls chdir, getcwd, faccessat2, setuid and setgid after the filter without noNewPrivileges" ;;
	runc:*) extra=",$RUNC_NNP_CALLS" ;;
	crun:false:create | crun:false:exec) skip "crun 1.8 waits for start (pselect6 on the exec fifo) under the filter without noNewPrivileges" ;;
	crun:*) extra=",$CRUN_CALLS" ;;
	esac
	seccomp '{"defaultAction":"'"$default"'","architectures":["SCMP_ARCH_X86_64"],
		"syscalls":[{"names":['"$BUSYBOX_CALLS,$PRIVDROP_CALLS$extra"'],"action":"SCMP_ACT_ALLOW"},
			{"names":["getcwd","faccessat2"],"action":"SCMP_ACT_ERRNO"}]}'
	config_set process.noNewPrivileges "$1"
	config_set process.user '{"uid":1000,"gid":1000}'
	set_args "${ALLOWLIST_PROG[@]}"
	case "$2" in
	run)
		run run_container "$CID"
		;;
	create)
		create_container "$CID"
		runtime start "$CID"
		wait_for_status "$CID" stopped 10
		run cat "$IO/$CID.out" "$IO/$CID.err"
		;;
	exec)
		set_args sleep 100
		create_container "$CID"
		runtime start "$CID"
		# crun's exec takes neither the user nor noNewPrivileges from the config
		local flags=(--user 1000:1000)
		[ "$1" = false ] || flags+=(--no-new-privs)
		run runtime exec "${flags[@]}" "$CID" "${ALLOWLIST_PROG[@]}" </dev/null
		;;
	esac
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cwd=${CWD:-/} uid=1000 gid=1000"* ]]
	[[ "$output" == *"NoNewPrivs:"*"$([ "$1" = true ] && echo 1 || echo 0)"* ]]
	[[ "$output" == *"Seccomp:"*2* ]]
	[[ "$output" == *done* ]]
}

@test "seccomp: an allow-list without faccessat2 and getcwd: run" {
	allowlist_case false run
}

@test "seccomp: an allow-list without faccessat2 and getcwd: run with noNewPrivileges" {
	allowlist_case true run
}

@test "seccomp: an allow-list without faccessat2 and getcwd: create and start" {
	allowlist_case false create
}

@test "seccomp: an allow-list without faccessat2 and getcwd: create and start with noNewPrivileges" {
	allowlist_case true create
}

@test "seccomp: an allow-list without faccessat2 and getcwd: exec" {
	allowlist_case false exec
}

@test "seccomp: an allow-list without faccessat2 and getcwd: exec with noNewPrivileges" {
	allowlist_case true exec
}

@test "seccomp: after the filter the runtime calls nothing but capset and the exec (default KILL_PROCESS)" {
	local nnp mode nnps="false true"
	# runc, crun: only with noNewPrivileges (see allowlist_case)
	case "$(basename "$OCI_RUNTIME")" in runc | crun) nnps=true ;; esac
	for nnp in $nnps; do
		for mode in run exec; do
			make_config
			allowlist_case "$nnp" "$mode" SCMP_ACT_KILL_PROCESS
			runtime delete --force "$CID" >/dev/null 2>&1 || true
		done
	done
}

# A cwd that root cannot enter but the user can: the chdir as root fails, the runtime
# tries again as the user, before the filter (no getcwd after it).  In a user namespace,
# root has no CAP_DAC_OVERRIDE over a directory of an unmapped owner: mode 0070, its group
# the user's.
@test "seccomp: an allow-list without getcwd, a cwd only the user may enter (user namespace)" {
	local nnp nnps="false true"
	case "$(basename "$OCI_RUNTIME")" in runc | crun) nnps=true ;; esac
	# bats' temp dir is root's alone: the rootfs goes where uid 100000 can reach it
	USERNS_DIR=$(mktemp -d /tmp/ocisbx-seccomp-userns.XXXXXX)
	chmod 755 "$USERNS_DIR"
	cp -a "$BUNDLE/rootfs" "$USERNS_DIR/rootfs"
	chmod -R a+rX "$USERNS_DIR/rootfs"
	mkdir "$USERNS_DIR/rootfs/userdir"
	chown 0:101000 "$USERNS_DIR/rootfs/userdir"
	chmod 0070 "$USERNS_DIR/rootfs/userdir"
	CWD=/userdir
	for nnp in $nnps; do
		make_config
		config_set root.path "\"$USERNS_DIR/rootfs\""
		config_add linux.namespaces '{"type":"user"}'
		config_set linux.uidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
		config_set linux.gidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
		config_set process.cwd '"/userdir"'
		allowlist_case "$nnp" run
	done
}

@test "seccomp: the first container in a fresh --root warns nothing (the cache directory is made)" {
	block_rule SCMP_ACT_ERRNO
	set_args true
	fresh="$TESTDIR/fresh/root"
	run "$OCI_RUNTIME" --root "$fresh" run -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	if is_ocisbx; then
		[ -d "$fresh/seccomp-cache" ]
	fi
}

# A profile written before a syscall existed: that syscall fails with ENOSYS, not the
# default errno, so that libc falls back (clone3 -> clone, faccessat2 -> faccessat), as
# runc does.  The profile's newest x86_64 call is rseq (334; runc's extras: close_range,
# 436): faccessat2 (439) and 1000 are newer.  acct (163) is older and not named: the
# default (EPERM); sethostname (170) is named: its errnoRet (EXDEV).
@test "seccomp: syscalls newer than the profile's newest fail with ENOSYS, older ones get the default" {
	local extra= default
	[ "$(uname -m)" = x86_64 ] || skip "raw x86_64 syscall numbers"
	requires_tool cc build-essential
	cc -static -O2 -o "$BUNDLE/rootfs/seccomp_enosys" "$HELPERS/seccomp_enosys.c"
	case "$(basename "$OCI_RUNTIME")" in
	runc) extra=",$RUNC_NNP_CALLS" ;;
	crun) extra=",$CRUN_CALLS" ;;
	esac
	config_set process.noNewPrivileges true
	set_args /seccomp_enosys 439 1000 163 170
	for default in SCMP_ACT_ERRNO SCMP_ACT_KILL_PROCESS; do
		seccomp '{"defaultAction":"'"$default"'",
			"architectures":["SCMP_ARCH_X86_64","SCMP_ARCH_X86","SCMP_ARCH_X32"],
			"syscalls":[{"names":['"$BUSYBOX_CALLS,$PRIVDROP_CALLS$extra"'],"action":"SCMP_ACT_ALLOW"},
				{"names":["sethostname"],"action":"SCMP_ACT_ERRNO","errnoRet":18}]}'
		if [ "$default" = SCMP_ACT_KILL_PROCESS ]; then
			# acct would kill: only the newer calls and the named one
			set_args /seccomp_enosys 439 1000 170
		fi
		run run_container "$CID-${default#SCMP_ACT_}"
		echo "$default: status $status: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"439=ENOSYS"* ]]
		[[ "$output" == *"1000=ENOSYS"* ]]
		[[ "$output" == *"170=EXDEV"* ]]
		if [ "$default" = SCMP_ACT_ERRNO ]; then
			[[ "$output" == *"163=EPERM"* ]]
		fi
	done
}
