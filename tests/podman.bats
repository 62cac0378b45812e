#!/usr/bin/env bats
# podman 4.x (through conmon) driving $OCI_RUNTIME: the workflows a container engine
# uses.  Everything runs in an isolated podman home (see helpers/podman.bash); the image
# is a local busybox made with `podman import`; the network is "none".
#
#   OCI_RUNTIME=/usr/sbin/runc bats tests/podman.bats          # reference
#   OCI_RUNTIME=/work/build-X/ocisbx bats tests/podman.bats

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/podman
load helpers/tree
load helpers/tmux

setup_file() {
	[ -x "$OCI_RUNTIME" ] || {
		echo "OCI_RUNTIME=$OCI_RUNTIME is not an executable" >&2
		return 1
	}
	podman_setup_file
}

teardown_file() { podman_teardown_file; }

setup() {
	TESTDIR="$BATS_TEST_TMPDIR"
	NAME="pt$BATS_TEST_NUMBER"
	HOSTDIR="$TESTDIR/host"
	mkdir -p "$HOSTDIR"
}

teardown() {
	tmux_stop
	podman_teardown
}

# run_d NAME ARGS...: `podman run -d --name NAME ARGS` and wait for it to be running.
run_d() {
	local name=$1
	shift
	pm_runq -d --name "$name" "$@" >/dev/null
	pm_wait_state "$name" running
}

# wait_file FILE [SECONDS=10]
wait_file() { wait_for_file "$1" "${2:-10}"; }

# the shell snippet that prints the pty's size once it has one: podman sends the
# size to conmon (its ctl fifo) while the runtime starts the process, so the process
# may run before the pty is sized (busybox stty then fails or prints nothing)
STTY_SIZE='for i in $(seq 30); do s=$(stty size 2>/dev/null); case "$s" in "" | "0 "* | *" 0") ;; *) break ;; esac; sleep 0.1; done; echo "size:$s"'

# --- run: output and exit codes -------------------------------------------------

@test "run --rm: output, exit code 0, and the container is gone" {
	run pm_runq --rm --name "$NAME" "$PM_IMAGE" echo hello from the container
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "hello from the container" ]
	run pm ps -aq --filter "name=$NAME"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "run --rm: the process's exit code (3) is podman's" {
	run pm_runq --rm "$PM_IMAGE" sh -c 'echo out; echo err >&2; exit 3'
	[ "$status" -eq 3 ]
	[[ "$output" == *out* ]]
	[[ "$output" == *err* ]]
}

@test "run: a missing command exits 127 and podman shows the runtime's message" {
	run -127 pm_runq --rm "$PM_IMAGE" /no/such/binary
	echo "$output"
	# the runtime's own error text, not just podman's wrapper
	[[ "$output" == */no/such/binary* ]]
	[[ "$output" == *"no such file or directory"* || "$output" == *"not found"* ]]

	run -127 pm_runq --rm "$PM_IMAGE" no-such-command
	echo "$output"
	[[ "$output" == *no-such-command* ]]
}

@test "run: a non-executable file exits 126 (permission denied)" {
	run pm_runq --rm "$PM_IMAGE" /etc/passwd
	echo "$output"
	[ "$status" -eq 126 ]
	[[ "$output" == *"permission denied"* ]]
}

@test "run -d, ps, logs, stop, rm" {
	run pm_runq -d --name "$NAME" "$PM_IMAGE" sh -c 'echo started; while :; do sleep 0.1; done'
	[ "$status" -eq 0 ]
	id=$output
	[ "${#id}" -eq 64 ]
	pm_wait_state "$NAME" running
	run pm ps --format '{{.ID}} {{.Names}} {{.Status}}'
	[[ "$output" == *"${id:0:12} $NAME Up"* ]]
	pm_wait_log "$NAME" started
	# sh as pid 1 does not die of an untrapped SIGTERM: stop needs the SIGKILL
	run pm stop -t 1 "$NAME"
	[ "$status" -eq 0 ]
	[ "$(pm_state "$NAME")" = exited ]
	run pm ps -q
	[[ "$output" != *"${id:0:12}"* ]]
	run pm ps -a --format '{{.Names}} {{.Status}}'
	[[ "$output" == *"$NAME Exited"* ]]
	run pm rm "$NAME"
	[ "$status" -eq 0 ]
	run pm inspect "$NAME"
	[ "$status" -ne 0 ]
}

@test "stop: a process trapping SIGTERM gets it and exits with its code" {
	run_d "$NAME" "$PM_IMAGE" sh -c 'trap "echo got-term; exit 42" TERM; echo ready; while :; do sleep 0.1; done'
	pm_wait_log "$NAME" ready
	start=$(date +%s%N)
	run pm stop -t 10 "$NAME"
	[ "$status" -eq 0 ]
	elapsed_ms=$((($(date +%s%N) - start) / 1000000))
	echo "stop took ${elapsed_ms}ms"
	[ "$elapsed_ms" -lt 5000 ]
	[ "$(pm inspect --format '{{.State.ExitCode}}' "$NAME")" -eq 42 ]
	run pm logs "$NAME"
	[[ "$output" == *got-term* ]]
}

