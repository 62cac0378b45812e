#!/usr/bin/env bats
# rootless: containers run by a user with no privileges at all.  The suite (run as root)
# creates the user $RL_USER with /etc/subuid and /etc/subgid entries, and runs every
# runtime call as that user (setpriv).  Its files live under $RL_DIR, a directory the
# user can reach (bats' own temp dir is root's).  Generic tests run against runc too
# (OCI_RUNTIME=/usr/sbin/runc: runc --rootless true behaves the same there).

load helpers/common
load helpers/screen

RL_USER=ocisbx-rl
RL_DIR_FILE="${BATS_FILE_TMPDIR:-/tmp}/rl_dir"

# --- the user and its environment ---------------------------------------------------

setup_file() {
	[ "$(id -u)" -eq 0 ] || skip "the rootless suite creates a user: run it as root"
	requires_suite_tools
	id "$RL_USER" >/dev/null 2>&1 || useradd -m -s /bin/sh "$RL_USER"
	# idempotent subordinate ids (useradd may have added some itself)
	grep -q "^$RL_USER:" /etc/subuid || echo "$RL_USER:100000:65536" >>/etc/subuid
	grep -q "^$RL_USER:" /etc/subgid || echo "$RL_USER:100000:65536" >>/etc/subgid
	RL_DIR=$(mktemp -d /tmp/ocisbx-rl.XXXXXX)
	chmod 755 "$RL_DIR"
	echo "$RL_DIR" >"$RL_DIR_FILE"
	# the rootfs must be readable by the user: built here, not under root's temp dir
	build_rootfs "$RL_DIR/rootfs"
	chmod -R a+rX "$RL_DIR/rootfs"
	# so must the runtime: a checkout in root's home (/root is 0700) is not, then the
	# tests run a copy of it (setup picks it up)
	if ! setpriv --reuid "$RL_USER" --regid "$RL_USER" --init-groups test -x "$OCI_RUNTIME"; then
		mkdir -p "$RL_DIR/bin"
		cp "$OCI_RUNTIME" "$RL_DIR/bin/"
		chmod 755 "$RL_DIR/bin" "$RL_DIR/bin/$(basename "$OCI_RUNTIME")"
	fi
}

teardown_file() {
	local d
	d=$(cat "$RL_DIR_FILE" 2>/dev/null) || return 0
	[ -n "$d" ] && rm -rf --one-file-system "$d"
}

setup() {
	RL_DIR=$(cat "$RL_DIR_FILE")
	[ ! -x "$RL_DIR/bin/$(basename "$OCI_RUNTIME")" ] || OCI_RUNTIME="$RL_DIR/bin/$(basename "$OCI_RUNTIME")"
	RL_UID=$(id -u "$RL_USER")
	RL_GID=$(id -g "$RL_USER")
	# the user's first subordinate ranges
	IFS=: read -r _ RL_SUBUID RL_SUBUID_N < <(grep "^$RL_USER:" /etc/subuid | head -1)
	IFS=: read -r _ RL_SUBGID RL_SUBGID_N < <(grep "^$RL_USER:" /etc/subgid | head -1)
	TESTDIR="$RL_DIR/t$BATS_TEST_NUMBER"
	ROOT="$TESTDIR/root"
	BUNDLE="$TESTDIR/bundle"
	SHARED="$TESTDIR/shared"
	XDG="$TESTDIR/xdg"
	CID="rl-$$-$BATS_TEST_NUMBER"
	mkdir -p "$BUNDLE" "$SHARED" "$XDG"
	chmod 700 "$XDG"
	chown -R "$RL_USER:" "$TESTDIR"
	chmod 755 "$TESTDIR"
	# the runtime's own rootless config, then what the tests need
	as_user sh -c 'cd "$1" && "$2" spec --rootless' sh "$BUNDLE" "$OCI_RUNTIME"
	config_set process.terminal false
	config_set root.path "\"$RL_DIR/rootfs\""
	config_set process.args '["true"]'
	config_del hostname
	CLEANUP_PIDS=()
	CLEANUP_CGROUPS=()
}

teardown() {
	local id pid d
	tmux_stop
	for id in $(rl list -q 2>/dev/null); do
		pid=$(rl state "$id" 2>/dev/null | json_field pid 2>/dev/null) && [ "${pid:-0}" -gt 0 ] && CLEANUP_PIDS+=("$pid")
		rl delete --force "$id" >/dev/null 2>&1
	done
	for pid in "${CLEANUP_PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
	# the overlay test's loop btrfs
	[ -z "${BTRFS_MNT:-}" ] || umount "$BTRFS_MNT" 2>/dev/null || umount -l "$BTRFS_MNT" 2>/dev/null
	for d in "${CLEANUP_CGROUPS[@]}"; do
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	rm -rf --one-file-system "$TESTDIR"
	return 0
}

# as_user CMD...: CMD as $RL_USER (no privileges, a clean environment with its own
# XDG_RUNTIME_DIR), bounded by RUNTIME_TIMEOUT.  It runs in / (the suite's working
# directory, a checkout in /root say, may be closed to the user: podman chdirs back to it).
as_user() {
	(cd / && setpriv --reuid "$RL_USER" --regid "$RL_USER" --init-groups \
		env -i HOME="$(getent passwd "$RL_USER" | cut -d: -f6)" USER="$RL_USER" LOGNAME="$RL_USER" \
		PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin XDG_RUNTIME_DIR="$XDG" \
		timeout --foreground -k 5 "${RUNTIME_TIMEOUT:-30}" "$@")
}

