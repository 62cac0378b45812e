#!/usr/bin/env bats
# exec: a new process in a running container, with the container's namespaces,
# cgroups, root, credentials and limits; foreground, detached, with a pty; errors.

load helpers/common

setup_file() { common_setup_file; }

teardown() {
	common_teardown
	[ -z "${USERNS_DIR:-}" ] || rm -rf --one-file-system "$USERNS_DIR"
}

setup() {
	common_setup
	tmpfs_at /tmp
	SOCK="$TESTDIR/console.sock"
}

# ex ARG...: `runtime exec` with stdin from /dev/null; $output, $status.
ex() {
	run runtime exec "$@" </dev/null
	echo "exec $* -> status $status: $output"
}

# host_status PID FIELD: a field of /proc/PID/status, seen from the host.
host_status() { awk -v f="$2:" '$1 == f { $1 = ""; print substr($0, 2) }' "/proc/$1/status"; }

# --- where the process runs ---------------------------------------------------

@test "exec: the process is in every namespace of the init" {
	start_ctr
	ex "$CID" sh -c 'for n in cgroup ipc mnt net pid time user uts; do echo "$n $(readlink /proc/self/ns/$n) $(readlink /proc/1/ns/$n)"; done'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 8 ]
	while read -r n mine init; do
		[ -n "$mine" ]
		[ "$mine" = "$init" ]
		# and the host agrees: the container's pid 1 is the init we created
		[ "$mine" = "$(readlink "/proc/$INIT_PID/ns/$n")" ]
	done <<<"$output"
	# new pid, net, ipc, uts and mount namespaces: not the host's
	for n in pid net ipc uts mnt; do
		[ "$(readlink "/proc/$INIT_PID/ns/$n")" != "$(readlink "/proc/self/ns/$n")" ]
	done
	ex "$CID" sh -c 'cat /proc/1/cmdline | tr "\0" " "; echo; hostname'
	[ "${lines[0]}" = "sleep 1000 " ]
	[ "${lines[1]}" = runc ]
}

@test "exec: the process sees the container's files, root and working directory" {
	start_ctr sh -c 'echo init-was-here >/tmp/marker; exec sleep 1000'
	wait_for_file "/proc/$INIT_PID/root/tmp/marker"
	ex "$CID" sh -c 'cat /tmp/marker; readlink /proc/self/root; pwd; ls /'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = init-was-here ]
	[ "${lines[1]}" = / ]
	[ "${lines[2]}" = / ]
	# the rootfs, not the host's /
	[[ "$output" == *bin* ]]
	[[ "$output" != *work* ]]
	# the same tmpfs as the init's
	ex "$CID" sh -c 'echo from-exec >/tmp/other'
	[ "$status" -eq 0 ]
	[ "$(cat "/proc/$INIT_PID/root/tmp/other")" = from-exec ]
}

@test "exec: the process is in the container's cgroups" {
	start_ctr
	ex "$CID" sh -c 'cat /proc/self/cgroup; echo ---; cat /proc/1/cgroup'
	[ "$status" -eq 0 ]
	[ "$(sed -n '1,/^---$/p' <<<"$output" | sed '$d')" = "$(sed -n '/^---$/,$p' <<<"$output" | sed 1d)" ]
	# seen from the host, too
	runtime exec -d --pid-file "$TESTDIR/pid" "$CID" sleep 100 </dev/null >/dev/null 2>&1
	pid=$(cat "$TESTDIR/pid")
	diff "/proc/$INIT_PID/cgroup" "/proc/$pid/cgroup"
}

# --- exit status ----------------------------------------------------------------

@test "exec: returns the process's exit code, 128+N for a signal" {
	start_ctr
	ex "$CID" true
	[ "$status" -eq 0 ]
	ex "$CID" sh -c 'exit 7'
	[ "$status" -eq 7 ]
	ex "$CID" sh -c 'kill -9 $$'
	[ "$status" -eq 137 ]
	ex "$CID" sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
}

