#!/usr/bin/env bats
# Overlay and ephemeral runs (io.github.ocisbx.rootfs.overlay, run/create --ephemeral,
# --overlay-upper DIR): the rootfs is an overlay's read-only lower layer, its upper on a
# tmpfs thrown away with the container or kept in a directory.  ocisbx-only: runc and
# crun leave this to an engine.  The rootless runs are in rootless.bats (its user).

load helpers/common

ANN=io.github.ocisbx.rootfs.overlay

setup() {
	common_setup
	requires_ocisbx "the $ANN annotation and --ephemeral are ocisbx's"
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
	grep -qw overlay /proc/filesystems || skip "no overlayfs in this kernel"
	config_set root.readonly false
}

teardown() {
	unmount_btrfs_loop
	common_teardown
}

# subvolumes: the subvolumes of the loop btrfs, one a line
subvolumes() { btrfs subvolume list -o "$BTRFS_MNT" | awk '{print $NF}' | sort; }

# what a run does to its root: a new file, a file changed, one removed, a new dir
WRITES='echo new >/new && echo changed >>/etc/passwd && rm /bin/ls && mkdir /d && echo done'

@test "overlay: run --ephemeral writes on a tmpfs thrown away; the rootfs is unchanged" {
	local before
	before=$(tree_sum "$BUNDLE/rootfs")
	snapshot_host
	set_args sh -c "$WRITES && cat /new && test ! -e /bin/ls && grep ' / / ' /proc/self/mountinfo | sed 's/.* - //'"
	run runtime run --ephemeral -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *done*new*overlay* ]]
	[ "$(tree_sum "$BUNDLE/rootfs")" = "$before" ]
	assert_nothing_left
	# a second run starts from the rootfs again
	set_args sh -c 'test ! -e /new && test -e /bin/ls'
	runtime run --ephemeral -b "$BUNDLE" "$CID"
}

@test "overlay: the annotation ephemeral, create/start/exec/delete: nothing left" {
	local before
	before=$(tree_sum "$BUNDLE/rootfs")
	snapshot_host
	config_set annotations "{\"$ANN\":\"ephemeral\"}"
	set_args sh -c "$WRITES; sleep 1000"
	create_container "$CID"
	runtime start "$CID"
	wait_for_output "done" 5 "the container's writes" cat "$IO/$CID.out"
	run runtime exec "$CID" cat /new
	[ "$output" = new ]
	runtime state "$CID" | grep -q "\"$ANN\": \"ephemeral\""
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID"
	[ "$(tree_sum "$BUNDLE/rootfs")" = "$before" ]
	assert_nothing_left
}

@test "overlay: --overlay-upper DIR keeps the upper; a second run sees it" {
	local before up="$TESTDIR/up"
	before=$(tree_sum "$BUNDLE/rootfs")
	set_args sh -c "$WRITES"
	runtime run --overlay-upper "$up" -b "$BUNDLE" "$CID"
	[ "$(tree_sum "$BUNDLE/rootfs")" = "$before" ]
	[ "$(cat "$up/upper/new")" = new ]
	[ -d "$up/upper/d" ] && [ -d "$up/work" ]
	[ "$(cat "$up/lower")" = "$(realpath "$BUNDLE/rootfs")" ]
	# the deletion is a whiteout in the upper
	[ -c "$up/upper/bin/ls" ]
	set_args sh -c 'cat /new && test ! -e /bin/ls && tail -1 /etc/passwd'
	run runtime run --overlay-upper "$up" -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = new ] && [ "${lines[1]}" = changed ]
	[ "$(tree_sum "$BUNDLE/rootfs")" = "$before" ]
	[ -z "$(test_mounts)" ]
}

@test "overlay: the annotation with a directory, a relative --overlay-upper made absolute" {
	config_set annotations "{\"$ANN\":\"$TESTDIR/kept\"}"
	set_args sh -c 'echo one >/one'
	runtime run -b "$BUNDLE" "$CID"
	[ "$(cat "$TESTDIR/kept/upper/one")" = one ]
	# the flag wins over the annotation, relative to the working directory
	set_args sh -c 'echo two >/two'
	(cd "$TESTDIR" && runtime run --overlay-upper rel -b "$BUNDLE" "$CID")
	[ "$(cat "$TESTDIR/rel/upper/two")" = two ]
	[ ! -e "$TESTDIR/kept/upper/two" ] && [ ! -e "$BUNDLE/rootfs/two" ]
}