@test "stop -t 2: a process ignoring SIGTERM is killed after 2 seconds" {
	run_d "$NAME" "$PM_IMAGE" sh -c 'trap "" TERM; echo ready; while :; do sleep 0.1; done'
	pm_wait_log "$NAME" ready
	start=$(date +%s%N)
	run pm stop -t 2 "$NAME"
	[ "$status" -eq 0 ]
	elapsed_ms=$((($(date +%s%N) - start) / 1000000))
	echo "stop took ${elapsed_ms}ms"
	[ "$elapsed_ms" -ge 1900 ]
	[ "$elapsed_ms" -lt 15000 ]
	[ "$(pm_state "$NAME")" = exited ]
	[ "$(pm inspect --format '{{.State.ExitCode}}' "$NAME")" -eq 137 ]
}

@test "kill --signal: the process gets the signal; kill without one kills" {
	run_d "$NAME" "$PM_IMAGE" sh -c 'trap "echo got-usr1" USR1; trap "echo got-hup; exit 7" HUP; echo ready; while :; do sleep 0.1; done'
	pm_wait_log "$NAME" ready
	run pm kill --signal USR1 "$NAME"
	[ "$status" -eq 0 ]
	pm_wait_log "$NAME" got-usr1
	[ "$(pm_state "$NAME")" = running ]
	run pm kill -s HUP "$NAME"
	[ "$status" -eq 0 ]
	pm_wait_state "$NAME" exited
	[ "$(pm inspect --format '{{.State.ExitCode}}' "$NAME")" -eq 7 ]

	run_d "$NAME-2" "$PM_IMAGE" sleep 1000
	run pm kill "$NAME-2"
	[ "$status" -eq 0 ]
	pm_wait_state "$NAME-2" exited
	[ "$(pm inspect --format '{{.State.ExitCode}}' "$NAME-2")" -eq 137 ]
}

# --- exec -----------------------------------------------------------------------

@test "exec: output, exit codes, missing and non-executable commands" {
	run_d "$NAME" "$PM_IMAGE" sleep 1000
	run pm exec "$NAME" sh -c 'echo in-exec; cat /proc/1/cmdline | tr "\0" " "'
	[ "$status" -eq 0 ]
	[ "$output" = "in-exec
sleep 1000 " ]
	run pm exec "$NAME" sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run -127 pm exec "$NAME" no-such-command
	echo "$output"
	[[ "$output" == *no-such-command* ]]
	run pm exec "$NAME" /etc/passwd
	echo "$output"
	[ "$status" -eq 126 ]
	# a plain exec has no terminal
	run pm exec "$NAME" tty
	[ "$status" -eq 1 ]
	[ "$output" = "not a tty" ]
}

@test "exec -t: a terminal; exec -i: stdin" {
	run_d "$NAME" "$PM_IMAGE" sleep 1000
	run pm exec -t "$NAME" tty </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$(echo "$output" | tr -d '\r')" == /dev/pts/* ]]
	run pm_pty -s 33x111 exec -t "$NAME" sh -c "tty; [ -t 0 ] && echo stdin-is-tty; $STTY_SIZE"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"/dev/pts/"* ]]
	[[ "$output" == *"size:33 111"* ]]
	[[ "$output" == *stdin-is-tty* ]]

	run pm exec -i "$NAME" sh -c 'cat; echo end' < <(printf 'line1\nline2\n')
	[ "$status" -eq 0 ]
	[ "$output" = "line1
line2
end" ]
	# without -i, stdin is not passed
	run pm exec "$NAME" sh -c 'cat; echo end' < <(printf 'line1\n')
	[ "$status" -eq 0 ]
	[ "$output" = end ]
}