@test "exec: stdin, stdout and stderr are passed through" {
	start_ctr
	run runtime exec "$CID" sh -c 'cat; echo end' < <(printf 'line1\nline2\n')
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "line1
line2
end" ]
	runtime exec "$CID" sh -c 'echo out; echo err >&2' >"$TESTDIR/out" 2>"$TESTDIR/err" </dev/null
	[ "$(cat "$TESTDIR/out")" = out ]
	[ "$(cat "$TESTDIR/err")" = err ]
}

@test "exec: a missing or non-executable command is reported like a shell would" {
	start_ctr
	ex "$CID" no-such-command
	[[ "$output" == *no-such-command*'executable file not found in $PATH'* ]]
	if is_ocisbx; then [[ "$output" == *'exec: "no-such-command": executable file not found in $PATH'* ]]; fi
	if is_ocisbx; then [ "$status" -eq 127 ]; else [ "$status" -ne 0 ]; fi
	ex "$CID" /etc/passwd
	[[ "$output" == *'permission denied'* ]]
	if is_ocisbx; then [ "$status" -eq 126 ]; else [ "$status" -ne 0 ]; fi
	ex "$CID" /no/such/file
	[ "$status" -ne 0 ]
	[[ "$output" == *'no such file or directory'* ]]
	# nothing of the failed execs is left in the container
	ex "$CID" ps -o pid,args
	[ "${#lines[@]}" -eq 3 ] # header, sleep, ps
}

@test "exec: signals to the runtime are forwarded to the process" {
	start_ctr
	runtime exec "$CID" sh -c 'trap "echo got-term; exit 5" TERM; echo ready; while :; do sleep 0.1; done' \
		</dev/null >"$TESTDIR/out" 2>&1 &
	rt=$!
	wait_for_file "$TESTDIR/out"
	# the runtime itself, not `timeout` around it
	pid=$(pgrep -P "$rt" -f "exec $CID" || pgrep -f "exec $CID sh")
	kill -TERM "$pid"
	rc=0
	wait "$rt" || rc=$?
	cat "$TESTDIR/out"
	[ "$rc" -eq 5 ]
	grep -qx got-term "$TESTDIR/out"
}

# hup_forwarded RC_VAR CMD...: CMD (a foreground run or exec of a process that exits 7
# on SIGHUP) started under nohup, so SIGHUP is ignored from the start (no `timeout`
# around it: that would catch the signal); then SIGHUP to the runtime.  Fails if the
# runtime is still there after 20 s.
hup_forwarded() {
	nohup "$@" </dev/null >"$TESTDIR/hup.out" 2>&1 &
	local rt=$! rc=0
	wait_for_output ready 20 "the process's trap" head -n 1 "$TESTDIR/hup.out"
	kill -HUP "$rt"
	wait_pid_gone "$rt" 20 || { kill -KILL "$rt"; cat "$TESTDIR/hup.out"; return 1; }
	wait "$rt" || rc=$?
	cat "$TESTDIR/hup.out"
	[ "$rc" -eq 7 ]
	grep -qx got-hup "$TESTDIR/hup.out"
}

@test "exec, run: a runtime started with SIGHUP ignored (nohup) forwards it all the same" {
	local trap='trap "echo got-hup; exit 7" HUP; echo ready; while :; do sleep 0.1; done'
	start_ctr
	hup_forwarded "$OCI_RUNTIME" --root "$ROOT" exec "$CID" sh -c "$trap"
	set_args sh -c "$trap"
	hup_forwarded "$OCI_RUNTIME" --root "$ROOT" run -b "$BUNDLE" "$CID-run"
}

# --- the process's settings -----------------------------------------------------

@test "exec: env is the container's with -e over it, cwd and user flags" {
	config_set process.env '["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "KEEP=kept", "OVER=old"]'
	start_ctr
	ex -e OVER=new -e "SPACED=a b" -e NEW= "$CID" env
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output")" = "$(printf '%s\n' HOME=/root KEEP=kept NEW= OVER=new PATH=/usr/sbin:/usr/bin:/sbin:/bin 'SPACED=a b')" ]
	ex --cwd /etc "$CID" pwd
	[ "$output" = /etc ]
	ex -u 1000 "$CID" sh -c 'id -u; id -g; echo $HOME'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[ "${lines[1]}" = 0 ] # the config's gid: only the uid was given
	[ "${lines[2]}" = /home/user ]
	ex --user 1000:1000 -g 10 -g 20 "$CID" sh -c 'id -u; id -g; id -G'
	[ "${lines[0]}" = 1000 ]
	[ "${lines[1]}" = 1000 ]
	[ "$(tr ' ' '\n' <<<"${lines[2]}" | sort -n | xargs)" = "10 20 1000" ]
	# a cwd that does not exist is an error
	ex --cwd /nonexistent "$CID" true
	[ "$status" -ne 0 ]
}

