#!/usr/bin/env bats
# Docker (Debian's docker.io 20.10, its containerd and the io.containerd.runc.v2 shim)
# configured by contrib/engines/daemon.json: $OCI_RUNTIME as runtime "ocisbx", the
# default.  The daemon is the file's own (helpers/engines.bash): its own data root, exec
# root and socket, no iptables, no bridge (containers use --network none), the cgroupfs
# driver.  The image is a busybox rootfs brought in with `docker import`.
#
#   OCI_RUNTIME=/usr/sbin/runc bats tests/docker.bats          # reference

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/engines

IMAGE=ocit/busybox:latest

setup_file() {
	eng_requires
	requires_tool dockerd docker.io
	requires_tool /usr/bin/docker docker.io
	requires_tool script bsdutils
	eng_setup_file ocidk
	dockerd_start
	eng_mounts | sort >"$ENG_DIR/mounts.base" # dockerd's own (its data root)
	setup_rootfs_cache
	tar -C "$ROOTFS_CACHE" -cf "$ENG_DIR/rootfs.tar" .
	dk import --change 'CMD ["sh"]' "$ENG_DIR/rootfs.tar" "$IMAGE" >/dev/null
	rm -f "$ENG_DIR/rootfs.tar"
}

teardown_file() { eng_teardown_file "$(dk_rt_state)"; }

setup() {
	NAME="dt$BATS_TEST_NUMBER"
	HOSTDIR=$(mktemp -d "$ENG_DIR/host.XXXXXX")
}

teardown() {
	local ids
	eng_daemon_running || return 0
	ids=$(dk ps -aq 2>/dev/null) && [ -n "$ids" ] && dk rm -f $ids >/dev/null 2>&1
	rm -rf "$HOSTDIR"
	return 0
}

# The runtime's state dir as the shim passes it (--root EXEC_ROOT/runtime-runc/moby, for
# every runtime).
dk_rt_state() { echo "$ENG_DIR/dk/exec/runtime-runc/moby"; }

# dkr ARGS...: `docker run --network none ARGS`, stdin from /dev/null.
dkr() { dk run --network none "$@" </dev/null; }

# dk_run_d NAME ARGS...: `docker run -d` and wait until it runs.
dk_run_d() {
	local name=$1
	shift
	dkr -d --name "$name" "$@" >/dev/null
	wait_for_output running 30 "container $name: status" dk inspect -f '{{.State.Status}}' "$name"
}

# dk_field NAME TEMPLATE: docker inspect -f TEMPLATE NAME.
dk_field() { dk inspect -f "$2" "$1"; }

# log_count NAME TEXT: how many lines of `docker logs NAME` are TEXT.
log_count() { dk logs "$1" 2>&1 | grep -cxF -- "$2"; }
log_count_is() { [ "$(log_count "$1" "$2")" -eq "$3" ]; }

# wait_log NAME TEXT [COUNT=1]: until `docker logs NAME` has COUNT lines TEXT.
wait_log() { eng_wait_for 30 "$2 ×${3:-1} in the logs of $1" log_count_is "$1" "$2" "${3:-1}"; }

# assert_no_containers_left: with every container removed nothing of them is left:
# runtime state, mounts (beyond dockerd's own), cgroups below the parent, shims.
assert_no_containers_left() {
	local tries=300
	while [ -n "$(eng_shims)" ] && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	run eng_shims
	[ -z "$output" ] || { echo "shims left: $output" >&2; return 1; }
	run eng_state_entries "$(dk_rt_state)"
	[ -z "$output" ] || { echo "runtime state left: $output" >&2; return 1; }
	run comm -13 "$ENG_DIR/mounts.base" <(eng_mounts | sort)
	[ -z "$output" ] || { echo "mounts left: $output" >&2; return 1; }
	run eng_cgroups
	[ -z "$output" ] || { echo "cgroups left: $output" >&2; return 1; }
}

# --- the daemon and the runtime ------------------------------------------------