@test "exec --user, --workdir, -e, --detach" {
	run_d "$NAME" "$PM_IMAGE" sleep 1000
	run pm exec --user 1000 "$NAME" sh -c 'id -u; id -g'
	[ "$status" -eq 0 ]
	[ "$output" = "1000
1000" ]
	run pm exec --user nobody "$NAME" id -un
	[ "$output" = nobody ]
	run pm exec --user 1000:0 "$NAME" sh -c 'id -u; id -g'
	[ "$output" = "1000
0" ]
	run pm exec --workdir /etc "$NAME" pwd
	[ "$output" = /etc ]
	run pm exec -e FOO=bar -e SPACED="a b" "$NAME" sh -c 'echo "$FOO|$SPACED"'
	[ "$output" = "bar|a b" ]
	# the detached process waits for /tmp/go, made once podman returned: --detach did
	# not wait for it; its answer is renamed into place, never read half-written
	run pm exec --detach "$NAME" sh -c 'while [ ! -e /tmp/go ]; do sleep 0.1; done
		echo detached >/tmp/d.new; mv /tmp/d.new /tmp/d'
	[ "$status" -eq 0 ]
	pm exec "$NAME" touch /tmp/go
	detached_done() { [ "$(pm exec "$NAME" cat /tmp/d 2>/dev/null)" = detached ]; }
	wait_until 60 detached_done || {
		pm exec "$NAME" sh -c 'ls -l /tmp; ps' >&2
		false
	}
}

@test "exec: with --annotation io.github.ocisbx.exec.kill-tree=true, podman exec CTR kill LEADER takes the leader's whole tree; a killed podman exec client does not" {
	requires_ocisbx "the exec tree annotation is ocisbx's"
	run_d "$NAME" --annotation io.github.ocisbx.exec.kill-tree=true "$PM_IMAGE" sleep 1000
	init=$(pm_pid "$NAME")
	# another exec, which goes on (its client's bound: the whole test's, not pm's 30 s,
	# which a loaded machine exceeds: the client then ends and the check below fails)
	PM_TIMEOUT=900 pm exec "$NAME" sleep 299 </dev/null >/dev/null 2>&1 &
	other=$!
	wait_for_output 1 20 "the other exec" ns_count "$init" sleep 299

	# 1. the podman client killed (SIGKILL): conmon runs the exec detached and stays, so
	# nothing reaches the tree (README: "podman exec CTR kill LEADER_PID")
	PM_TIMEOUT=900 pm exec "$NAME" sh -c "$TREE_CMD" </dev/null >/dev/null 2>&1 &
	client=$!
	wait_for_output 3 20 "sleeps of the tree" tree_sleeps "$init"
	kill -KILL "$(descendant_pid "$client" podman)"
	wait "$client" || true
	sleep 1
	[ "$(tree_sleeps "$init")" -eq 3 ]
	leader=$(first_child "$(tree_reaper "$init")")
	run pm exec "$NAME" kill "$(ns_pid "$leader")"
	[ "$status" -eq 0 ]
	wait_for_output 0 20 "sleeps of the tree left" tree_sleeps "$init"

	# 2. a running client returns the leader's status; the same kill -9
	PM_TIMEOUT=900 pm exec "$NAME" sh -c "$TREE_CMD" </dev/null >/dev/null 2>&1 &
	client=$!
	wait_for_output 3 20 "sleeps of the tree" tree_sleeps "$init"
	leader=$(first_child "$(tree_reaper "$init")")
	run pm exec "$NAME" kill -9 "$(ns_pid "$leader")"
	[ "$status" -eq 0 ]
	rc=0
	wait "$client" || rc=$?
	[ "$rc" -eq 137 ]
	wait_for_output 0 20 "sleeps of the tree left" tree_sleeps "$init"

	[ -z "$(ns_zombies "$init")" ]
	[ "$(pm_state "$NAME")" = running ]
	[ "$(ns_count "$init" sleep 299)" -eq 1 ]
	pid_alive "$other"
}

@test "exec: with --annotation io.github.ocisbx.exec.pids-limit/memory, each podman exec has a cgroup of its own: a fork bomb and a memory hog are stopped there, the container and another exec go on" {
	requires_ocisbx "the per-exec cgroup annotations are ocisbx's"
	run_d "$NAME" --annotation io.github.ocisbx.exec.kill-tree=true --annotation io.github.ocisbx.exec.pids-limit=5 \
		--annotation io.github.ocisbx.exec.memory=32m "$PM_IMAGE" sleep 1000
	init=$(pm_pid "$NAME")
	PM_TIMEOUT=900 pm exec "$NAME" sleep 299 </dev/null >/dev/null 2>&1 &
	other=$!
	wait_for_output 1 20 "the other exec" ns_count "$init" sleep 299
	# the fork bomb: refused past 5 tasks in the exec's own pids cgroup
	run pm exec "$NAME" sh -c 'grep pids /proc/self/cgroup; for i in $(seq 20); do sleep 30 & done 2>&1; echo loop-done'
	echo "$output"
	[[ "$output" == *"/ocisbx-exec-"* ]]
	[[ "$output" == *"can't fork"* ]]
	# the hog: a 200 MB shell variable, OOM-killed in its own 32 MiB
	run pm exec "$NAME" sh -c 'x=$(head -c 200000000 /dev/zero | tr "\0" a); echo survived'
	echo "$output"
	[ "$status" -eq 137 ]
	[[ "$output" != *survived* ]]
	[ "$(pm_state "$NAME")" = running ]
	pid_alive "$init"
	[ "$(ns_count "$init" sleep 299)" -eq 1 ]
	pid_alive "$other"
}

# --- terminal -------------------------------------------------------------------

@test "run -t: the process has a pty as stdin/stdout with the terminal's size" {
	run pm_pty run --rm -t "$PM_IMAGE" sh -c "tty; [ -t 0 ] && echo stdin-tty; [ -t 1 ] && echo stdout-tty; $STTY_SIZE"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"/dev/pts/0"* ]]
	[[ "$output" == *stdin-tty* ]]
	[[ "$output" == *stdout-tty* ]]
	[[ "$output" == *"size:24 80"* ]]
	run pm_pty -s 30x100 run --rm -t "$PM_IMAGE" sh -c "$STTY_SIZE"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"size:30 100"* ]]
	run pm_pty run --rm -t "$PM_IMAGE" sh -c 'exit 5'
	[ "$status" -eq 5 ]
}

