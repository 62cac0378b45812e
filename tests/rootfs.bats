#!/usr/bin/env bats
# The rootfs itself: rootfsPropagation, pivot_root and --no-pivot, where /proc and /sys
# may be mounted, no mount on top of the root.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

# root_mountinfo: a command printing the container's mountinfo line of its root.
root_mountinfo() { echo "awk '\$5 == \"/\"' /proc/self/mountinfo | tail -n1"; }

# in_rshared_ns CMD...: CMD in a mount namespace of its own whose / is rshared, the
# set-up where a slave root has a master to follow (the host's / may be private).
in_rshared_ns() {
	unshare --mount --propagation unchanged sh -c 'mount --make-rshared / && exec "$@"' sh "$@"
}

# --- rootfsPropagation ----------------------------------------------------------------

@test "rootfsPropagation shared: the root is shared" {
	requires_ocisbx "runc 1.1 leaves the root private"
	config_set linux.rootfsPropagation '"shared"'
	ctr_sh "$(root_mountinfo)"
	[ "$status" -eq 0 ]
	[[ "$output" == *" shared:"* ]]
}

@test "rootfsPropagation private: the root has neither peers nor a master" {
	config_set linux.rootfsPropagation '"private"'
	set_args sh -c "$(root_mountinfo)"
	run in_rshared_ns "$OCI_RUNTIME" --root "$ROOT" run -b "$BUNDLE" "$CID" </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" != *" shared:"* ]]
	[[ "$output" != *" master:"* ]]
	[[ "$output" != *" unbindable "* ]]
}

@test "rootfsPropagation slave: the root is private,slave of the runtime's rshared root" {
	config_set linux.rootfsPropagation '"slave"'
	set_args sh -c "$(root_mountinfo)"
	run in_rshared_ns "$OCI_RUNTIME" --root "$ROOT" run -b "$BUNDLE" "$CID" </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *" master:"* ]]
	[[ "$output" != *" shared:"* ]]
}

@test "rootfsPropagation unbindable: the root is unbindable, the container still starts" {
	requires_ocisbx "runc 1.1 cannot bind the rootfs onto itself then (EINVAL)"
	for p in unbindable runbindable; do
		config_set linux.rootfsPropagation "\"$p\""
		ctr_sh "$(root_mountinfo)"
		echo "$p: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *" unbindable "* ]]
	done
}

@test "rootfsPropagation: rslave makes / a slave of the host, rprivate cuts it off" {
	# the rootfs must sit on a shared mount for the difference to show
	mount --bind "$BUNDLE" "$BUNDLE"
	mount --make-shared "$BUNDLE"
	config_set linux.rootfsPropagation '"rslave"'
	ctr_sh "$(root_mountinfo)"
	[ "$status" -eq 0 ]
	[[ "$output" == *" master:"* ]]
	config_set linux.rootfsPropagation '"rprivate"'
	ctr_sh "$(root_mountinfo)"
	leaked=$(grep -c " $BUNDLE/rootfs/" /proc/self/mountinfo || true)
	umount -l "$BUNDLE"
	[ "$status" -eq 0 ]
	[ "$leaked" -eq 0 ]
	[[ "$output" != *" master:"* ]]
	[[ "$output" != *" shared:"* ]]
}

# --- the rootfs itself ------------------------------------------------------------------

@test "user namespace: a rootfs its root cannot reach (a bundle of host root's, mode 0700) is opened by the runtime" {
	requires_ocisbx "runc and crun fail: bind the rootfs onto itself: permission denied"
	chmod 700 "$BUNDLE"
	chown -R -h 100000:100000 "$BUNDLE/rootfs"
	config_add linux.namespaces '{"type":"user"}'
	config_set linux.uidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	config_set linux.gidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	ctr_sh 'id -u; ls /bin/busybox; cat /proc/self/uid_map'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = /bin/busybox ]
	set_args ls /bin/busybox
	run runtime run --no-pivot -b "$BUNDLE" "$CID-np" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = /bin/busybox ]
}

# --- pivot_root and --no-pivot ----------------------------------------------------------

@test "no_pivot: --no-pivot runs in the rootfs too" {
	set_args sh -c 'ls /bin/busybox && touch /x'
	run runtime run --no-pivot -b "$BUNDLE" "$CID" </dev/null
	[ "$status" -ne 0 ]
	[[ "$output" == */bin/busybox* ]]
	[[ "$output" == *"Read-only file system"* ]]
}

@test "no_pivot: the host's /proc is out of reach (no fresh procfs from a nested user namespace)" {
	# The kernel lets a user namespace mount a procfs only where a full one is
	# visible: the container's /proc has masked paths, so only a host /proc left
	# under the moved root would allow it.
	config_del linux.seccomp
	for set in bounding effective permitted; do
		config_add "process.capabilities.$set" '"CAP_SYS_ADMIN"'
		config_add "process.capabilities.$set" '"CAP_SETFCAP"'
	done
	set_args unshare -mrpf sh -c 'mount -t proc none /proc && echo fresh-procfs'
	run runtime run --no-pivot -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	[[ "$output" != *fresh-procfs* ]]
	[[ "$output" == *"mount: permission denied"* ]]
	# the same without --no-pivot, for reference
	run runtime run -b "$BUNDLE" "$CID-p" </dev/null
	[[ "$output" != *fresh-procfs* ]]
}

# --- where /proc and /sys go ----------------------------------------------------------

# symlinked_refused DIR TYPE: /DIR in the rootfs replaced by a symlink to /bad-DIR: the
# mount of TYPE there is refused as runc words it, and nothing lands at /bad-DIR.
symlinked_refused() {
	rm -rf "$BUNDLE/rootfs/$1"
	mkdir "$BUNDLE/rootfs/bad-$1"
	ln -s "/bad-$1" "$BUNDLE/rootfs/$1"
	snapshot_host
	ctr_sh true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"filesystem "*"$2"*" must be mounted on ordinary directory"* ]]
	[ -z "$(ls -A "$BUNDLE/rootfs/bad-$1")" ]
	assert_nothing_left
}

@test "/proc replaced by a symlink in the rootfs is refused, nothing mounted through it" {
	symlinked_refused proc proc
}

@test "/sys replaced by a symlink in the rootfs is refused, nothing mounted through it" {
	symlinked_refused sys sysfs
}

# --- nothing on top of the root ------------------------------------------------------

@test "a mount on / is refused, naming the mount" {
	requires_ocisbx "error text (runc 1.1 mounts it and fails later)"
	config_add mounts '{"destination":"/","type":"tmpfs","source":"tmpfs"}'
	snapshot_host
	ctr_sh true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *'.mounts[7].destination: "/" is the root of the container'* ]]
	assert_nothing_left
	config_del 'mounts[7]'
	config_add mounts "{\"destination\":\"/tmp/..\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"rbind\"]}"
	ctr_sh true
	[ "$status" -ne 0 ]
	[[ "$output" == *'.mounts[7].destination: "/tmp/.." is the root of the container'* ]]
	assert_nothing_left
}

@test "a mount whose destination resolves to / through a symlink is refused" {
	requires_ocisbx "error text (runc 1.1 mounts it and fails later)"
	ln -s / "$BUNDLE/rootfs/to-root"
	config_add mounts '{"destination":"/to-root","type":"tmpfs","source":"tmpfs"}'
	snapshot_host
	ctr_sh true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *'mounts[7]: `/to-root` resolves to the root of the container'* ]]
	assert_nothing_left
}