@test "docker: info and version name the runtime (dockerd runs its --version)" {
	local first commit
	first=$("$OCI_RUNTIME" --version | head -1)
	commit=$("$OCI_RUNTIME" --version | sed -n 's/^commit: //p')
	[ "$(dk info -f '{{.DefaultRuntime}}')" = ocisbx ]
	[ "$(dk info -f '{{(index .Runtimes "ocisbx").Path}}')" = "$OCI_RUNTIME" ]
	[ -n "$commit" ]
	[ "$(dk info -f '{{.RuncCommit.ID}}')" = "$commit" ]
	# the server's component list: name and version from the first line ("NAME version V")
	run dk version -f '{{range .Server.Components}}{{.Name}}={{.Version}} {{end}}'
	[ "$status" -eq 0 ]
	[[ " $output " == *" ocisbx=${first##* } "* ]]
}

@test "docker: run --rm (default runtime and --runtime ocisbx): output, exit code 0, nothing left" {
	run dkr --rm "$IMAGE" echo hello from the container
	[ "$status" -eq 0 ]
	[ "$output" = "hello from the container" ]
	run dkr --rm --runtime ocisbx --name "$NAME" "$IMAGE" sh -c 'echo out; echo err >&2'
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output")" = $'err\nout' ] # two streams: either order
	run dk ps -aq --filter "name=$NAME"
	[ -z "$output" ]
	assert_no_containers_left
}

@test "docker: exit codes: the process's 3; 126 for a file that is not executable, 127 for a missing one, with the runtime's words" {
	run dkr --rm "$IMAGE" sh -c 'exit 3'
	[ "$status" -eq 3 ]
	run -126 dkr --rm "$IMAGE" /etc/passwd
	[[ "$output" == *"/etc/passwd"*"permission denied"* ]]
	run -127 dkr --rm "$IMAGE" /no/such/binary
	[[ "$output" == *"/no/such/binary"*"no such file or directory"* ]]
	run -127 dkr --rm "$IMAGE" no-such-command
	[[ "$output" == *"no-such-command"*"executable file not found"* ]]
}

@test "docker: a set-up error of the runtime reaches the user" {
	# a file bound onto a directory: docker passes it on, the runtime refuses it
	: >"$HOSTDIR/file"
	run -125 dkr --rm --mount "type=bind,src=$HOSTDIR/file,dst=/bin" "$IMAGE" true
	echo "$output"
	[[ "$output" == *"OCI runtime create failed"* ]]
	[[ "$output" == *"/bin"* ]]
	[[ "${output,,}" == *"not a directory"* ]]
	assert_no_containers_left
}

# --- a long-lived container ---------------------------------------------------

@test "docker: -d, exec, logs, stop, start, restart, rm" {
	dk_run_d "$NAME" "$IMAGE" sh -c 'echo started; trap "echo term; exit 0" TERM; while :; do sleep 0.1; done'
	wait_log "$NAME" started
	# the container is the runtime's
	run "$OCI_RUNTIME" --root "$(dk_rt_state)" state "$(dk_field "$NAME" '{{.Id}}')"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"status": "running"'* || "$output" == *'"status":"running"'* ]]

	run dk exec "$NAME" sh -c 'echo in-exec; exit 5'
	[ "$status" -eq 5 ]
	[ "$output" = in-exec ]
	run dk exec -u 1000 -w /tmp -e FOO=bar "$NAME" sh -c 'echo "$(id -u) $PWD $FOO"'
	[ "$output" = "1000 /tmp bar" ]

	dk stop -t 30 "$NAME" >/dev/null
	[ "$(dk_field "$NAME" '{{.State.Status}} {{.State.ExitCode}}')" = "exited 0" ]
	wait_log "$NAME" term

	dk start "$NAME" >/dev/null
	[ "$(dk_field "$NAME" '{{.State.Running}}')" = true ]
	wait_log "$NAME" started 2
	dk restart -t 30 "$NAME" >/dev/null
	[ "$(dk_field "$NAME" '{{.State.Running}}')" = true ]
	wait_log "$NAME" started 3
	dk exec "$NAME" true

	dk rm -f "$NAME" >/dev/null
	run dk inspect "$NAME"
	[ "$status" -ne 0 ]
	assert_no_containers_left
}