@test "exec: the process gets the container's oomScoreAdj" {
	# raised: lowering it needs CAP_SYS_RESOURCE, which this machine's root may lack
	config_set process.oomScoreAdj 300
	start_ctr
	ex "$CID" cat /proc/self/oom_score_adj
	[ "$status" -eq 0 ]
	[ "$output" = 300 ]
}

@test "exec: capabilities, no_new_privs, rlimits and seccomp are the container's" {
	config_set linux.seccomp '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["mkdir","mkdirat"],"action":"SCMP_ACT_ERRNO"}]}'
	start_ctr
	ex "$CID" sh -c 'grep -E "^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):" /proc/self/status; ulimit -n'
	[ "$status" -eq 0 ]
	for f in CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs Seccomp; do
		grep -qx "$f:"$'\t'"$(host_status "$INIT_PID" "$f")" <<<"$output"
	done
	grep -qx 'NoNewPrivs:.1' <<<"$output"
	grep -qx 'Seccomp:.2' <<<"$output"
	[ "${lines[-1]}" -eq 1024 ]
	ex "$CID" mkdir /tmp/d
	[ "$status" -ne 0 ]
	[[ "$output" == *"not permitted"* ]]
}

@test "exec --cap: adds to the bounding, effective and permitted sets, never inheritable or ambient" {
	# CVE-2022-29162: an inheritable or ambient capability survives execve of unprivileged programs
	config_set process.noNewPrivileges false
	start_ctr
	ex --cap CAP_SYS_ADMIN "$CID" sh -c 'grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb):" /proc/self/status'
	[ "$status" -eq 0 ]
	for line in "${lines[@]}"; do
		bit=$(((0x${line##*$'\t'} >> 21) & 1))
		case "$line" in
		CapInh* | CapAmb*) [ "$bit" -eq 0 ] ;;
		*) [ "$bit" -eq 1 ] ;;
		esac
	done
	[ "${#lines[@]}" -eq 5 ]
}

@test "exec --cap: an unknown capability is a warning and left out, as in process.capabilities" {
	config_set process.noNewPrivileges false
	start_ctr
	run runtime exec --cap CAP_UNKNOWN --cap CAP_SYS_ADMIN "$CID" sh -c 'grep -E "^CapEff:" /proc/self/status' </dev/null
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"CAP_UNKNOWN"* ]]
	# CAP_SYS_ADMIN (21) applies
	eff=$(grep '^CapEff:' <<<"$output" | cut -f2)
	[ $(((0x$eff >> 21) & 1)) -eq 1 ]
}

@test "exec: --no-new-privs sets no_new_privs when the container does not" {
	config_set process.noNewPrivileges false
	start_ctr
	ex "$CID" grep NoNewPrivs /proc/self/status
	[ "$output" = "NoNewPrivs:"$'\t'"0" ]
	ex --no-new-privs "$CID" grep NoNewPrivs /proc/self/status
	[ "$output" = "NoNewPrivs:"$'\t'"1" ]
}

@test "exec --process: execCPUAffinity final, or every CPU again after initial (ocisbx-only)" {
	requires_ocisbx "runc 1.1 predates execCPUAffinity (runc 1.2)"
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs, this runner has $(nproc)"
	all=$(grep '^Cpus_allowed_list:' /proc/self/status | cut -f2)
	start_ctr
	for aff in '"final":"1"' '"initial":"1"'; do
		cat >"$TESTDIR/process.json" <<-EOF
			{"args": ["sh", "-c", "grep ^Cpus_allowed_list: /proc/self/status | cut -f2"],
			 "env": ["PATH=/bin:/usr/bin"], "cwd": "/", "user": {"uid": 0, "gid": 0},
			 "execCPUAffinity": {$aff}}
		EOF
		ex --process "$TESTDIR/process.json" "$CID"
		echo "$aff: $output"
		[ "$status" -eq 0 ]
		if [[ "$aff" == *final* ]]; then [ "$output" = 1 ]; else [ "$output" = "$all" ]; fi
	done
}