# rl ARGS...: the runtime as the user, with --root $ROOT.
rl() { as_user "$OCI_RUNTIME" --root "$ROOT" "$@"; }

# rl_run: `run` of $BUNDLE as the user, stdin from /dev/null.
rl_run() { as_user sh -c 'cd "$1" && shift && exec "$@" </dev/null' sh "$BUNDLE" "$OCI_RUNTIME" --root "$ROOT" "$@"; }

# rl_create ID: `create` of $BUNDLE as the user, stdio on files in $TESTDIR.
rl_create() {
	local rc=0
	as_user sh -c 'cd "$1" && shift && exec "$@" </dev/null >"$0.out" 2>"$0.err"' "$TESTDIR/$1" \
		"$BUNDLE" "$OCI_RUNTIME" --root "$ROOT" create "$1" || rc=$?
	[ "$rc" -eq 0 ] || cat "$TESTDIR/$1.err" >&2
	return "$rc"
}

# map_subids: container 0 is the user, 1..N its subordinate ids (uids and gids).
map_subids() {
	local nu=$((RL_SUBUID_N < 65536 ? RL_SUBUID_N : 65536)) ng=$((RL_SUBGID_N < 65536 ? RL_SUBGID_N : 65536))
	config_set linux.uidMappings "[{\"containerID\":0,\"hostID\":$RL_UID,\"size\":1},{\"containerID\":1,\"hostID\":$RL_SUBUID,\"size\":$nu}]"
	config_set linux.gidMappings "[{\"containerID\":0,\"hostID\":$RL_GID,\"size\":1},{\"containerID\":1,\"hostID\":$RL_SUBGID,\"size\":$ng}]"
}

requires_newuidmap() {
	requires_tool newuidmap uidmap
	requires_tool newgidmap uidmap
}

# --- the basics -----------------------------------------------------------------------

@test "rootless: the spec --rootless config runs as is; root inside is the user outside" {
	set_args sh -c 'id -u; cat /proc/self/uid_map /proc/self/gid_map'
	run rl_run run "$CID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[0]}" = 0 ]
	[[ "${lines[1]}" =~ ^[[:space:]]*0[[:space:]]+$RL_UID[[:space:]]+1$ ]] || { echo "$output"; false; }
	[[ "${lines[2]}" =~ ^[[:space:]]*0[[:space:]]+$RL_GID[[:space:]]+1$ ]]
}

@test "rootless: create, start, state, kill and delete as the user" {
	set_args sleep 100
	rl_create "$CID"
	run rl state "$CID"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | json_field status)" = created ]
	rl start "$CID"
	[ "$(rl state "$CID" | json_field status)" = running ]
	pid=$(rl state "$CID" | json_field pid)
	CLEANUP_PIDS+=("$pid")
	# the init runs as the user on the host, in a user namespace of its own
	[ "$(stat -c %u "/proc/$pid")" = "$RL_UID" ]
	[ "$(readlink "/proc/$pid/ns/user")" != "$(readlink /proc/self/ns/user)" ]
	rl kill "$CID" KILL
	for _ in $(seq 50); do
		[ "$(rl state "$CID" | json_field status)" = stopped ] && break
		sleep 0.1
	done
	[ "$(rl state "$CID" | json_field status)" = stopped ]
	rl delete "$CID"
	run rl state "$CID"
	[ "$status" -ne 0 ]
	[ -z "$(ls -A "$ROOT")" ]
}

@test "rootless: kill --all without any cgroup signals the init" {
	requires_ocisbx "runc's kill --all needs the container's cgroups"
	set_args sleep 100
	rl_create "$CID"
	rl start "$CID"
	pid=$(rl state "$CID" | json_field pid)
	CLEANUP_PIDS+=("$pid")
	rl kill --all "$CID" KILL
	for _ in $(seq 50); do
		pid_alive "$pid" || break
		sleep 0.1
	done
	! pid_alive "$pid"
	rl delete "$CID"
}

@test "rootless: pause, ps and update without a cgroup say why" {
	requires_ocisbx "the message"
	set_args sleep 100
	rl_create "$CID"
	rl start "$CID"
	CLEANUP_PIDS+=("$(rl state "$CID" | json_field pid)")
	for cmd in pause ps "update --pids-limit 10"; do
		run rl $cmd "$CID"
		[ "$status" -ne 0 ]
		[[ "$output" == *"container \`$CID\` has no cgroup: it was created rootless"* ]] || { echo "$cmd: $output"; false; }
	done
	[ "$(rl state "$CID" | json_field status)" = running ]
}

