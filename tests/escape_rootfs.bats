#!/usr/bin/env bats
# Container escapes through the rootfs (issue 25): a writer of the same rootfs racing
# the runtime (another container sharing it: here a host process, escape_racer.c),
# and read-only binds whose submounts stayed writable.  Each test checks the host (or
# the container's masks) afterwards.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

# build_racer: tests/helpers/escape_racer.c as $RACER (static: no library to find).
build_racer() {
	requires_tool cc build-essential
	RACER="$TESTDIR/escape_racer"
	cc -static -O2 -o "$RACER" "$BATS_TEST_DIRNAME/helpers/escape_racer.c"
}

# start_racer ARG...: $RACER ARGs in the background ($RACER_PID), output in
# $TESTDIR/racer.out; returns once it handles SIGTERM.  racer_count: the number it
# printed at the end (after stop_racer).  The last racer's output is removed first: its
# "ready" would otherwise pass for this one's before the new racer even ran (it
# truncates the file only once forked), and SIGTERM would kill it unhandled.
start_racer() {
	rm -f "$TESTDIR/racer.out"
	"$RACER" "$@" >"$TESTDIR/racer.out" &
	RACER_PID=$!
	racer_ready() { grep -q ready "$TESTDIR/racer.out" 2>/dev/null; }
	wait_until 30 racer_ready || { echo "the racer did not start: $(cat "$TESTDIR/racer.out")" >&2; return 1; }
}
stop_racer() {
	kill -TERM "$RACER_PID"
	wait "$RACER_PID"
}
racer_count() { awk '$1 == "swaps" || $1 == "replaced" {print $2}' "$TESTDIR/racer.out"; }

# wait_stopped ID: the container's process has exited.
wait_stopped() { wait_for_status "$1" stopped 10; }

@test "escape: /proc swapped for a symlink after it is mounted: masks stay on the procfs, or create fails" {
	# CVE-2019-19921 / CVE-2023-27561 class: the procfs follows the renamed directory,
	# the name /proc leads to a fake one; masks looked up by name miss the real procfs
	requires_ocisbx "runc 1.1.5 starts containers with the procfs unmasked (seen: 4 of 13)"
	[ -e /proc/timer_list ] || skip "no /proc/timer_list here (the masked file checked)"
	build_racer
	# the fake /proc: the real procfs's entries through symlinks (when swapped, the
	# real one is at /proc.swap), so the container works on, but no timer_list, and a
	# plain directory for sys (its read-only bind lands there)
	local e
	mkdir -p "$BUNDLE/rootfs/fakeproc/sys"
	for e in /proc/*; do
		e=${e#/proc/}
		case "$e" in
		[0-9]* | timer_list | sys) ;;
		*) ln -s "/proc.swap/$e" "$BUNDLE/rootfs/fakeproc/$e" ;;
		esac
	done
	for e in /proc/sys/*; do ln -s "/proc.swap/sys/${e#/proc/sys/}" "$BUNDLE/rootfs/fakeproc/sys/"; done
	ln -s /fakeproc "$BUNDLE/rootfs/proc.swap"
	# shellcheck disable=SC2016
	set_args sh -c 'echo "timer_list $(stat -c %t:%T /proc/timer_list 2>&1)"
		echo "sys $(awk '\''$5 == "/proc/sys" {split($6, o, ","); r = o[1]} END {print r}'\'' /proc/self/mountinfo)"'
	local i created=0 failed=0 escaped=0 swaps=0 end=$((SECONDS + 30)) id out
	for i in $(seq 30); do
		[ "$SECONDS" -lt "$end" ] || break
		id="$CID-$i"
		start_racer exchange "$BUNDLE/rootfs" proc proc.swap 20
		if create_container "$id" 2>/dev/null; then
			created=$((created + 1))
		else
			failed=$((failed + 1))
			tail -1 "$IO/$id.err" >>"$TESTDIR/errors"
		fi
		stop_racer
		swaps=$((swaps + $(racer_count)))
		# the racer put both back: proc the directory the procfs was mounted on
		[ -d "$BUNDLE/rootfs/proc" ] && [ ! -L "$BUNDLE/rootfs/proc" ]
		# (an init whose /proc was a symlink when it opened its exec fifo is gone)
		if [ "$(container_status "$id" 2>/dev/null)" = created ]; then
			runtime start "$id"
			wait_stopped "$id"
			out=$(cat "$IO/$id.out")
			if [[ "$out" != *"timer_list 1:3"* || "$out" != *"sys ro"* ]]; then
				escaped=$((escaped + 1))
				echo "container $i: $out" >&2
			fi
		fi
		runtime delete --force "$id" 2>/dev/null || true
	done
	echo "created $created, failed $failed, unmasked $escaped, swaps $swaps; the errors:"
	[ ! -e "$TESTDIR/errors" ] || sed -e 's/ocit-[0-9-]*/ID/g' "$TESTDIR/errors" | sort | uniq -c
	[ "$swaps" -gt 0 ]
	[ "$escaped" -eq 0 ]
}