@test "run -it: input typed on the terminal reaches the process" {
	# script's stdin is a pipe: its contents are typed on podman's terminal, once the
	# container runs; the pipe stays open until the container is gone (its end is EOF)
	running() { [ "$(pm_state "$NAME" 2>/dev/null)" = running ]; }
	gone() { ! pm_state "$NAME" >/dev/null 2>&1; }
	run timeout -k 5 60 script -qec "cd $(printf %q "$PM_DIR") && $(pm_argv --tty run --rm -it --name "$NAME" "$PM_IMAGE" sh -c 'read -r line; echo "got:$line"')" /dev/null \
		< <(wait_until 50 running; echo typed-text; wait_until 50 gone)
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"got:typed-text"* ]]
}

# pm_screen_session ARGS...: in a tmux window (helpers/tmux.bash), a shell runs `pm ARGS`
# (an interactive sh in the container); what the screen shows: the container's lines
# begin at column 0, busybox vi draws its screen, the exit code comes back.
pm_screen_session() {
	local line
	line=$(pm_argv --tty "$@")
	tmux_start env --default-signal PS1='host$ ' sh -c 'cd "$1" && exec sh' sh "$PM_DIR"
	tmux_wait_screen '^host\$'
	# the shell's own job: podman in the terminal's foreground, the shell kept
	tmux_line "clear; ${line#exec }; echo \"rc=\$?\""
	tmux_wait_screen '^/ #'
	tmux_line "printf 'l1\\nl2\\nl3\\n'"
	tmux_wait_screen 'l3$'
	[ "$(tmux_screen | grep -xE 'l[123]' | tr '\n' ' ')" = "l1 l2 l3 " ] || { tmux_screen; false; }
	tmux_line 'clear; vi'
	tmux_wait_screen '^~$'
	tmux_type i
	tmux_type 'hello vi'
	tmux_keys Escape
	tmux_wait_screen '^hello vi$'
	[ "$(tmux_row 1)" = 'hello vi' ] && [ "$(tmux_row 29)" = '~' ] || { tmux_screen; false; }
	tmux_type ':q!'
	tmux_keys Enter
	tmux_wait_screen '^/ #$'
	tmux_line_until '^rc=3$' 'exit 3'
}

@test "run -it, exec -it: on a screen (tmux) lines begin at column 0 and vi draws" {
	pm_screen_session run --rm -it "$PM_IMAGE" sh
	tmux_stop
	run_d "$NAME" "$PM_IMAGE" sleep 1000
	pm_screen_session exec -it "$NAME" sh
}

# --- process and container options ----------------------------------------------