@test "exec --process: a process.json as conmon writes it" {
	start_ctr
	cat >"$TESTDIR/process.json" <<-'EOF'
		{
		  "terminal": false,
		  "user": {"uid": 1000, "gid": 1000, "additionalGids": [20]},
		  "args": ["sh", "-c", "echo \"$FOO\"; pwd; id -u; id -G; grep NoNewPrivs /proc/self/status"],
		  "env": ["PATH=/bin:/usr/bin", "FOO=from-process-json", "HOME=/tmp"],
		  "cwd": "/tmp",
		  "capabilities": {"bounding": ["CAP_KILL"], "effective": ["CAP_KILL"], "permitted": ["CAP_KILL"]},
		  "noNewPrivileges": true
		}
	EOF
	ex --process "$TESTDIR/process.json" "$CID"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = from-process-json ]
	[ "${lines[1]}" = /tmp ]
	[ "${lines[2]}" = 1000 ]
	[ "$(tr ' ' '\n' <<<"${lines[3]}" | sort -n | xargs)" = "20 1000" ]
	[ "${lines[4]}" = "NoNewPrivs:"$'\t'"1" ]
	ex -p "$TESTDIR/missing.json" "$CID"
	[ "$status" -ne 0 ]
}

# --- detached ---------------------------------------------------------------------

@test "exec -d --pid-file: returns while the process runs; the pid file names it" {
	start_ctr
	# not under `run`: the process keeps the runtime's stdout, which `run` would wait for
	runtime exec -d --pid-file "$TESTDIR/exec.pid" "$CID" sh -c 'sleep 0.5; echo done >/tmp/detached; sleep 100' \
		</dev/null >"$TESTDIR/rt.out" 2>&1
	pid=$(cat "$TESTDIR/exec.pid")
	[[ "$pid" =~ ^[0-9]+$ ]]
	pid_alive "$pid"
	[ "$(readlink "/proc/$pid/ns/pid")" = "$(readlink "/proc/$INIT_PID/ns/pid")" ]
	# only the pid file: no temporary file left beside it
	[ "$(ls "$TESTDIR" | grep -c exec.pid)" -eq 1 ]
	wait_until 30 test -e "/proc/$INIT_PID/root/tmp/detached"
	[ "$(cat "/proc/$INIT_PID/root/tmp/detached")" = done ]
	# the runtime is gone: the process was reparented
	[ "$(awk '{print $4}' "/proc/$pid/stat")" -ne "$$" ]
	kill -9 "$pid"
}

@test "exec: the process leads its own process group and session" {
	start_ctr
	ex "$CID" sh -c 'read -r pid comm state ppid pgrp sid rest </proc/self/stat; echo "$pid $pgrp $sid"'
	[ "$status" -eq 0 ]
	read -r pid pgrp sid <<<"$output"
	[ "$pid" -gt 1 ]
	[ "$pgrp" -eq "$pid" ]
	[ "$sid" -eq "$pid" ]
}

# --- terminal ---------------------------------------------------------------------