@test "escape: a device node swapped for a symlink to a host file: the host file keeps its mode" {
	# after mknod the runtime sets the node's mode: by name, it followed the symlink
	build_racer
	requires_tool setfacl acl
	mkdir -p "$BUNDLE/rootfs/racedir"
	# a default ACL gives every new node mode 600: the runtime must chmod each one
	setfacl -d -m u::rw,g::-,o::- "$BUNDLE/rootfs/racedir"
	echo host-data >"$TESTDIR/hostfile"
	chmod 600 "$TESTDIR/hostfile"
	# one path many times: each mknod succeeds once the racer made room again
	config_set linux.devices "[$(for _ in $(seq 200); do printf '{"path":"/racedir/node","type":"c","major":1,"minor":3,"fileMode":438},'; done | sed 's/,$//')]"
	local i created=0 failed=0 replaced=0 end=$((SECONDS + 30)) id
	for i in $(seq 30); do
		[ "$SECONDS" -lt "$end" ] || break
		id="$CID-$i"
		start_racer node "$BUNDLE/rootfs/racedir" node "$TESTDIR/hostfile" 20
		if create_container "$id" 2>/dev/null; then
			created=$((created + 1))
		else
			failed=$((failed + 1))
			tail -1 "$IO/$id.err" >>"$TESTDIR/errors"
		fi
		stop_racer
		replaced=$((replaced + $(racer_count)))
		runtime delete --force "$id" 2>/dev/null || true
		rm -f "$BUNDLE/rootfs/racedir/node"
		[ "$(stat -c %a "$TESTDIR/hostfile")" = 600 ] || break
	done
	echo "created $created, failed $failed, nodes replaced $replaced; the errors:"
	[ ! -e "$TESTDIR/errors" ] || sed -e 's/ocit-[0-9-]*/ID/g' "$TESTDIR/errors" | sort | uniq -c
	[ "$replaced" -gt 0 ]
	[ "$(stat -c '%a %s' "$TESTDIR/hostfile")" = "600 10" ]
}

@test "escape: spec --rootless's /sys (rbind,rro) in a user namespace: /sys/fs/cgroup read-only too" {
	# CVE-2023-25809 class: the host's cgroup hierarchies below /sys were writable
	requires_ocisbx "runc 1.1.5's spec --rootless writes ro: the host's /sys/fs/cgroup stays read-write below it"
	[ -d /sys/fs/cgroup ] && mountpoint -q /sys/fs/cgroup || skip "no cgroup mount below the host's /sys"
	mkdir -p "$TESTDIR/rl"
	(cd "$TESTDIR/rl" && "$OCI_RUNTIME" spec --rootless)
	local sys
	sys=$("$PYTHON" -c 'import json, sys; print(json.dumps([m for m in json.load(open(sys.argv[1]))["mounts"] if m["destination"] == "/sys"][0]))' "$TESTDIR/rl/config.json")
	[[ "$sys" == *'"rbind"'* && "$sys" == *'"rro"'* ]]
	use_userns
	config_del 'mounts[destination=/sys]'
	config_del 'mounts[destination=/sys/fs/cgroup]'
	config_add mounts "$sys"
	ctr_sh 'awk '\''$5 ~ "^/sys" {split($6, o, ","); print $5, o[1]}'\'' /proc/self/mountinfo'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"/sys/fs/cgroup ro"* ]]
	! grep -v ' ro$' <<<"$output"
}