@test "--user, --workdir, -e, --hostname" {
	run pm_runq --rm --user 1000:1000 --workdir /home/user -e FOO=bar --hostname myhost "$PM_IMAGE" \
		sh -c 'id -u; id -g; pwd; echo "$FOO"; hostname; cat /proc/sys/kernel/hostname'
	[ "$status" -eq 0 ]
	[ "$output" = "1000
1000
/home/user
bar
myhost
myhost" ]
	run pm_runq --rm --user nobody "$PM_IMAGE" id -un
	[ "$output" = nobody ]
}

@test "--read-only: the root is read-only, /tmp /run /var/tmp are tmpfs" {
	run pm_runq --rm --read-only "$PM_IMAGE" sh -c '
		touch /x 2>&1; echo "root:$?"
		touch /tmp/x && echo tmp-ok
		grep -E " / " /proc/mounts | grep -qw ro && echo root-ro
		grep -E " /(tmp|run|var/tmp) " /proc/mounts | cut -d" " -f2,3'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *"root:1"* ]]
	[[ "$output" == *tmp-ok* ]]
	[[ "$output" == *root-ro* ]]
	[[ "$output" == *"/tmp tmpfs"* ]]
	[[ "$output" == *"/run tmpfs"* ]]
	[[ "$output" == *"/var/tmp tmpfs"* ]]
}

@test "--tmpfs: a tmpfs with its size and mode" {
	run pm_runq --rm --tmpfs /scratch:size=1m,mode=1770 "$PM_IMAGE" sh -c '
		grep " /scratch " /proc/mounts; stat -c %a /scratch
		dd if=/dev/zero of=/scratch/big bs=1k count=2048 2>/dev/null; echo "dd:$?"'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"tmpfs /scratch tmpfs"* ]]
	[[ "$output" == *size=1024k* ]]
	[[ "$output" == *"
1770
"* ]]
	[[ "$output" == *"dd:1"* ]]
}

@test "-v: read-write and :ro bind mounts" {
	echo from-host >"$HOSTDIR/in"
	mkdir -p "$TESTDIR/ro"
	echo ro-file >"$TESTDIR/ro/f"
	run pm_runq --rm -v "$HOSTDIR:/data" -v "$TESTDIR/ro:/ro:ro" "$PM_IMAGE" sh -c '
		cat /data/in; echo from-container >/data/out
		cat /ro/f; touch /ro/x 2>&1; echo "ro:$?"'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *from-host* ]]
	[[ "$output" == *ro-file* ]]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *"ro:1"* ]]
	[ "$(cat "$HOSTDIR/out")" = from-container ]
	[ ! -e "$TESTDIR/ro/x" ]
}

@test "--cap-drop ALL, --cap-add: the effective capability sets" {
	run pm_runq --rm "$PM_IMAGE" grep CapEff /proc/self/status
	# podman 4.3's default set: CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID
	# SETPCAP NET_BIND_SERVICE NET_RAW SYS_CHROOT MKNOD AUDIT_WRITE SETFCAP
	[ "$output" = "CapEff:	00000000a80425fb" ]
	run pm_runq --rm --cap-drop ALL "$PM_IMAGE" grep -E 'Cap(Prm|Eff|Bnd)' /proc/self/status
	[ "$output" = "CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	0000000000000000" ]
	# NET_ADMIN = 12, SYS_TIME = 25
	run pm_runq --rm --cap-drop ALL --cap-add NET_ADMIN,SYS_TIME "$PM_IMAGE" grep -E 'Cap(Eff|Bnd)' /proc/self/status
	[ "$output" = "CapEff:	0000000002001000
CapBnd:	0000000002001000" ]
	# a non-root user has no effective capabilities, but those added (podman makes
	# them ambient)
	run pm_runq --rm --user 1000 "$PM_IMAGE" grep CapEff /proc/self/status
	[ "$output" = "CapEff:	0000000000000000" ]
	run pm_runq --rm --user 1000 --cap-add NET_ADMIN "$PM_IMAGE" grep -E 'Cap(Eff|Amb)' /proc/self/status
	[ "$output" = "CapEff:	0000000000001000
CapAmb:	0000000000001000" ]
	# dropping CHOWN is enforced
	run pm_runq --rm --cap-drop CHOWN "$PM_IMAGE" chown 1000 /tmp
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
}

@test "--security-opt no-new-privileges" {
	run pm_runq --rm "$PM_IMAGE" grep NoNewPrivs /proc/self/status
	[ "$output" = "NoNewPrivs:	0" ]
	run pm_runq --rm --security-opt no-new-privileges "$PM_IMAGE" grep NoNewPrivs /proc/self/status
	[ "$output" = "NoNewPrivs:	1" ]
}

@test "default seccomp profile: loaded, and blocks swapoff even with CAP_SYS_ADMIN" {
	run pm_runq --rm "$PM_IMAGE" grep '^Seccomp:' /proc/self/status
	[ "$output" = "Seccomp:	2" ]
	# podman's profile denies swapoff with EPERM whatever the capabilities...
	run pm_runq --rm --cap-add SYS_ADMIN "$PM_IMAGE" swapoff /no-such-swap
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	# ...whereas without the filter the kernel gets to look for the file
	run pm_runq --rm --cap-add SYS_ADMIN --security-opt seccomp=unconfined "$PM_IMAGE" swapoff /no-such-swap
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"No such file or directory"* ]]
	run pm_runq --rm --security-opt seccomp=unconfined "$PM_IMAGE" grep '^Seccomp:' /proc/self/status
	[ "$output" = "Seccomp:	0" ]
	# setns is allowed only with CAP_SYS_ADMIN: without it the filter says EPERM
	run pm_runq --rm "$PM_IMAGE" nsenter -t 1 -u true
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
}

@test "--privileged: all capabilities, no seccomp, host devices, mount allowed" {
	host_capbnd=$(awk '/^CapBnd/ {print $2}' /proc/self/status)
	run pm_runq --rm --privileged "$PM_IMAGE" sh -c '
		grep -E "^(CapEff|Seccomp):" /proc/self/status
		[ -e /dev/loop-control ] && echo has-loop-control
		mount -t tmpfs none /mnt && echo mounted'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"CapEff:	$host_capbnd"* ]]
	[[ "$output" == *"Seccomp:	0"* ]]
	[[ "$output" == *has-loop-control* ]]
	[[ "$output" == *mounted* ]]
	# without --privileged none of that
	run pm_runq --rm "$PM_IMAGE" sh -c '[ -e /dev/loop-control ] || echo no-loop-control; mount -t tmpfs none /mnt || echo no-mount'
	[[ "$output" == *no-loop-control* ]]
	[[ "$output" == *no-mount* ]]
}

@test "--pid/--ipc/--uts host share the host's namespaces; the default does not" {
	host_ns=""
	for ns in pid ipc uts net; do host_ns+="$(readlink /proc/self/ns/$ns) "; done
	nsread='for ns in pid ipc uts net; do printf "%s " "$(readlink /proc/self/ns/$ns)"; done; echo; hostname'
	run pm_runq --rm --pid host --ipc host --uts host "$PM_IMAGE" sh -c "$nsread"
	echo "$output"
	[ "$status" -eq 0 ]
	read -r -a ns <<<"$host_ns"
	[[ "$output" == *"${ns[0]} ${ns[1]} ${ns[2]} "* ]]
	[[ "$output" != *"${ns[3]}"* ]]
	[[ "$output" == *"$(hostname)" ]]
	# with the host pid namespace, our own shell is visible
	run pm_runq --rm --pid host "$PM_IMAGE" cat "/proc/$$/comm"
	[ "$status" -eq 0 ]

	run pm_runq --rm "$PM_IMAGE" sh -c "$nsread"
	for n in "${ns[@]}"; do [[ "$output" != *"$n"* ]]; done
	[[ "$output" != *"$(hostname)" ]]
}

@test "--network none: only a loopback interface" {
	run pm_runq --rm --network none "$PM_IMAGE" sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "; readlink /proc/self/ns/net'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = lo ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[1]}" != "$(readlink /proc/self/ns/net)" ]
}