@test "rootless: exec into a running container as the user" {
	set_args sleep 100
	rl_create "$CID"
	rl start "$CID"
	CLEANUP_PIDS+=("$(rl state "$CID" | json_field pid)")
	run rl exec "$CID" sh -c 'id -u; cat /proc/self/uid_map'
	if [ "$status" -ne 0 ] && [[ "$output" == *"join the container's pid namespace: Operation not permitted"* ]]; then
		skip "exec (src/core/container/exec_parent.c) joins the pid namespace before the user namespace: unprivileged setns needs the user namespace first"
	fi
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[0]}" = 0 ]
	[[ "${lines[1]}" =~ 0[[:space:]]+$RL_UID[[:space:]]+1 ]]
}

@test "rootless: exec with a cgroup of its own (--pids-limit) into a container without a delegated cgroup: a clear error" {
	requires_ocisbx "per-exec cgroups are ocisbx's"
	set_args sleep 100
	rl_create "$CID"
	rl start "$CID"
	CLEANUP_PIDS+=("$(rl state "$CID" | json_field pid)")
	run rl exec --pids-limit 5 "$CID" true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"--pids-limit"*"the container has no cgroup"*"delegated"* ]] ||
		[[ "$output" == *"exec --pids-limit: the container has no pids cgroup (rootless: not delegated"* ]]
	[ "$(rl state "$CID" | json_field status)" = running ]
}

@test "rootless: files written in a bind mount belong to the user on the host" {
	bind_shared
	set_args sh -c 'echo hi >/mnt/file && mkdir /mnt/dir && ls -ln /mnt'
	run rl_run run "$CID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(stat -c %u:%g "$SHARED/file")" = "$RL_UID:$RL_GID" ]
	[ "$(stat -c %u:%g "$SHARED/dir")" = "$RL_UID:$RL_GID" ]
	[ "$(cat "$SHARED/file")" = hi ]
}

@test "rootless: default --root is \$XDG_RUNTIME_DIR/ocisbx, else /tmp/ocisbx-UID, 0700 and the user's" {
	requires_ocisbx "the default state root"
	set_args sleep 100
	as_user sh -c 'cd "$1" && exec "$2" create "$3" </dev/null >/dev/null 2>&1' sh "$BUNDLE" "$OCI_RUNTIME" "$CID"
	CLEANUP_PIDS+=("$(as_user "$OCI_RUNTIME" state "$CID" | json_field pid)")
	[ -d "$XDG/ocisbx/$CID" ]
	[ "$(stat -c %a:%u "$XDG/ocisbx")" = "700:$RL_UID" ]
	as_user "$OCI_RUNTIME" delete --force "$CID"
	[ ! -e "$XDG/ocisbx/$CID" ]
	# without XDG_RUNTIME_DIR: a private directory under /tmp
	local existed=false
	[ -e "/tmp/ocisbx-$RL_UID" ] && existed=true
	run setpriv --reuid "$RL_USER" --regid "$RL_USER" --init-groups env -i PATH=/usr/bin:/bin \
		"$OCI_RUNTIME" list -q
	[ "$status" -eq 0 ]
	[ "$(stat -c %a:%u:%F "/tmp/ocisbx-$RL_UID")" = "700:$RL_UID:directory" ]
	$existed || rmdir "/tmp/ocisbx-$RL_UID"
}