@test "docker: exec -it runs on a pty of its own" {
	dk_run_d "$NAME" "$IMAGE" sleep 1000
	# docker sends the window size after the process started: poll for it (busybox's
	# stty size prints nothing, or an error, while the size is 0 0)
	local size_loop='tty; for i in $(seq 100); do s=$(stty size 2>/dev/null); case "$s" in "" | "0 "* | *" 0") ;; *) break ;; esac; sleep 0.1; done; echo "size:$s"'
	run timeout 60 script -qec "stty rows 33 cols 77; /usr/bin/docker -H unix://$DK_SOCK exec -it $NAME sh -c '$size_loop'" /dev/null </dev/null
	[ "$status" -eq 0 ]
	output=${output//$'\r'/}
	[[ "$output" == *"/dev/pts/"* ]]
	[[ "$output" == *"size:33 77"* ]]
}

@test "docker: stop of a process that ignores SIGTERM: SIGKILL after the timeout (137)" {
	dk_run_d "$NAME" "$IMAGE" sh -c 'trap "" TERM; while :; do sleep 0.1; done'
	dk stop -t 1 "$NAME" >/dev/null
	[ "$(dk_field "$NAME" '{{.State.Status}} {{.State.ExitCode}}')" = "exited 137" ]
	# and once more on the stopped container
	dk stop -t 1 "$NAME" >/dev/null
}

@test "docker: kill --signal reaches the process; kill stops it" {
	dk_run_d "$NAME" "$IMAGE" sh -c 'trap "echo got-usr1" USR1; echo ready; while :; do sleep 0.1; done'
	wait_log "$NAME" ready
	dk kill --signal USR1 "$NAME" >/dev/null
	wait_log "$NAME" got-usr1
	[ "$(dk_field "$NAME" '{{.State.Running}}')" = true ]
	dk kill "$NAME" >/dev/null
	wait_for_output "exited 137" 30 "container $NAME" dk_field "$NAME" '{{.State.Status}} {{.State.ExitCode}}'
}

ticks() { dk exec "$NAME" sh -c 'wc -l </tmp/n'; }
ticks_above() { [ "$(ticks)" -gt "$1" ]; }

@test "docker: pause and unpause" {
	dk_run_d "$NAME" "$IMAGE" sh -c 'while :; do echo >>/tmp/n; sleep 0.1; done'
	eng_wait_for 30 "the container's loop to start" ticks_above 0
	dk pause "$NAME" >/dev/null
	[ "$(dk_field "$NAME" '{{.State.Status}} {{.State.Paused}}')" = "paused true" ]
	run dk exec "$NAME" true
	[ "$status" -ne 0 ]
	dk unpause "$NAME" >/dev/null
	[ "$(dk_field "$NAME" '{{.State.Status}}')" = running ]
	local n1
	n1=$(ticks)
	eng_wait_for 30 "the container to go on" ticks_above "$n1"
}

@test "docker: top lists the container's processes" {
	dk_run_d "$NAME" "$IMAGE" sh -c 'sleep 1001 & sleep 1002'
	run dk top "$NAME"
	[ "$status" -eq 0 ]
	[[ "$output" == *"sleep 1001"* ]]
	[[ "$output" == *"sleep 1002"* ]]
}

# --- resources and security options ------------------------------------------

@test "docker: --memory: the limit applies, and an OOM kill gives 137 and OOMKilled" {
	run dkr --name "$NAME" -m 16m --memory-swap 16m "$IMAGE" sh -c 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes; tail /dev/zero'
	[ "$status" -eq 137 ]
	[ "${lines[0]}" = 16777216 ]
	[ "$(dk_field "$NAME" '{{.State.OOMKilled}} {{.State.ExitCode}}')" = "true 137" ]
}

@test "docker: --pids-limit bounds the number of processes" {
	run dkr --rm --pids-limit 10 "$IMAGE" sh -c 'cat /sys/fs/cgroup/pids/pids.max; sh -c "for i in \$(seq 20); do sleep 5 & done" 2>/dev/null; sleep 0.2; cat /sys/fs/cgroup/pids/pids.current'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 10 ]
	[ "${lines[-1]}" -le 10 ]
}

@test "docker: update changes memory, cpu shares and pids of a running container" {
	dk_run_d "$NAME" -m 32m --memory-swap 32m "$IMAGE" sleep 1000
	dk update --memory 64m --memory-swap 64m --cpu-shares 512 --pids-limit 50 "$NAME" >/dev/null
	run dk exec "$NAME" cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.shares /sys/fs/cgroup/pids/pids.max
	[ "$status" -eq 0 ]
	[ "$output" = $'67108864\n512\n50' ]
}