# --- resources ------------------------------------------------------------------

@test "--memory: the cgroup limit is set and a memory hog is OOM-killed" {
	run_d "$NAME" --memory 32m "$PM_IMAGE" sleep 1000
	dir=$(pm_cgroup_dir "$NAME" memory)
	echo "cgroup: $dir"
	[ "$(cat "$dir/memory.limit_in_bytes")" -eq 33554432 ]
	# the hog: a 200 MB shell variable
	run pm_runq --rm --memory 32m "$PM_IMAGE" sh -c 'x=$(head -c 200000000 /dev/zero | tr "\0" a); echo survived'
	echo "$output"
	[ "$status" -eq 137 ]
	[[ "$output" != *survived* ]]
	# (.State.OOMKilled is not checked: podman 4.3 reports false here with runc too)
}

@test "--pids-limit: the cgroup limit is set and enforced" {
	run_d "$NAME" --pids-limit 10 "$PM_IMAGE" sleep 1000
	dir=$(pm_cgroup_dir "$NAME" pids)
	[ "$(cat "$dir/pids.max")" -eq 10 ]
	run pm exec "$NAME" sh -c 'for i in $(seq 20); do sleep 30 & done 2>&1; echo loop-done'
	echo "$output"
	[[ "$output" == *"can't fork"* ]]
	[ "$(cat "$dir/pids.current")" -le 10 ]
}

@test "--cpus: the CFS quota and period" {
	run_d "$NAME" --cpus 0.5 --cpu-shares 512 "$PM_IMAGE" sleep 1000
	dir=$(pm_cgroup_dir "$NAME" cpu)
	[ "$(cat "$dir/cpu.cfs_period_us")" -eq 100000 ]
	[ "$(cat "$dir/cpu.cfs_quota_us")" -eq 50000 ]
	[ "$(cat "$dir/cpu.shares")" -eq 512 ]
}

@test "pause / unpause: the freezer and podman's state" {
	# the counter file is replaced atomically: never read half-written
	run_d "$NAME" "$PM_IMAGE" sh -c 'i=0; while :; do i=$((i+1)); echo $i >/tmp/n.new; mv /tmp/n.new /tmp/n; sleep 0.05; done'
	dir=$(pm_cgroup_dir "$NAME" freezer)
	pid=$(pm_pid "$NAME")
	wait_file "/proc/$pid/root/tmp/n"
	run pm pause "$NAME"
	[ "$status" -eq 0 ]
	[ "$(pm_state "$NAME")" = paused ]
	[ "$(cat "$dir/freezer.state")" = FROZEN ]
	# frozen: the counter does not move (read through the host's view of the rootfs)
	n1=$(cat "/proc/$pid/root/tmp/n")
	sleep 0.5
	n2=$(cat "/proc/$pid/root/tmp/n")
	[ "$n1" = "$n2" ]
	run pm unpause "$NAME"
	[ "$status" -eq 0 ]
	[ "$(pm_state "$NAME")" = running ]
	[ "$(cat "$dir/freezer.state")" = THAWED ]
	counter_moved() { [ "$(cat "/proc/$pid/root/tmp/n")" -gt "$n2" ]; }
	wait_until 30 counter_moved
}

@test "update: memory and cpu limits of a running container" {
	run_d "$NAME" --memory 64m "$PM_IMAGE" sleep 1000
	mem=$(pm_cgroup_dir "$NAME" memory)
	cpu=$(pm_cgroup_dir "$NAME" cpu)
	[ "$(cat "$mem/memory.limit_in_bytes")" -eq 67108864 ]
	run pm update --memory 128m --cpus 0.25 "$NAME"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$mem/memory.limit_in_bytes")" -eq 134217728 ]
	[ "$(cat "$cpu/cpu.cfs_quota_us")" -eq 25000 ]
	[ "$(pm_state "$NAME")" = running ]
}

# --- lifecycle ------------------------------------------------------------------

@test "top: the container's processes" {
	run_d "$NAME" "$PM_IMAGE" sh -c 'sleep 1001 & sleep 1002'
	for _ in $(seq 30); do
		out=$(pm top "$NAME" pid args 2>&1)
		[[ "$out" == *"sleep 1001"* && "$out" == *"sleep 1002"* ]] && break
		sleep 0.1
	done
	echo "$out"
	[[ "$out" == *"sleep 1001"* ]]
	[[ "$out" == *"sleep 1002"* ]]
}