@test "rootless: a default state root someone else planted under /tmp is refused" {
	requires_ocisbx "the default state root"
	local d="/tmp/ocisbx-$RL_UID" saved="$TESTDIR/saved-root"
	# someone (root here) plants a symlink where the user's state would go
	[ ! -e "$d" ] || mv "$d" "$saved"
	ln -s "$SHARED" "$d"
	run setpriv --reuid "$RL_USER" --regid "$RL_USER" --init-groups env -i PATH=/usr/bin:/bin "$OCI_RUNTIME" list
	rm -f "$d"
	[ ! -e "$saved" ] || mv "$saved" "$d"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$d\` is not a directory owned by uid $RL_UID"* ]] || { echo "$output"; false; }
	[ -z "$(ls -A "$SHARED")" ]
}

# --- id mappings ----------------------------------------------------------------------

@test "rootless: multi-range mappings go through newuidmap: container uid 1000 is subuid+999" {
	requires_newuidmap
	map_subids
	bind_shared
	chmod 777 "$SHARED"
	config_set process.user '{"uid":1000,"gid":1000}'
	set_args sh -c 'id -u; id -g; cat /proc/self/uid_map; touch /mnt/f1000'
	run rl_run run "$CID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[0]}" = 1000 ] && [ "${lines[1]}" = 1000 ] || { echo "$output"; false; }
	[[ "$output" =~ 1[[:space:]]+$RL_SUBUID[[:space:]]+ ]]
	[ "$(stat -c %u:%g "$SHARED/f1000")" = "$((RL_SUBUID + 999)):$((RL_SUBGID + 999))" ]
	# newgidmap left setgroups allowed: additional gids work (runc refuses them rootless)
	requires_ocisbx "runc: cannot set any additional groups in a rootless container"
	config_set process.user '{"uid":1000,"gid":1000,"additionalGids":[1001]}'
	set_args id -G
	run rl_run run "$CID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$output" = "1000 1001" ]
}

@test "rootless: a uid range not in /etc/subuid is refused, naming the range, before anything runs" {
	requires_newuidmap
	map_subids
	bad=$((RL_SUBUID + RL_SUBUID_N + 100000))
	config_set 'linux.uidMappings[1].hostID' "$bad"
	run rl_run run "$CID"
	[ "$status" -ne 0 ]
	if is_ocisbx; then
		[[ "$output" == *"config.json: .linux.uidMappings[1]: range $bad-$((bad + 65535)) is not in /etc/subuid for user \"$RL_USER\""* ]] ||
			{ echo "$output"; false; }
		[[ "$output" != *newuidmap:* ]] # our check, not the helper's
	fi
	[ -z "$(ls -A "$ROOT" 2>/dev/null)" ]
}

@test "rootless: a gid range not in /etc/subgid is refused, naming the range" {
	requires_newuidmap
	requires_ocisbx "the message"
	map_subids
	config_set 'linux.gidMappings[1].size' "$((RL_SUBGID_N + 1))"
	run rl_run run "$CID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .linux.gidMappings[1]: range $RL_SUBGID-$((RL_SUBGID + RL_SUBGID_N)) is not in /etc/subgid for user \"$RL_USER\""* ]] ||
		{ echo "$output"; false; }
}

@test "rootless: a self-written gid map denies setgroups; additionalGids then fail early" {
	set_args cat /proc/self/setgroups
	run rl_run run "$CID"
	[ "$status" -eq 0 ]
	[ "$output" = deny ]
	requires_ocisbx "the message"
	config_set process.user '{"uid":0,"gid":0,"additionalGids":[0]}'
	run rl_run run "$CID"
	[ "$status" -ne 0 ]
	[[ "$output" == *".process.user.additionalGids: setgroups is denied"* ]] || { echo "$output"; false; }
}

@test "rootless: a user namespace without uidMappings/gidMappings maps the user to 0" {
	requires_ocisbx "runc 1.1 refuses a user namespace without mappings; crun maps the caller"
	config_del linux.uidMappings
	config_del linux.gidMappings
	set_args sh -c 'id -u; cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups | tr -s " " | sed "s/^ //"'
	run rl_run run "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = "0 $RL_UID 1" ]
	[ "${lines[2]}" = "0 $RL_GID 1" ]
	[ "${lines[3]}" = deny ]
}

@test "rootless: a config without a user namespace is refused with a hint" {
	config_del 'linux.namespaces[type=user]'
	config_del linux.uidMappings
	config_del linux.gidMappings
	run rl_run run "$CID"
	[ "$status" -ne 0 ]
	if is_ocisbx; then
		[[ "$output" == *"needs a user namespace (\`ocisbx spec --rootless\` writes one)"* ]] || { echo "$output"; false; }
	fi
}

# --- what a user cannot do, adapted ---------------------------------------------------

@test "rootless: devices are bind-mounted from the host, not made with mknod" {
	set_args sh -c 'ls -ln /dev/null; grep " /dev/null " /proc/self/mountinfo; echo x >/dev/null && head -c 4 /dev/zero | wc -c'
	run rl_run run "$CID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "${lines[0]}" == c* ]]
	[[ "$output" == *" /dev/null "* ]] # a mount point: bound
	[ "${lines[-1]}" = 4 ]
}

@test "rootless: the runc-style default config (sysfs, devpts gid=5, cgroup mount) runs with a user namespace" {
	# make_config writes what `runc spec` does; add a user namespace mapping the user
	"$PYTHON" "$HELPERS/mkconfig.py" new "$BUNDLE/config.json" sh -c \
		'grep -E " /sys | /dev/pts " /proc/self/mountinfo; touch /sys/x 2>&1; ls /sys/class/net'
	config_set root.path "\"$RL_DIR/rootfs\""
	config_add linux.namespaces '{"type":"user"}'
	config_set linux.uidMappings "[{\"containerID\":0,\"hostID\":$RL_UID,\"size\":1}]"
	config_set linux.gidMappings "[{\"containerID\":0,\"hostID\":$RL_GID,\"size\":1}]"
	# runc refuses gid=5 ("cannot specify gid= mount options for unmapped gid"); ocisbx drops it
	is_ocisbx || config_set 'mounts[destination=/dev/pts].options' '["nosuid","noexec","newinstance","ptmxmode=0666","mode=0620"]'
	run rl_run run "$CID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# with its own network namespace the container gets a sysfs of its own
	[[ "$output" == *" /sys "*" - sysfs "* ]] || { echo "$output"; false; }
	[[ "$output" == *"Read-only file system"* ]]
	[ "${lines[-1]}" = lo ]
	# devpts without gid=5 (gid 5 is not mapped)
	[[ "$output" == *" /dev/pts "*" - devpts "* ]]
	[[ "$output" != *"gid=5"* ]]
}

@test "rootless: without a network namespace sysfs is the host's, bound read-only" {
	requires_ocisbx "runc 1.1 fails: mount sysfs: operation not permitted (no fallback to a bind)"
	"$PYTHON" "$HELPERS/mkconfig.py" new "$BUNDLE/config.json" sh -c \
		'touch /sys/x 2>&1; touch /sys/fs/cgroup/x 2>&1; ls /sys/class/net | grep -c .'
	config_set root.path "\"$RL_DIR/rootfs\""
	config_del 'linux.namespaces[type=network]'
	config_add linux.namespaces '{"type":"user"}'
	config_set linux.uidMappings "[{\"containerID\":0,\"hostID\":$RL_UID,\"size\":1}]"
	config_set linux.gidMappings "[{\"containerID\":0,\"hostID\":$RL_GID,\"size\":1}]"
	is_ocisbx || config_set 'mounts[destination=/dev/pts].options' '["nosuid","noexec","newinstance","ptmxmode=0666","mode=0620"]'
	run rl_run run "$CID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(echo "$output" | grep -c "Read-only file system")" -eq 2 ]
	# the host's interfaces
	[ "${lines[-1]}" -eq "$(ls /sys/class/net | grep -c .)" ]
}

@test "rootless: spec --rootless: /sys and every mount below it read-only, the host's cgroups too" {
	# CVE-2023-25809 class: ro applied to the top of the /sys rbind alone left the host's
	# /sys/fs/cgroup/... (a delegated hierarchy the user owns) writable
	requires_ocisbx "runc 1.1.5 leaves the host's /sys/fs/cgroup read-write below spec --rootless's /sys"
	mountpoint -q /sys/fs/cgroup || skip "no cgroup mount below the host's /sys"
	# shellcheck disable=SC2016
	set_args sh -c 'awk '\''$5 ~ "^/sys" {split($6, o, ","); print $5, o[1]}'\'' /proc/self/mountinfo'
	run rl_run run "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"/sys/fs/cgroup ro"* ]]
	! grep -v ' ro$' <<<"$output"
}

@test "rootless: with the host's pid namespace the host's /proc is bound onto /proc" {
	config_del 'linux.namespaces[type=pid]'
	config_set 'mounts[destination=/proc]' '{"destination":"/proc","type":"bind","source":"/proc","options":["rbind","nosuid","noexec","nodev"]}'
	set_args sh -c 'readlink /proc/self/ns/pid; wc -c </proc/timer_list'
	run rl_run run "$CID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[0]}" = "$(readlink /proc/self/ns/pid)" ]
	[ "${lines[1]}" = 0 ] # still masked
}

@test "rootless: a bind onto /proc of anything but a procfs's root is refused" {
	requires_ocisbx "error text"
	config_del 'linux.namespaces[type=pid]'
	config_set 'mounts[destination=/proc]' "{\"destination\":\"/proc\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"rbind\"]}"
	run rl_run run "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"bind mount on \`/proc\`: \`$SHARED\` is not the root of a procfs"* ]]
}

@test "rootless: in the host's pid namespace the config's procfs becomes a bind of the host's" {
	requires_ocisbx "runc 1.1 fails: mount proc: operation not permitted"
	config_del 'linux.namespaces[type=pid]'
	set_args cat /proc/1/comm
	run rl_run run "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "$(cat /proc/1/comm)" ]
}

# --- cgroups ----------------------------------------------------------------------------

@test "rootless: no cgroup access: a warning per limit, and the container still runs" {
	requires_ocisbx "runc fails instead: cannot set pids limit: container could not join or create cgroup"
	config_set linux.resources '{"pids":{"limit":100},"memory":{"limit":268435456},"cpu":{"shares":512}}'
	set_args echo ran
	run rl_run run "$CID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *ran* ]]
	[[ "$output" == *"warning: cgroups: .linux.resources.pids: not applied: uid $RL_UID may not write the pids cgroup"* ]] ||
		{ echo "$output"; false; }
	[[ "$output" == *".linux.resources.memory: not applied"* ]]
	[[ "$output" == *".linux.resources.cpu: not applied"* ]]
	# without limits: not a word about cgroups
	config_del linux.resources
	run rl_run run "$CID"
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	# --rootless=false: cgroups are not optional any more
	run as_user sh -c 'cd "$1" && exec "$2" --rootless=false --root "$3" run "$4" </dev/null' sh "$BUNDLE" "$OCI_RUNTIME" "$ROOT" "$CID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Permission denied"* ]]
}

@test "rootless: a cgroup subtree delegated to the user is used" {
	requires_ocisbx "runc wants every hierarchy writable once cgroupsPath is set"
	[ -d /sys/fs/cgroup/pids ] && [ "$(stat -f -c %T /sys/fs/cgroup/pids)" = cgroupfs ] ||
		skip "needs a cgroup v1 pids hierarchy (this host: $(stat -f -c %T /sys/fs/cgroup))"
	deleg="/sys/fs/cgroup/pids/ocisbx-rl-$$"
	mkdir -p "$deleg"
	CLEANUP_CGROUPS+=("$deleg")
	chown -R "$RL_USER:" "$deleg"
	config_set linux.cgroupsPath "\"/ocisbx-rl-$$/$CID\""
	config_set linux.resources '{"pids":{"limit":42}}'
	set_args sleep 100
	rl_create "$CID"
	CLEANUP_PIDS+=("$(rl state "$CID" | json_field pid)")
	[ "$(cat "$deleg/$CID/pids.max")" = 42 ]
	grep -qx "$(rl state "$CID" | json_field pid)" "$deleg/$CID/cgroup.procs"
	! grep -q "pids: not applied" "$TESTDIR/$CID.err"
	rl delete --force "$CID"
	[ ! -d "$deleg/$CID" ]
}

# --- podman ----------------------------------------------------------------------------

# pm_user ARGS...: podman as the user, isolated under $TESTDIR/pm, driving $OCI_RUNTIME.
pm_user() {
	as_user podman --root "$TESTDIR/pm/root" --runroot "$TESTDIR/pm/runroot" --tmpdir "$TESTDIR/pm/tmp" \
		--storage-driver vfs --cgroup-manager cgroupfs --events-backend file \
		--runtime "$OCI_RUNTIME" "$@"
}

pm_setup() {
	requires_tool podman podman
	requires_newuidmap
	as_user mkdir -p "$TESTDIR/pm"
	tar -C "$RL_DIR/rootfs" -cf "$TESTDIR/pm/rootfs.tar" .
	chown "$RL_USER:" "$TESTDIR/pm/rootfs.tar"
	pm_user import "$TESTDIR/pm/rootfs.tar" localhost/rl-busybox >/dev/null
}

pm_teardown() {
	local pid
	pm_user rm -fa >/dev/null 2>&1
	# podman's pause process keeps the user namespace of this XDG_RUNTIME_DIR alive:
	# the user's processes started with it
	for pid in $(pgrep -u "$RL_USER"); do
		tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "XDG_RUNTIME_DIR=$XDG" && kill -9 "$pid" 2>/dev/null
	done
	return 0
}

@test "rootless: podman --runtime ocisbx as the user: run, exec, stop, rm (--network none)" {
	pm_setup
	run pm_user run --rm --network none localhost/rl-busybox sh -c 'id -u; cat /proc/self/uid_map; echo hello'
	[ "$status" -eq 0 ] || { pm_teardown; echo "$output"; false; }
	[[ "$output" == *hello* ]]
	[[ "$output" =~ 0[[:space:]]+$RL_UID[[:space:]]+1 ]]
	[[ "$output" =~ 1[[:space:]]+$RL_SUBUID[[:space:]] ]]
	run pm_user run -d --name "$CID" --network none localhost/rl-busybox sleep 100
	[ "$status" -eq 0 ] || { pm_teardown; echo "$output"; false; }
	run pm_user exec "$CID" sh -c 'echo from-exec; id -u'
	[ "$status" -eq 0 ] || { pm_teardown; echo "$output"; false; }
	[ "${lines[0]}" = from-exec ]
	run pm_user stop -t 1 "$CID"
	[ "$status" -eq 0 ] || { pm_teardown; echo "$output"; false; }
	[ "$(pm_user inspect --format '{{.State.Status}}' "$CID")" = exited ]
	pm_user rm "$CID"
	pm_teardown
}

@test "rootless: podman with slirp4netns networking" {
	requires_tool slirp4netns slirp4netns
	if ! as_user sh -c 'exec 3<>/dev/net/tun' 2>/dev/null; then
		skip "slirp4netns cannot open /dev/net/tun as $RL_USER on this host ($(stat -c '%A %U' /dev/net/tun)); --network none is tested above"
	fi
	pm_setup
	run pm_user run --rm localhost/rl-busybox sh -c 'ip -o addr show tap0 2>/dev/null || ip -o addr'
	pm_teardown
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *inet* ]]
}

# ---- a person at a terminal, rootless: run and exec -t in tmux (helpers/screen.bash) ----

# screen_rootless: the tester is $RL_USER.
screen_rootless() {
	SCREEN_AS=(setpriv --reuid "$RL_USER" --regid "$RL_USER" --init-groups)
	SCREEN_ENV=(HOME="$(getent passwd "$RL_USER" | cut -d: -f6)" USER="$RL_USER" LOGNAME="$RL_USER" XDG_RUNTIME_DIR="$XDG")
}
screen_container() {
	config_set process.terminal false
	set_args sleep 1000
	rl_create "$1"
	rl start "$1"
	CLEANUP_PIDS+=("$(rl state "$1" | json_field pid)")
}

@test "rootless screen: run: lines begin at column 0, UTF-8 both ways, vi, top and less draw right" { screen_rootless; screen_display run; }
@test "rootless screen: exec -t: lines begin at column 0, UTF-8 both ways, vi, top and less draw right" { screen_rootless; screen_display exec; }
@test "rootless screen: run: the window's size from the first instruction, after a resize and a burst of them" { screen_rootless; screen_size run; }
@test "rootless screen: exec -t: the window's size from the first instruction, after a resize and a burst of them" { screen_rootless; screen_size exec; }
@test "rootless screen: run: ^C ^\\ ^Z reach the container's program, typing ahead is kept, the exit code comes back" { screen_rootless; screen_keys run; }
@test "rootless screen: exec -t: ^C ^\\ ^Z reach the container's program, typing ahead is kept, the exit code comes back" { screen_rootless; screen_keys exec; }
@test "rootless screen: run: the terminal restored exactly: exit, process killed, runtime SIGTERM/SIGHUP, failed start" { screen_rootless; screen_restore run; }
@test "rootless screen: exec -t: the terminal restored exactly: exit, process killed, runtime SIGTERM/SIGHUP, failed start" { screen_rootless; screen_restore exec; }
@test "rootless screen: run: 10 MB of output reach the terminal complete and in order" { screen_rootless; screen_bulk run; }
@test "rootless screen: exec -t: 10 MB of output reach the terminal complete and in order" { screen_rootless; screen_bulk exec; }
@test "rootless screen: run: stdin a pipe or a file, with a terminal and without: the data and its end" { screen_rootless; screen_stdin run; }
@test "rootless screen: exec: stdin a pipe or a file, with -t and without: the data and its end" { screen_rootless; screen_stdin exec; }
# --- overlay runs (overlay.bats has the rest) ---------------------------------------

@test "rootless: run --ephemeral and --overlay-upper on the user's rootfs (overlayfs in a user namespace)" {
	requires_ocisbx "the io.github.ocisbx.rootfs.overlay annotation is ocisbx's"
	local rootfs="$TESTDIR/rootfs" up="$TESTDIR/up" before
	cp -a "$RL_DIR/rootfs" "$rootfs"
	chown -R -h "$RL_USER:" "$rootfs"
	config_set root.path "\"$rootfs\""
	config_set root.readonly false
	before=$(tree_sum "$rootfs")
	set_args sh -c 'echo new >/new && echo changed >>/etc/passwd && rm /bin/ls && cat /new'
	run rl_run run --ephemeral "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = new ]
	[ "$(tree_sum "$rootfs")" = "$before" ]
	run rl_run run --overlay-upper "$up" "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(tree_sum "$rootfs")" = "$before" ]
	[ "$(stat -c %u "$up/upper/new")" = "$RL_UID" ]
	set_args sh -c 'cat /new && test ! -e /bin/ls'
	run rl_run run --overlay-upper "$up" "$CID"
	[ "$status" -eq 0 ] && [ "$output" = new ]
	[ -z "$(rl list -q)" ]
	! grep -q " $rootfs " /proc/self/mountinfo
}

# rl_btrfs [MOUNT_OPTIONS]: a btrfs on a loop file at $BTRFS_MNT (the user's), holding
# the subvolume $RFS (made by the user, a copy of the rootfs, all the user's) as root.path.
rl_btrfs() {
	requires_ocisbx "the io.github.ocisbx.rootfs.overlay annotation is ocisbx's"
	requires_tool mkfs.btrfs btrfs-progs
	requires_tool btrfs btrfs-progs
	grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null || skip "the kernel has no btrfs"
	losetup -f >/dev/null 2>&1 || skip "no free loop device"
	truncate -s 200M "$TESTDIR/btrfs.img"
	mkfs.btrfs -q "$TESTDIR/btrfs.img" >/dev/null
	BTRFS_MNT="$TESTDIR/btrfs"
	mkdir -p "$BTRFS_MNT"
	mount -o "loop${1:+,$1}" "$TESTDIR/btrfs.img" "$BTRFS_MNT" || skip "cannot loop-mount a btrfs image here"
	chown "$RL_USER:" "$BTRFS_MNT"
	RFS="$BTRFS_MNT/rootfs-sv"
	as_user btrfs -q subvolume create "$RFS" >/dev/null
	cp -a "$RL_DIR/rootfs/." "$RFS/"
	chown -R -h "$RL_USER:" "$RFS"
	config_set root.path "\"$RFS\""
	config_set root.readonly false
}

# rl_subvolumes: the subvolumes of the loop btrfs, one a line
rl_subvolumes() { btrfs subvolume list -o "$BTRFS_MNT" | awk '{print $NF}' | sort; }

# what a run leaves in its root for a snapshot to be emptied of: files, a tree deeper
# than the emptying descends (100 levels: moved up), a directory closed to all (its
# owner, the user, reopens it), a symlink out of it
RL_WRITES='echo new >/new && rm /bin/ls && p=/a && i=0 && while [ $i -lt 100 ]; do p=$p/d; i=$((i + 1)); done && mkdir -p $p && echo x >$p/f && mkdir /shut && touch /shut/f && chmod 0 /shut && ln -s / /out && echo done'

@test "rootless: --ephemeral on the user's btrfs subvolume runs on a snapshot, emptied and removed with rmdir" {
	rl_btrfs
	local before
	before=$(tree_sum "$RFS")
	# the root is the snapshot (a subvolume: inode 256)
	set_args sh -c "$RL_WRITES && stat -c %i /"
	run rl_run --debug run --ephemeral "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"on the btrfs snapshot \`$BTRFS_MNT/.rootfs-sv.ocisbx-$CID\`"* ]]
	[[ "$output" == *$'\ndone\n256'* ]]
	[ "$(tree_sum "$RFS")" = "$before" ]
	[ "$(rl_subvolumes)" = rootfs-sv ]
	# create, start, kill, delete: delete removes it
	set_args sh -c "$RL_WRITES; sleep 1000"
	config_set annotations '{"io.github.ocisbx.rootfs.overlay":"ephemeral"}'
	rl_create "$CID"
	[ "$(rl_subvolumes)" = "$(printf '.rootfs-sv.ocisbx-%s\nrootfs-sv' "$CID")" ]
	rl start "$CID"
	wait_for_output "done" 10 "the container's writes" cat "$TESTDIR/$CID.out"
	rl kill "$CID" KILL
	rl delete --force "$CID"
	[ "$(rl_subvolumes)" = rootfs-sv ]
	[ -z "$(rl list -q)" ]
	# a failed create leaves none either
	set_args /no/such/program
	run rl_run run --ephemeral "$CID"
	[ "$status" -ne 0 ]
	[ "$(rl_subvolumes)" = rootfs-sv ]
	[ -z "$(rl list -q)" ]
	[ "$(tree_sum "$RFS")" = "$before" ]
	umount "$BTRFS_MNT"
}

@test "rootless: --ephemeral with subordinate ids on btrfs: a snapshot only with user_subvol_rm_allowed" {
	requires_newuidmap
	rl_btrfs
	map_subids
	local before
	before=$(tree_sum "$RFS")
	# files of container uid 1000 (a subordinate id) could not be removed by the user
	set_args sh -c 'mkdir /d && echo x >/d/f && chown -R 1000:1000 /d && echo done'
	config_set process.capabilities '{"bounding":["CAP_CHOWN"],"effective":["CAP_CHOWN"],"permitted":["CAP_CHOWN"]}'
	run rl_run --debug run --ephemeral "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"deleting a btrfs snapshot later needs CAP_SYS_ADMIN, the mount option user_subvol_rm_allowed, or a container whose files are all the user's"*"the rootfs as an overlay's lower layer"* ]]
	[[ "$output" == *$'\ndone'* ]]
	[ "$(rl_subvolumes)" = rootfs-sv ]
	# with the mount option: a snapshot, destroyed (BTRFS_IOC_SNAP_DESTROY) by the user
	mount -o remount,user_subvol_rm_allowed "$BTRFS_MNT"
	run rl_run --debug run --ephemeral "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"on the btrfs snapshot"* ]] && [[ "$output" == *$'\ndone'* ]]
	[ "$(rl_subvolumes)" = rootfs-sv ]
	[ "$(tree_sum "$RFS")" = "$before" ]
	[ -z "$(rl list -q)" ]
	umount "$BTRFS_MNT"
}

@test "rootless: --ephemeral on a btrfs subvolume not the user's falls back to the overlay, --debug says why" {
	rl_btrfs
	chown root: "$RFS"
	set_args sh -c 'echo new >/new && cat /new'
	run rl_run --debug run --ephemeral "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"the btrfs subvolume is uid 0's: without CAP_SYS_ADMIN only its owner may snapshot it: the rootfs as an overlay's lower layer"* ]]
	[[ "$output" == *$'\nnew'* ]]
	[ ! -e "$RFS/new" ]
	[ "$(rl_subvolumes)" = rootfs-sv ]
	umount "$BTRFS_MNT"
}

@test "rootless: a snapshot holding what the user cannot remove: delete says so and keeps the state" {
	rl_btrfs
	# a directory of root's in the user's subvolume (an admin's copy): its entries are
	# root's to remove
	mkdir "$RFS/rootdir" && touch "$RFS/rootdir/f"
	set_args sh -c 'sleep 1000'
	config_set annotations '{"io.github.ocisbx.rootfs.overlay":"ephemeral"}'
	rl_create "$CID"
	rl start "$CID"
	run rl delete --force "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"left the state dir"*"user_subvol_rm_allowed"*"remove \`rootdir/f\` in it: Permission denied"* ]]
	[ -n "$(rl list -q)" ]
	# once the user may: delete again finishes it
	chown -R "$RL_USER:" "$BTRFS_MNT/.rootfs-sv.ocisbx-$CID/rootdir"
	rl delete "$CID"
	[ -z "$(rl list -q)" ]
	[ "$(rl_subvolumes)" = rootfs-sv ]
	umount "$BTRFS_MNT"
}

@test "rootless: --overlay-upper: upper/ and work/ the container's root's (the user), who removes DIR after" {
	requires_ocisbx "the io.github.ocisbx.rootfs.overlay annotation is ocisbx's"
	local up="$TESTDIR/up"
	config_set root.readonly false
	set_args sh -c 'echo new >/new && mkdir -p /d/e && chmod 0 /d && echo done'
	run rl_run run --overlay-upper "$up" "$CID"
	echo "$output"
	[ "$status" -eq 0 ] && [ "$output" = done ]
	[ "$(stat -c %u:%g "$up/upper" "$up/work" "$up/upper/new" | sort -u)" = "$RL_UID:$RL_GID" ]
	as_user chmod -R u+rwx "$up/upper/d"
	as_user rm -rf "$up"
	[ ! -e "$up" ]
}

@test "rootless: --overlay-upper with the container's root a subordinate id: refused, naming it; nothing left" {
	requires_ocisbx "the io.github.ocisbx.rootfs.overlay annotation is ocisbx's"
	requires_newuidmap
	local up="$TESTDIR/up"
	config_set root.readonly false
	config_set linux.uidMappings "[{\"containerID\":0,\"hostID\":$RL_SUBUID,\"size\":1000}]"
	config_set linux.gidMappings "[{\"containerID\":0,\"hostID\":$RL_SUBGID,\"size\":1000}]"
	set_args sh -c 'echo new >/new'
	run rl_run run --overlay-upper "$up" "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"give \`$up/upper\` and \`$up/work\` to the container's root (uid $RL_SUBUID, gid $RL_SUBGID on the host): Operation not permitted"* ]]
	[ ! -e "$up" ]
	[ -z "$(rl list -q)" ]
}