@test "exec -t --console-socket: the pty goes to the socket, with the config's size" {
	config_set process.consoleSize '{"height":30,"width":100}'
	start_ctr
	start_recvtty --winsize "$TESTDIR/winsize"
	runtime exec -d -t --console-socket "$SOCK" "$CID" sh -c 'tty; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-ttys; stty size; sleep 0.2' \
		</dev/null >"$TESTDIR/rt.out" 2>&1
	wait_recvtty
	run tr -d '\r' <"$TESTDIR/tty.out"
	echo "$output"
	[[ "${lines[0]}" == /dev/pts/* ]]
	[ "${lines[1]}" = all-ttys ]
	[ "${lines[2]}" = "30 100" ]
	[ "$(cat "$TESTDIR/winsize")" = "30 100" ]
	[ ! -s "$TESTDIR/rt.out" ]
}

@test "exec -t: a relayed pty of the caller's size, in raw mode" {
	start_ctr
	# runc 1.1 sizes the pty only after the process started: wait for a size
	settle='for i in $(seq 30); do case "$(stty size 2>/dev/null)" in "" | "0 "*) sleep 0.1 ;; *) break ;; esac; done;'
	cmd=$(printf '%q ' "$OCI_RUNTIME" --root "$ROOT" exec -t "$CID" sh -c "$settle tty; stty size; exit 3")
	run timeout 20 script -qec "stty rows 33 cols 111; $cmd" /dev/null </dev/null
	output=$(tr -d '\r' <<<"$output")
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"/dev/pts/"* ]]
	[[ "$output" == *"33 111"* ]]
}

@test "exec: -d with -t needs --console-socket; --console-socket needs -t" {
	start_ctr
	ex -d -t "$CID" true
	[ "$status" -ne 0 ]
	start_recvtty
	ex -d --console-socket "$SOCK" "$CID" true
	[ "$status" -ne 0 ]
}

# --- container states -------------------------------------------------------------

@test "exec: a missing container is an error" {
	ex nonexistent-"$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"does not exist"* ]]
}

@test "exec: a stopped container is an error" {
	# (not start_ctr: its wait for "running" would race with the process's end)
	set_args true
	create_container "$CID"
	runtime start "$CID"
	wait_for_status "$CID" stopped 30
	ex "$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *stopped* ]]
}

@test "exec: into a created container, as runc; start works afterwards" {
	set_args sh -c 'echo started >/tmp/started; exec sleep 100'
	create_container "$CID"
	ex "$CID" sh -c 'echo in-created; ls /tmp'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = in-created ]
	[ "${#lines[@]}" -eq 1 ] # the process has not run yet
	[ "$(container_status "$CID")" = created ]
	runtime start "$CID"
	wait_for_status "$CID" running
	started() { ex "$CID" cat /tmp/started; [ "$output" = started ]; }
	wait_until 30 started
}

@test "exec: a paused container is an error unless --ignore-paused" {
	start_ctr
	runtime pause "$CID"
	wait_for_status "$CID" paused
	ex "$CID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot exec in a paused container"* ]]
	runtime exec --ignore-paused "$CID" sh -c 'echo ran' </dev/null >"$TESTDIR/out" 2>&1 &
	rt=$!
	# once the exec's process is in the container's cgroup it is frozen with it
	exec_joined() { [ "$(ctr_pid_count)" -ge 2 ]; }
	wait_until 30 exec_joined
	pid_alive "$rt"
	[ ! -s "$TESTDIR/out" ]
	runtime resume "$CID"
	wait "$rt"
	[ "$(cat "$TESTDIR/out")" = ran ]
}

# --- many, and nothing left -------------------------------------------------------

@test "exec: 50 concurrent execs all succeed" {
	start_ctr
	pids=()
	for i in $(seq 50); do
		runtime exec "$CID" sh -c "echo exec-$i" </dev/null >"$TESTDIR/out.$i" 2>&1 &
		pids+=($!)
	done
	failed=0
	for i in $(seq 50); do
		wait "${pids[$((i - 1))]}" || { failed=$((failed + 1)); cat "$TESTDIR/out.$i"; }
		[ "$(cat "$TESTDIR/out.$i")" = "exec-$i" ] || { failed=$((failed + 1)); cat "$TESTDIR/out.$i"; }
	done
	[ "$failed" -eq 0 ]
	# nothing left behind in the container
	ex "$CID" ps -o pid,args
	[ "${#lines[@]}" -eq 3 ]
}

@test "exec: only stdio (and --preserve-fds) reach the process" {
	start_ctr
	run runtime exec "$CID" ls /proc/self/fd 5</dev/null 7>/dev/null </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	# 0 1 2, and the directory ls reads
	[ "$(xargs <<<"$output")" = "0 1 2 3" ]
	run runtime exec --preserve-fds 1 "$CID" sh -c 'cat <&3' 3< <(echo through-fd-3) </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = through-fd-3 ]
}

@test "exec: while it waits, the runtime holds nothing of the container open" {
	requires_ocisbx "looks into the runtime's own fds"
	start_ctr
	runtime exec --pid-file "$TESTDIR/pid" "$CID" sleep 100 </dev/null >/dev/null 2>&1 &
	rt=$!
	wait_for_file "$TESTDIR/pid"
	pid=$(cat "$TESTDIR/pid")
	ocisbx_pid=$(awk '{print $4}' "/proc/$pid/stat")
	caller=$(awk '{print $4}' "/proc/$ocisbx_pid/stat")
	[ "$(readlink "/proc/$ocisbx_pid/exe")" != "$(readlink "/proc/$caller/exe")" ]
	ls -l "/proc/$caller/fd" "/proc/$ocisbx_pid/fd"
	# what it has beyond what it inherited: its pidfd of the process and a signalfd
	extra=$(comm -13 <(ls "/proc/$caller/fd" | sort) <(ls "/proc/$ocisbx_pid/fd" | sort))
	[ "$(wc -w <<<"$extra")" -eq 2 ]
	for fd in $extra; do
		[[ "$(readlink "/proc/$ocisbx_pid/fd/$fd")" == anon_inode:* ]]
	done
	kill "$pid"
	rc=0
	wait "$rt" || rc=$?
	[ "$rc" -eq 143 ]
}

@test "exec: into a container with a user namespace" {
	# bats' temp dir is root's alone: the rootfs goes where uid 100000 can reach it
	USERNS_DIR=$(mktemp -d /tmp/ocisbx-exec-userns.XXXXXX)
	chmod 755 "$USERNS_DIR"
	cp -a "$BUNDLE/rootfs" "$USERNS_DIR/rootfs"
	chmod -R a+rX "$USERNS_DIR/rootfs"
	config_set root.path "\"$USERNS_DIR/rootfs\""
	config_add linux.namespaces '{"type":"user"}'
	config_set linux.uidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	config_set linux.gidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	start_ctr
	ex "$CID" sh -c 'id -u; readlink /proc/self/ns/user; cat /proc/self/uid_map'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = "$(readlink "/proc/$INIT_PID/ns/user")" ]
	[ "$(xargs <<<"${lines[2]}")" = "0 100000 65536" ]
	runtime exec -d --pid-file "$TESTDIR/pid" "$CID" sleep 100 </dev/null >/dev/null 2>&1
	# uid 0 in the container is 100000 on the host
	[ "$(awk '/^Uid:/ {print $2}' "/proc/$(cat "$TESTDIR/pid")/status")" -eq 100000 ]
}

@test "exec: a seccomp listener gets the exec's notify fd too" {
	[ "$(uname -m)" = x86_64 ] || skip "the agent decodes x86_64 notifications"
	AGENT_SOCK="$TESTDIR/agent.sock"
	AGENT_OUT="$TESTDIR/agent.json"
	"$PYTHON" "$HELPERS/seccomp_agent.py" "$AGENT_SOCK" "$AGENT_OUT" 3>&- &
	wait_until 30 test -S "$AGENT_SOCK"
	config_set linux.seccomp '{"defaultAction":"SCMP_ACT_ALLOW","listenerPath":"'"$AGENT_SOCK"'",
		"syscalls":[{"names":["mkdir","mkdirat"],"action":"SCMP_ACT_NOTIFY"}]}'
	start_ctr
	wait_for_file "$AGENT_OUT"
	rm -f "$AGENT_OUT"
	ex "$CID" sh -c 'mkdir /tmp/d; echo after=$?'
	[[ "$output" == *"No medium found"* ]] # the agent's answer (ENOMEDIUM)
	[[ "$output" == *after=1* ]]
	wait_for_file "$AGENT_OUT"
	cat "$AGENT_OUT"
	"$PYTHON" - "$AGENT_OUT" "$CID" <<-'PY'
		import json, sys
		d = json.load(open(sys.argv[1]))
		st = d["state"]
		assert d["nfds"] == 1, d
		assert st["fds"] == ["seccompFd"], st
		assert st["state"]["id"] == sys.argv[2], st
		assert isinstance(st["pid"], int) and st["pid"] > 0, st
	PY
}