@test "restart: a new process in the same container" {
	run_d "$NAME" "$PM_IMAGE" sh -c 'echo run >>/count; cat /count | wc -l; sleep 1000'
	pid1=$(pm_pid "$NAME")
	run pm restart -t 0 "$NAME"
	[ "$status" -eq 0 ]
	pm_wait_state "$NAME" running
	pid2=$(pm_pid "$NAME")
	[ "$pid1" != "$pid2" ]
	run ! pid_alive "$pid1"
	# the container's filesystem survived: the second run counts 2
	pm_wait_log "$NAME" 2
	run pm logs "$NAME"
	[ "$output" = "1
2" ]
	# and a stopped container can be started again
	pm stop -t 0 "$NAME"
	run pm start "$NAME"
	[ "$status" -eq 0 ]
	pm_wait_state "$NAME" running
}

@test "--init: catatonit is pid 1 and forwards signals" {
	requires_tool /usr/libexec/podman/catatonit catatonit
	run pm_runq --rm --init "$PM_IMAGE" sh -c 'cat /proc/1/cmdline | tr "\0" " "; echo; echo "sh-pid:$$"'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "/run/podman-init -- sh -c"* ]]
	[ "${lines[1]}" != "sh-pid:1" ]
	# sh is not pid 1 here, so an untrapped SIGTERM (forwarded by the init) kills it
	run_d "$NAME" --init "$PM_IMAGE" sh -c 'echo ready; while :; do sleep 0.1; done'
	pm_wait_log "$NAME" ready
	start=$(date +%s)
	run pm stop -t 20 "$NAME"
	[ "$status" -eq 0 ]
	[ $(($(date +%s) - start)) -lt 10 ]
	# catatonit reports the child's death by SIGTERM as 143
	[ "$(pm inspect --format '{{.State.ExitCode}}' "$NAME")" -eq 143 ]
}

@test "--sig-proxy: a signal to podman run reaches the process (and not with =false)" {
	script='trap "echo got >/w/got; exit 0" USR1; echo ready >/w/ready; while :; do sleep 0.1; done'
	pm run --rm --name "$NAME" -v "$HOSTDIR:/w" "$PM_IMAGE" sh -c "$script" </dev/null 3>&- &
	bg=$!
	wait_file "$HOSTDIR/ready"
	pp=$(descendant_pid "$bg" podman)
	kill -USR1 "$pp"
	wait_file "$HOSTDIR/got"
	st=0
	wait "$bg" || st=$?
	[ "$st" -eq 0 ]

	rm -f "$HOSTDIR/ready" "$HOSTDIR/got"
	pm run --rm --sig-proxy=false --name "$NAME-2" -v "$HOSTDIR:/w" "$PM_IMAGE" sh -c "$script" </dev/null 3>&- &
	bg=$!
	wait_file "$HOSTDIR/ready"
	pp=$(descendant_pid "$bg" podman)
	kill -USR1 "$pp"
	sleep 1
	[ ! -e "$HOSTDIR/got" ]
	[ "$(pm_state "$NAME-2")" = running ]
	# killed from outside: podman run returns 137 (or 1 when its --rm clean-up lost
	# the exit code to conmon's)
	pm kill "$NAME-2" >/dev/null
	st=0
	wait "$bg" || st=$?
	echo "podman run exited with $st"
	[ "$st" -ne 0 ]
}

@test "rm -f of an attached run --rm container: the racing clean-ups all succeed" {
	# `rm -f`, the attached `run --rm` and conmon's exit command all delete the
	# container in the runtime: `delete --force` of a container already gone succeeds
	for i in 1 2 3 4 5; do
		pm_runq --rm --name "$NAME-$i" "$PM_IMAGE" sleep 1000 >/dev/null 2>&1 3>&- &
		bg=$!
		pm_wait_state "$NAME-$i" running
		run pm rm -f -t 0 "$NAME-$i"
		echo "$output"
		[ "$status" -eq 0 ]
		wait "$bg" || true
		run pm inspect "$NAME-$i"
		[ "$status" -ne 0 ]
	done
}

@test "inspect: state while running and after exit" {
	run_d "$NAME" "$PM_IMAGE" sleep 1000
	run pm inspect --format '{{.State.Status}} {{.State.Running}} {{.State.Pid}} {{.State.ConmonPid}}' "$NAME"
	read -r st running pid conmon <<<"$output"
	[ "$st" = running ]
	[ "$running" = true ]
	[ "$pid" -gt 0 ]
	[ "$conmon" -gt 0 ]
	[ "$(readlink "/proc/$pid/exe")" = /bin/busybox ]
	# podman's pid is the runtime's: `state` of the runtime agrees
	# (conmon runs the runtime with its default --root)
	rpid=$("$OCI_RUNTIME" state "$(pm inspect --format '{{.Id}}' "$NAME")" | json_field pid)
	[ "$rpid" = "$pid" ]
	kill -9 "$pid"
	pm_wait_state "$NAME" exited
	run pm inspect --format '{{.State.Running}} {{.State.ExitCode}} {{.State.Pid}}' "$NAME"
	[ "$output" = "false 137 0" ]
}