@test "docker: --read-only, --tmpfs and -v (rw and ro)" {
	echo from-host >"$HOSTDIR/in"
	run dkr --rm --read-only --tmpfs /scratch:size=1m -v "$HOSTDIR:/data" -v "$HOSTDIR:/rodata:ro" "$IMAGE" sh -c '
		touch /x 2>&1; echo scratch >/scratch/f && cat /scratch/f; grep " /scratch " /proc/mounts | cut -d" " -f3
		cat /data/in; echo from-container >/data/out; touch /rodata/y 2>&1'
	[ "$status" -ne 0 ] # the last touch fails
	[[ "${lines[0]}" == *"Read-only file system"* ]]
	[ "${lines[1]}" = scratch ]
	[ "${lines[2]}" = tmpfs ]
	[ "${lines[3]}" = from-host ]
	[[ "${lines[4]}" == *"Read-only file system"* ]]
	[ "$(cat "$HOSTDIR/out")" = from-container ]
}

@test "docker: --cap-drop/--cap-add, no-new-privileges, --user" {
	run dkr --rm "$IMAGE" grep CapEff /proc/self/status
	[ "$output" = $'CapEff:\t00000000a80425fb' ] # docker's 14 default capabilities
	run dkr --rm --cap-drop ALL --cap-add NET_RAW --cap-add SYS_ADMIN "$IMAGE" grep -E 'Cap(Eff|Bnd)' /proc/self/status
	[ "$output" = $'CapEff:\t0000000000202000\nCapBnd:\t0000000000202000' ]
	run dkr --rm --security-opt no-new-privileges "$IMAGE" grep NoNewPrivs /proc/self/status
	[ "$output" = $'NoNewPrivs:\t1' ]
	run dkr --rm --user 1000:1000 "$IMAGE" id
	[ "$output" = "uid=1000(user) gid=1000(user) groups=1000(user)" ]
	run dkr --rm --user nobody "$IMAGE" id -un
	[ "$output" = nobody ]
}

@test "docker: --init runs docker-init as pid 1" {
	requires_tool docker-init tini
	run dkr --rm --init "$IMAGE" cat /proc/1/comm
	[ "$status" -eq 0 ]
	[ "$output" = docker-init ]
	run dkr --rm --init "$IMAGE" sh -c 'exit 4'
	[ "$status" -eq 4 ]
}

# --- policies ----------------------------------------------------------------

@test "docker: restart policy on-failure:2 restarts a failing container twice" {
	dkr -d --name "$NAME" --restart on-failure:2 "$IMAGE" sh -c 'echo run; exit 1' >/dev/null
	wait_for_output "exited 2" 60 "container $NAME: status and restarts" dk_field "$NAME" '{{.State.Status}} {{.RestartCount}}'
	[ "$(log_count "$NAME" run)" -eq 3 ]
	[ "$(dk_field "$NAME" '{{.State.ExitCode}}')" = 1 ]
}

@test "docker: a healthcheck runs through the runtime and turns healthy" {
	dk_run_d "$NAME" --health-cmd 'test -e /tmp/healthy' --health-interval 1s --health-retries 1 --health-timeout 20s "$IMAGE" sleep 1000
	wait_for_output unhealthy 60 "container $NAME: health" dk_field "$NAME" '{{.State.Health.Status}}'
	dk exec "$NAME" touch /tmp/healthy
	wait_for_output healthy 60 "container $NAME: health" dk_field "$NAME" '{{.State.Health.Status}}'
}

@test "docker: 20 containers in a row leave nothing behind" {
	local i
	for i in $(seq 20); do
		run dkr --rm "$IMAGE" echo "run $i"
		[ "$status" -eq 0 ]
		[ "$output" = "run $i" ]
	done
	assert_no_containers_left
}

@test "docker: dockerd stops and leaves nothing (mounts, cgroups, runtime state, shims)" {
	dk rm -f $(dk ps -aq) >/dev/null 2>&1 || true
	eng_daemon_stop 60
	# on failure, how dockerd's shutdown went (its data-root mount is its own to undo)
	eng_assert_clean "$(dk_rt_state)" || { dk_log | tail -n 30 >&2; grep " $ENG_DIR/" /proc/self/mountinfo >&2; false; }
}