@test "overlay: a bad annotation value is refused, naming the annotation; nothing left" {
	local v
	snapshot_host
	for v in relative/dir '' Ephemeral /a/../b; do
		config_set annotations "{\"$ANN\":\"$v\"}"
		run runtime run -b "$BUNDLE" "$CID"
		echo "$output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"annotations[\"$ANN\"]"* ]]
		assert_nothing_left
	done
}

@test "overlay: an upper inside the rootfs, or holding it, is refused; nothing made" {
	local before
	before=$(tree_sum "$BUNDLE/rootfs")
	snapshot_host
	for d in "$BUNDLE/rootfs/up" "$BUNDLE/rootfs" "$BUNDLE" "$BUNDLE/rootfs/tmp/../up"; do
		run runtime run --overlay-upper "$d" -b "$BUNDLE" "$CID"
		echo "$output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"$ANN"*"overlaps the rootfs"* ]]
	done
	# through a symlink too
	ln -s "$BUNDLE/rootfs/tmp" "$TESTDIR/link"
	run runtime run --overlay-upper "$TESTDIR/link" -b "$BUNDLE" "$CID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"overlaps the rootfs"* ]]
	[ "$(tree_sum "$BUNDLE/rootfs")" = "$before" ]
	assert_nothing_left
}

@test "overlay: a kept upper of another rootfs, or a directory with other files, is refused" {
	local up="$TESTDIR/up"
	snapshot_host
	set_args true
	runtime run --overlay-upper "$up" -b "$BUNDLE" "$CID"
	cp -a "$BUNDLE/rootfs" "$TESTDIR/rootfs2"
	config_set root.path "\"$TESTDIR/rootfs2\""
	run runtime run --overlay-upper "$up" -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$ANN: \`$up\` is the upper layer of another rootfs"* ]]
	mkdir "$TESTDIR/full" && touch "$TESTDIR/full/x"
	run runtime run --overlay-upper "$TESTDIR/full" -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"neither empty nor a previous upper layer"*"it holds x"* ]]
	run runtime run --ephemeral --overlay-upper "$up" -b "$BUNDLE" "$CID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"--ephemeral and --overlay-upper"* ]]
	assert_nothing_left
}

@test "overlay: a failed create with --ephemeral leaves nothing; the rootfs unchanged" {
	local before
	before=$(tree_sum "$BUNDLE/rootfs")
	snapshot_host
	# refused by the init once the overlay is its root (the executable is looked up there)
	set_args /no/such/program
	run runtime create --ephemeral -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"/no/such/program"* ]]
	assert_nothing_left
	[ "$(tree_sum "$BUNDLE/rootfs")" = "$before" ]
}

@test "overlay: a foreground run --ephemeral killed with SIGKILL leaves nothing" {
	local before pid
	before=$(tree_sum "$BUNDLE/rootfs")
	snapshot_host
	set_args sh -c "$WRITES; sleep 1000"
	# the runtime itself in the background (not `runtime`'s timeout): its pid is killed
	OCIT_TAG="$CID" "$OCI_RUNTIME" --root "$ROOT" run --ephemeral -b "$BUNDLE" "$CID" \
		</dev/null >"$TESTDIR/out" 2>&1 3>&- &
	pid=$!
	wait_for_output "done" 5 "the container's writes" cat "$TESTDIR/out"
	kill -KILL "$pid"
	wait "$pid" || true
	wait_for_output "" 10 "the watcher's clean-up" state_entries
	assert_nothing_left
	[ "$(tree_sum "$BUNDLE/rootfs")" = "$before" ]
}

@test "overlay: --ephemeral in a user namespace of the container (root)" {
	use_userns
	local rootfs="$USERNS_DIR/rootfs" before
	before=$(tree_sum "$rootfs")
	set_args sh -c "$WRITES && cat /new"
	run runtime run --ephemeral -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *done*new* ]]
	[ "$(tree_sum "$rootfs")" = "$before" ]
}

@test "overlay: features lists the annotation" {
	runtime features | grep -q "\"$ANN\": \"ephemeral|/absolute/upper/dir\""
}

@test "overlay: --ephemeral on a btrfs subvolume runs on a snapshot, destroyed with the container" {
	btrfs_rootfs
	local before
	before=$(tree_sum "$RFS")
	# the root is the snapshot (a subvolume: inode 256), not an overlay
	set_args sh -c "$WRITES && stat -c %i / && stat -f -c %t /"
	run runtime --debug run --ephemeral -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"on the btrfs snapshot \`$BTRFS_MNT/.rootfs-sv.ocisbx-$CID\`"* ]]
	# 9123683e: BTRFS_SUPER_MAGIC
	[[ "$output" == *$'done\n256\n9123683e'* ]]
	[ "$(tree_sum "$RFS")" = "$before" ]
	[ "$(subvolumes)" = rootfs-sv ]
	[ -z "$(state_entries)" ]
}

@test "overlay: a btrfs snapshot goes with delete, delete --force, a killed run, a failed create" {
	btrfs_rootfs
	local before pid snap
	before=$(tree_sum "$RFS")
	snap="$BTRFS_MNT/.rootfs-sv.ocisbx-$CID"
	# create ... delete: the state names the snapshot as the rootfs
	set_args sh -c "$WRITES; sleep 1000"
	create_container "$CID" --ephemeral
	[ "$(subvolumes)" = "$(printf '.rootfs-sv.ocisbx-%s\nrootfs-sv' "$CID")" ]
	runtime state "$CID" | grep -q "\"rootfs\": \"$snap\""
	runtime start "$CID"
	wait_for_output "done" 5 "the container's writes" cat "$IO/$CID.out"
	[ -e "$snap/new" ] && [ ! -e "$RFS/new" ]
	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime delete "$CID"
	[ "$(subvolumes)" = rootfs-sv ]
	# delete --force of a running one
	create_container "$CID" --ephemeral
	runtime start "$CID"
	runtime delete --force "$CID"
	[ "$(subvolumes)" = rootfs-sv ]
	# a foreground run killed with SIGKILL: its watcher deletes it
	rm -f "$TESTDIR/out"
	OCIT_TAG="$CID" "$OCI_RUNTIME" --root "$ROOT" run --ephemeral -b "$BUNDLE" "$CID" \
		</dev/null >"$TESTDIR/out" 2>&1 3>&- &
	pid=$!
	wait_for_output "done" 5 "the container's writes" cat "$TESTDIR/out"
	kill -KILL "$pid"
	wait "$pid" || true
	wait_for_output "" 10 "the watcher's clean-up" state_entries
	[ "$(subvolumes)" = rootfs-sv ]
	# a failed create
	set_args /no/such/program
	run runtime create --ephemeral -b "$BUNDLE" "$CID"
	[ "$status" -ne 0 ]
	[ "$(subvolumes)" = rootfs-sv ]
	[ -z "$(state_entries)" ]
	[ "$(tree_sum "$RFS")" = "$before" ]
	[ -z "$(awk -v d="$BTRFS_MNT/" 'index($5, d) == 1' /proc/self/mountinfo)" ]
}

@test "overlay: --ephemeral on a btrfs directory that is no subvolume falls back to the overlay (--debug)" {
	btrfs_rootfs
	mkdir "$BTRFS_MNT/plain"
	cp -a "$RFS/." "$BTRFS_MNT/plain/"
	config_set root.path "\"$BTRFS_MNT/plain\""
	set_args sh -c 'echo x >/x'
	run runtime --debug run --ephemeral -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"the rootfs is not a btrfs subvolume: the rootfs as an overlay's lower layer"* ]]
	[ ! -e "$BTRFS_MNT/plain/x" ]
	[ "$(subvolumes)" = rootfs-sv ]
}

@test "overlay: --overlay-upper on a btrfs subvolume is an overlay (no snapshot)" {
	btrfs_rootfs
	set_args sh -c 'echo x >/x'
	runtime run --overlay-upper "$TESTDIR/up" -b "$BUNDLE" "$CID"
	[ "$(cat "$TESTDIR/up/upper/x")" = x ] && [ ! -e "$RFS/x" ]
	[ "$(subvolumes)" = rootfs-sv ]
}

@test "overlay: --ephemeral with --no-pivot: the rootfs unchanged, nothing left" {
	local before
	before=$(tree_sum "$BUNDLE/rootfs")
	snapshot_host
	set_args sh -c "$WRITES"
	run runtime run --no-pivot --ephemeral -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -eq 0 ] && [ "$output" = done ]
	[ "$(tree_sum "$BUNDLE/rootfs")" = "$before" ]
	assert_nothing_left
}

@test "overlay: --overlay-upper in a user namespace: upper/ and work/ are the container's root's, it writes" {
	use_userns
	local up="$USERNS_DIR/up" rootfs="$USERNS_DIR/rootfs" before
	before=$(tree_sum "$rootfs")
	set_args sh -c "$WRITES && cat /new"
	run runtime run --overlay-upper "$up" -b "$BUNDLE" "$CID"
	echo "$output"
	# before: overlayfs could not write work/ (root's) and came up read-only
	[ "$status" -eq 0 ]
	[[ "$output" == *done*new* ]]
	[ "$(stat -c %u:%g "$up/upper")" = 100000:100000 ]
	[ "$(stat -c %u:%g "$up/work")" = 100000:100000 ]
	# DIR and its lower stay the caller's; the files are as the container's ids map
	[ "$(stat -c %u "$up")" = 0 ] && [ "$(stat -c %u "$up/lower")" = 0 ]
	[ "$(stat -c %u:%g "$up/upper/new")" = 100000:100000 ]
	[ "$(tree_sum "$rootfs")" = "$before" ]
	# a second run sees its upper
	set_args sh -c 'cat /new && test ! -e /bin/ls'
	run runtime run --overlay-upper "$up" -b "$BUNDLE" "$CID"
	[ "$status" -eq 0 ] && [ "$output" = new ]
}

@test "overlay: an upper kept for other ids is refused in a user namespace, naming its owner" {
	use_userns
	local up="$USERNS_DIR/up"
	set_args true
	runtime run --overlay-upper "$up" -b "$BUNDLE" "$CID"
	# as one made without the user namespace (or by a version before upper/ was given away)
	chown 0:0 "$up/upper" "$up/work"
	snapshot_host
	run runtime run --overlay-upper "$up" -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$ANN: \`$up/upper\` belongs to uid 0, the container's root is uid 100000 on the host"* ]]
	assert_nothing_left
}

@test "overlay: a failed create with --overlay-upper removes the upper it made, keeps one written to" {
	local up="$TESTDIR/up"
	snapshot_host
	set_args /no/such/program
	run runtime create --overlay-upper "$up" -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"/no/such/program"* ]]
	[ ! -e "$up" ]
	assert_nothing_left
	# an existing empty DIR stays, emptied again
	mkdir "$up"
	run runtime create --overlay-upper "$up" -b "$BUNDLE" "$CID"
	[ "$status" -ne 0 ]
	[ -d "$up" ] && [ -z "$(ls -A "$up")" ]
	# a previous upper with files: left as it was
	set_args sh -c 'echo x >/x'
	runtime run --overlay-upper "$up" -b "$BUNDLE" "$CID"
	set_args /no/such/program
	run runtime create --overlay-upper "$up" -b "$BUNDLE" "$CID"
	[ "$status" -ne 0 ]
	[ "$(cat "$up/upper/x")" = x ] && [ -d "$up/work" ] && [ -f "$up/lower" ]
	assert_nothing_left
}

@test "overlay: a user namespace whose root is unmapped is refused before DIR is made" {
	use_userns
	config_set linux.uidMappings '[{"containerID":1,"hostID":100000,"size":65535}]'
	snapshot_host
	run runtime run --overlay-upper "$TESTDIR/up" -b "$BUNDLE" "$CID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$ANN: the container's root (id 0) is not mapped"* ]]
	[ ! -e "$TESTDIR/up" ]
	assert_nothing_left
}