@test "20 containers in a row leave no mounts, cgroups, runtime state or processes" {
	pm_mountpoints >"$TESTDIR/mounts-before"
	ids=()
	for i in $(seq 20); do
		out=$(pm_runq --name "$NAME-$i" "$PM_IMAGE" sh -c "echo run-$i")
		[ "$out" = "run-$i" ]
		ids+=("$(pm inspect --format '{{.Id}}' "$NAME-$i")")
		pm rm "$NAME-$i" >/dev/null
	done
	[ "${#ids[@]}" -eq 20 ]
	# conmon's exit command (podman container cleanup) may still be finishing
	no_containers() { local out; out=$(pm ps -aq) && [ -z "$out" ]; }
	wait_until 60 no_containers
	# no new mount of ours (others may mount things on this machine meanwhile: only
	# mounts below podman's dirs or naming a container count)
	new_mounts "$TESTDIR/mounts-before" >"$TESTDIR/mounts-new"
	cat "$TESTDIR/mounts-new"
	run ! grep -e "^$PM_DIR/" -e /run/ocisbx -e /run/runc "$TESTDIR/mounts-new"
	[ -z "$(pm_mounts)" ]
	for id in "${ids[@]}"; do
		# the runtime's state (its default --root, as conmon runs it)
		run "$OCI_RUNTIME" state "$id"
		[ "$status" -ne 0 ]
		# podman's container dirs and cgroups
		[ ! -e "$PM_DIR/root/vfs-containers/$id" ]
		[ ! -e "$PM_DIR/runroot/vfs-containers/$id" ]
		[ -z "$(pm_cgroups "$id")" ]
		run ! grep -qs "$id" /proc/self/mountinfo
		# no conmon or container process mentions it
		run ! pgrep -f -- "$id"
	done
}

@test "a failing container: the runtime's message reaches podman's stderr" {
	run -127 pm_runq --name "$NAME" "$PM_IMAGE" /bin/no-such-binary
	echo "$output"
	[[ "$output" == *"/bin/no-such-binary"* ]]
	# the container was created and is left in a non-running state, removable
	[ "$(pm_state "$NAME")" != running ]
	run pm rm "$NAME"
	[ "$status" -eq 0 ]
	# a bad working directory is also reported
	run pm_runq --rm --workdir /etc/passwd "$PM_IMAGE" true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"/etc/passwd"* ]]
}

# --- configuration ------------------------------------------------------------------

@test "engines: contrib/engines/containers.conf makes the runtime podman's default" {
	local conf="$TESTDIR/containers.conf" paste="$BATS_TEST_DIRNAME/../contrib/engines/containers.conf"
	# the file as shipped, with the runtime under test at the path of "ocisbx" and the
	# suite's own podman home (events, volumes, locks, networks) added to its tables
	awk -v rt="$OCI_RUNTIME" -v dir="$PM_DIR" '
		/^ocisbx = / { print "ocisbx = [\"" rt "\"]"; next }
		{ print }
		/^\[containers\]$/ { print "netns = \"none\""; print "log_driver = \"k8s-file\"" }
		/^\[engine\]$/ {
			printf "events_logger = \"file\"\nevents_logfile_path = \"%s/tmp/events.log\"\n", dir
			printf "lock_type = \"file\"\nnum_locks = 256\nvolume_path = \"%s/vol\"\n", dir
		}
		END { printf "\n[network]\nnetwork_config_dir = \"%s/net\"\n", dir }
	' "$paste" >"$conf"
	cat "$conf"
	# podman without --runtime and --cgroup-manager: both come from the file
	pmc() {
		(cd "$PM_DIR" && CONTAINERS_CONF="$conf" timeout -k 5 "$PM_TIMEOUT" podman \
			--root "$PM_DIR/root" --runroot "$PM_DIR/runroot" --tmpdir "$PM_DIR/tmp" --storage-driver vfs "$@")
	}
	run pmc info --format '{{.Host.OCIRuntime.Name}} {{.Host.OCIRuntime.Path}} {{.Host.CgroupManager}}'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ocisbx $OCI_RUNTIME cgroupfs" ]
	run pmc run --name "$NAME" --cgroup-parent "$PM_CGPARENT" "$PM_IMAGE" sh -c 'ulimit -Hn; ulimit -Hu' </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '20000\n32768')" ]
	run pmc inspect --format '{{.OCIRuntime}}' "$NAME"
	[ "$output" = ocisbx ]
}

@test "--sdnotify=container: the container's READY=1 reaches podman's NOTIFY_SOCKET" {
	requires_tool cc build-essential
	local sd notify listener
	sd=$(mktemp -d /tmp/ocisd.XXXXXX) # a short socket path
	cc -static -Os -o "$sd/sdnotify" "$HELPERS/sdnotify.c"
	"$PYTHON" "$HELPERS/notify_listen.py" "$sd/n.sock" "$sd/log" </dev/null 3>&- &
	listener=$!
	wait_file "$sd/log"
	NOTIFY_SOCKET="$sd/n.sock" pm_runq -d --name "$NAME" --sdnotify=container -v "$sd/sdnotify:/sdnotify:ro" \
		"$PM_IMAGE" sh -c '[ "$NOTIFY_SOCKET" = /run/notify/notify.sock ] && [ -S "$NOTIFY_SOCKET" ] && /sdnotify READY=1; sleep 1000' >/dev/null
	notify=$(for _ in $(seq 100); do grep -qx READY=1 "$sd/log" && break; sleep 0.1; done; cat "$sd/log")
	kill "$listener"
	rm -rf "$sd"
	echo "$notify"
	[[ "$notify" == *$'\nREADY=1'* ]]
	[ "$(pm_state "$NAME")" = running ]
}
