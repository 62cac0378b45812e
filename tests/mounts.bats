#!/usr/bin/env bats
# Mounts: root.readonly, binds and their flags, missing destinations, options,
# recursive attributes, propagation, cgroup mounts, symlink escapes, no leftovers on the
# host.  The rootfs itself (rootfsPropagation, --no-pivot): rootfs.bats.

load helpers/common

setup_file() { common_setup_file; }
setup() { common_setup; }
teardown() { common_teardown; }

# mi DEST: a command printing the container's mountinfo line for mount point DEST
# (the topmost one).
mi() { echo "awk '\$5 == \"$1\"' /proc/self/mountinfo | tail -n1"; }

@test "root.readonly: / is read-only, writes fail with EROFS" {
	ctr_sh 'touch /newfile'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	[ ! -e "$BUNDLE/rootfs/newfile" ]
	ctr_sh "$(mi /)"
	[ "$status" -eq 0 ]
	[[ "$output" == *" / ro,"* ]]
}

@test "root.readonly false: / is writable" {
	config_set root.readonly false
	ctr_sh 'echo hello >/newfile && cat /newfile'
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
	[ "$(cat "$BUNDLE/rootfs/newfile")" = hello ]
}

@test "bind rw: the container writes the host directory" {
	bind_shared /mnt
	echo from-host >"$SHARED/in"
	ctr_sh 'cat /mnt/in && echo from-ctr >/mnt/out'
	[ "$status" -eq 0 ]
	[ "$output" = from-host ]
	[ "$(cat "$SHARED/out")" = from-ctr ]
}

@test "bind ro: reads work, writes fail with EROFS" {
	bind_shared /mnt ro
	echo from-host >"$SHARED/in"
	ctr_sh 'cat /mnt/in; echo x >/mnt/out'
	[ "$status" -ne 0 ]
	[[ "$output" == *from-host* ]]
	[[ "$output" == *"Read-only file system"* ]]
	[ ! -e "$SHARED/out" ]
	ctr_sh "$(mi /mnt)"
	[[ "$output" == *" /mnt ro,"* ]]
}

@test "bind ro keeps the source's nosuid/nodev/noexec" {
	requires_ocisbx "runc drops them outside a user namespace"
	mkdir -p "$TESTDIR/src"
	mount -t tmpfs -o nosuid,nodev,noexec tmpfs "$TESTDIR/src"
	config_add mounts "{\"destination\":\"/mnt\",\"type\":\"bind\",\"source\":\"$TESTDIR/src\",\"options\":[\"bind\",\"ro\"]}"
	ctr_sh "$(mi /mnt)"
	umount "$TESTDIR/src"
	[ "$status" -eq 0 ]
	[[ "$output" == *" /mnt ro,nosuid,nodev,noexec"* ]]
}

@test "bind atime flags: noatime, relatime, strictatime and nodiratime are applied, and kept with ro" {
	for o in noatime relatime strictatime nodiratime; do
		config_add mounts "{\"destination\":\"/$o\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"bind\",\"$o\"]}"
		config_add mounts "{\"destination\":\"/$o-ro\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"bind\",\"$o\",\"ro\"]}"
	done
	ctr_sh "awk '\$5 ~ /^\/[a-z]*atime(-ro)?\$/ {print \$5, \$6}' /proc/self/mountinfo"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/noatime rw,noatime" ]
	[ "${lines[1]}" = "/noatime-ro ro,noatime" ]
	[ "${lines[2]}" = "/relatime rw,relatime" ]
	[ "${lines[3]}" = "/relatime-ro ro,relatime" ]
	[ "${lines[4]}" = "/strictatime rw" ]
	[ "${lines[5]}" = "/strictatime-ro ro" ]
	[ "${lines[6]}" = "/nodiratime rw,nodiratime,relatime" ]
	[ "${lines[7]}" = "/nodiratime-ro ro,nodiratime,relatime" ]
}

# ro_source: $TESTDIR/rosrc, a read-only bind of the writable $TESTDIR/rwsrc (the file
# system itself stays writable: only the mount is read-only).
ro_source() {
	mkdir -p "$TESTDIR/rwsrc" "$TESTDIR/rosrc"
	chmod 777 "$TESTDIR/rwsrc"
	mount --bind "$TESTDIR/rwsrc" "$TESTDIR/rosrc"
	mount -o remount,bind,ro "$TESTDIR/rosrc"
}

@test "bind of a read-only source with other flags but no ro: read-write, as runc (mount --bind -o)" {
	ro_source
	config_add mounts "{\"destination\":\"/plain\",\"type\":\"bind\",\"source\":\"$TESTDIR/rosrc\",\"options\":[\"rbind\",\"rprivate\"]}"
	config_add mounts "{\"destination\":\"/flags\",\"type\":\"bind\",\"source\":\"$TESTDIR/rosrc\",\"options\":[\"bind\",\"nosuid\",\"nodev\",\"rprivate\"]}"
	config_add mounts "{\"destination\":\"/atime\",\"type\":\"bind\",\"source\":\"$TESTDIR/rosrc\",\"options\":[\"bind\",\"noatime\"]}"
	ctr_sh "$(mi /plain) | cut -d' ' -f6; $(mi /flags) | cut -d' ' -f6; $(mi /atime) | cut -d' ' -f6; touch /flags/written"
	echo "$output"
	[ "$status" -eq 0 ]
	# a bind without flags keeps the source's, ro included
	[ "${lines[0]}" = ro,relatime ]
	[ "${lines[1]}" = rw,nosuid,nodev,relatime ]
	[ "${lines[2]}" = rw,noatime ]
	[ -e "$TESTDIR/rwsrc/written" ]
}

@test "bind of a read-only source in a user namespace with other flags: the locked ro stays" {
	ro_source
	use_userns
	config_add mounts "{\"destination\":\"/flags\",\"type\":\"bind\",\"source\":\"$TESTDIR/rosrc\",\"options\":[\"bind\",\"nosuid\"]}"
	ctr_sh "$(mi /flags) | cut -d' ' -f6"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ro,nosuid,relatime ]
}

@test "bind in a user namespace: an explicit change of a locked flag is refused, saying why" {
	requires_ocisbx "error text (runc 1.1 ignores rw and fails on atime with a bare EPERM)"
	ro_source
	use_userns
	config_add mounts "{\"destination\":\"/flags\",\"type\":\"bind\",\"source\":\"$TESTDIR/rosrc\",\"options\":[\"bind\",\"rw\"]}"
	snapshot_host
	ctr_sh true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *'remount `/flags`: a user namespace locks the flags of the source (ro,relatime)'* ]]
	assert_nothing_left
	config_set 'mounts[-1].options' '["bind","noatime"]'
	ctr_sh true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *'remount `/flags`: a user namespace locks the flags of the source (ro,relatime)'* ]]
}

@test "bind source below a directory of host root's, mode 0000, in a user namespace: the runtime opens it" {
	mkdir -p "$TESTDIR/locked/inner"
	echo secret-ok >"$TESTDIR/locked/inner/file"
	chmod 644 "$TESTDIR/locked/inner/file"
	chmod 000 "$TESTDIR/locked"
	use_userns
	config_add mounts "{\"destination\":\"/mnt\",\"type\":\"bind\",\"source\":\"$TESTDIR/locked/inner\",\"options\":[\"rbind\"]}"
	ctr_sh 'cat /mnt/file'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = secret-ok ]
}

# mount_order_config [userns] [idmap]: runc's mount-order test: a tree of binds from
# $TESTDIR/bind-src (o-rwx: a user namespace cannot reach it), then binds whose sources
# are in the rootfs and must see the mounts made before them.
mount_order_config() {
	local d sub idmap='' rootfs
	for sub in a/x b/y c/z; do
		mkdir -p "$TESTDIR/bind-src/$sub"
		echo "$sub" >"$TESTDIR/bind-src/$sub/file"
		ln -s "$(dirname "$sub")" "$TESTDIR/bind-src/sym-$(dirname "$sub")"
	done
	chmod o-rwx "$TESTDIR/bind-src"
	[[ " $* " == *" userns "* ]] && use_userns
	[[ " $* " == *" idmap "* ]] && idmap=',"uidMappings":[{"containerID":0,"hostID":100000,"size":65536}],"gidMappings":[{"containerID":0,"hostID":100000,"size":65536}]'
	rootfs=${USERNS_DIR:-$BUNDLE}/rootfs
	mkdir -p "$rootfs/mnt" "$rootfs/final"
	bind() { config_add mounts "{\"source\":\"$1\",\"destination\":\"$2\",\"type\":\"bind\",\"options\":[\"rbind\",\"rprivate\"]$3}"; }
	bind "$TESTDIR/bind-src/a" /mnt
	bind "$TESTDIR/bind-src/sym-b" /mnt/x
	bind "$TESTDIR/bind-src/c" /mnt/x/y
	bind "$TESTDIR/bind-src/sym-a" /mnt/x/y/z
	bind "$rootfs/mnt/x" /mnt/x/y/z/x "$idmap"
	bind "$rootfs/mnt/x/y" /mnt/x/y/z "$idmap"
	bind "$rootfs/mnt" /final "$idmap"
	set_args cat /final/x/y/z/z/x/y/z/x/file
}

# mount_order_run [ID]: runs it: the file at the end of the tree is a/x's.
mount_order_run() {
	run runtime run -b "$BUNDLE" "${1:-$CID}" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = a/x ]
}

@test "mount order: a bind whose source is in the rootfs sees the mounts made before it" {
	mount_order_config
	mount_order_run
}

@test "mount order: the same in a user namespace, host sources out of the container's reach" {
	requires_ocisbx "runc 1.1 opens the rootfs sources before the mounts they are on exist (runc 1.2 does not)"
	mount_order_config userns
	mount_order_run
}

@test "mount order: idmapped binds of rootfs sources, with and without a user namespace" {
	requires_ocisbx "runc 1.1 has no idmapped mounts"
	mount_order_config idmap
	mount_order_run
	make_config
	rm -rf "$TESTDIR/bind-src"
	mount_order_config userns idmap
	mount_order_run "$CID-u"
}

@test "missing destinations are created inside the rootfs: a directory and a file" {
	echo file-content >"$TESTDIR/afile"
	config_add mounts "{\"destination\":\"/new/deep/dir\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"rbind\"]}"
	config_add mounts "{\"destination\":\"/etc/new.conf\",\"type\":\"bind\",\"source\":\"$TESTDIR/afile\",\"options\":[\"bind\",\"ro\"]}"
	touch "$SHARED/marker"
	ctr_sh 'ls /new/deep/dir && cat /etc/new.conf'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = marker ]
	[ "${lines[1]}" = file-content ]
	[ -d "$BUNDLE/rootfs/new/deep/dir" ]
	[ -f "$BUNDLE/rootfs/etc/new.conf" ]
	[ ! -s "$BUNDLE/rootfs/etc/new.conf" ] # an empty mount point, not a copy
}

@test "relative bind sources are under the bundle" {
	mkdir "$BUNDLE/data"
	echo rel >"$BUNDLE/data/f"
	config_add mounts '{"destination":"/data","type":"bind","source":"data","options":["bind"]}'
	ctr_sh 'cat /data/f'
	[ "$status" -eq 0 ]
	[ "$output" = rel ]
}

@test "tmpfs: options and filesystem data show in mountinfo" {
	config_add mounts '{"destination":"/scratch","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","noexec","noatime","mode=700","size=1m","uid=1000"]}'
	ctr_sh "$(mi /scratch); stat -c '%a %u' /scratch"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *" /scratch rw,nosuid,nodev,noexec,noatime "* ]]
	[[ "${lines[0]}" == *"size=1024k"* ]]
	[[ "${lines[0]}" == *"mode=700"* ]]
	[[ "${lines[0]}" == *"uid=1000"* ]]
	[ "${lines[1]}" = "700 1000" ]
}

@test "iversion and noiversion are mount flags (MS_I_VERSION), not filesystem data" {
	# as data, tmpfs refuses them ("tmpfs: Unknown parameter 'iversion'"); the flag is
	# not shown in mountinfo for tmpfs: the mounts being made is what shows
	config_add mounts '{"destination":"/iv","type":"tmpfs","source":"tmpfs","options":["iversion","size=1m"]}'
	config_add mounts '{"destination":"/noiv","type":"tmpfs","source":"tmpfs","options":["iversion","noiversion"]}'
	ctr_sh 'grep -E " /(iv|noiv) tmpfs " /proc/mounts'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "$output" == *" /iv tmpfs rw"* ]]
	[[ "$output" == *" /noiv tmpfs rw"* ]]
}

@test "tmpfs without mode=: the mode of the directory it covers, 1777 where none was" {
	mkdir -p "$BUNDLE/rootfs/covered" "$BUNDLE/rootfs/private"
	chmod 0712 "$BUNDLE/rootfs/covered"
	chmod 0700 "$BUNDLE/rootfs/private"
	config_add mounts '{"destination":"/covered","type":"tmpfs","source":"tmpfs","options":["size=1m"]}'
	config_add mounts '{"destination":"/private","type":"tmpfs","source":"tmpfs","options":["mode=755"]}'
	config_add mounts '{"destination":"/made","type":"tmpfs","source":"tmpfs"}'
	ctr_sh 'for d in covered private made; do echo "$d $(stat -c %a /$d) $(stat -f -c %T /$d)"; done'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "covered 712 tmpfs" ]
	if is_ocisbx; then # as crun: the mount's mode= wins (runc 1.1 keeps the directory's)
		[ "${lines[1]}" = "private 755 tmpfs" ]
	fi
	[ "${lines[2]}" = "made 1777 tmpfs" ]
}

@test "tmpcopyup: a new tmpfs starts with a copy of what it covers" {
	mkdir -p "$BUNDLE/rootfs/opt/sub"
	echo content >"$BUNDLE/rootfs/opt/sub/file"
	chmod 0751 "$BUNDLE/rootfs/opt/sub"
	ln -s sub/file "$BUNDLE/rootfs/opt/link"
	chmod 0705 "$BUNDLE/rootfs/opt"
	config_add mounts '{"destination":"/opt","type":"tmpfs","source":"tmpfs","options":["tmpcopyup","size=1m"]}'
	config_add mounts '{"destination":"/etc","type":"tmpfs","source":"tmpfs","options":["tmpcopyup","mode=1770"]}'
	ctr_sh "cat /opt/link; stat -c %a /opt/sub; stat -c %a /opt; echo new >/opt/added; $(mi /opt); stat -c %a /etc; head -1 /etc/passwd"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = content ]
	[ "${lines[1]}" = 751 ]
	[ "${lines[2]}" = 705 ]
	[[ "${lines[3]}" == *" /opt "*" - tmpfs "* ]]
	if is_ocisbx; then # as crun: the mount's mode= wins (runc 1.1 keeps the directory's)
		[ "${lines[4]}" = 1770 ]
	fi
	[ "${lines[5]}" = root:x:0:0:root:/root:/bin/sh ]
	[ ! -e "$BUNDLE/rootfs/opt/added" ]
}

@test "mounts happen in order: a later mount goes on top of an earlier one" {
	config_add mounts '{"destination":"/stack","type":"tmpfs","source":"tmpfs","options":["size=1m"]}'
	config_add mounts '{"destination":"/stack/inner","type":"tmpfs","source":"tmpfs","options":["size=2m","ro"]}'
	ctr_sh "$(mi /stack); $(mi /stack/inner)"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"size=1024k"* ]]
	[[ "${lines[1]}" == *" /stack/inner ro,"*"size=2048k"* ]]
}

@test "read-only tmpfs: later mounts inside it and tmpcopyup still work, then it is read-only" {
	mkdir -p "$BUNDLE/rootfs/etc/seed"
	echo seeded >"$BUNDLE/rootfs/etc/seed/file"
	config_add mounts '{"destination":"/ro","type":"tmpfs","source":"tmpfs","options":["ro","size=1m"]}'
	config_add mounts '{"destination":"/ro/inner/deep","type":"tmpfs","source":"tmpfs","options":["size=2m"]}'
	config_add mounts '{"destination":"/etc/seed","type":"tmpfs","source":"tmpfs","options":["ro","tmpcopyup"]}'
	ctr_sh "$(mi /ro); cat /etc/seed/file; touch /ro/inner/deep/x && echo inner-rw; touch /ro/x 2>/dev/null || echo ro-ok"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *" /ro ro,"*"size=1024k"* ]]
	[ "${lines[1]}" = seeded ]
	[ "${lines[2]}" = inner-rw ]
	[[ "$output" == *ro-ok* ]]
}

@test "ro vs rro: only the recursive form makes submounts read-only" {
	# runtime-spec: rro is the recursive form; docker's bind-recursive=writable
	# asks for rbind,ro and expects the submounts writable (runc does so)
	mkdir -p "$SHARED/sub"
	mount -t tmpfs tmpfs "$SHARED/sub"
	config_add mounts "{\"destination\":\"/ro\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"rbind\",\"ro\"]}"
	config_add mounts "{\"destination\":\"/rro\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"rbind\",\"rro\"]}"
	ctr_sh 'touch /ro/a || echo ro-top-readonly; touch /ro/sub/a && echo ro-sub-writable; touch /rro/sub/b || echo rro-sub-readonly; touch /rro/c || echo rro-top-readonly'
	umount -l "$SHARED/sub"
	[ "$status" -eq 0 ]
	[[ "$output" == *ro-top-readonly* ]]
	[[ "$output" == *ro-sub-writable* ]]
	[[ "$output" == *rro-sub-readonly* ]]
	[[ "$output" == *rro-top-readonly* ]]
}

@test "recursive nosuid/nodev/noexec (rnosuid rnodev rnoexec)" {
	mkdir -p "$SHARED/sub"
	mount -t tmpfs tmpfs "$SHARED/sub"
	config_add mounts "{\"destination\":\"/r\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"rbind\",\"rnosuid\",\"rnodev\",\"rnoexec\"]}"
	ctr_sh "$(mi /r/sub)"
	umount -l "$SHARED/sub"
	[ "$status" -eq 0 ]
	[[ "$output" == *" /r/sub rw,nosuid,nodev,noexec"* ]]
}

@test "propagation options: rshared and rprivate binds" {
	config_add mounts "{\"destination\":\"/shared\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"rbind\",\"rshared\"]}"
	config_add mounts "{\"destination\":\"/private\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"rbind\",\"rprivate\"]}"
	ctr_sh "$(mi /shared); $(mi /private)"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *" shared:"* ]]
	[[ "${lines[1]}" != *" shared:"* ]]
	[[ "${lines[1]}" != *" master:"* ]]
}

@test "cgroup mount: the hierarchies, read-only" {
	ctr_sh 'ls /sys/fs/cgroup; mkdir /sys/fs/cgroup/x || echo ro-ok'
	[ "$status" -eq 0 ]
	if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
		[[ "$output" == *cgroup.procs* ]]
	else
		[[ "$output" == *memory* ]]
		[[ "$output" == *pids* ]]
	fi
	[[ "$output" == *ro-ok* ]]
}

# cgroup_mount_v1_check: the test below, with the current config.
cgroup_mount_v1_check() {
	config_set linux.cgroupsPath "\"/$CID-cgmnt\""
	ctr_sh "awk '\$5 ~ \"^/sys/fs/cgroup/\" {print \$5, \$4, \$6}' /proc/self/mountinfo
		mkdir /sys/fs/cgroup/memory/x 2>/dev/null || echo memory-ro"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *memory-ro* ]]
	dests=" "
	while read -r dest root opts; do
		[ "$dest" = memory-ro ] && continue
		dests="$dests$dest "
		[ "$root" = "/$CID-cgmnt" ] || { echo "$dest: root $root"; return 1; }
		for o in ro nosuid nodev noexec; do
			[[ ",$opts," == *",$o,"* ]] || { echo "$dest: no $o in $opts"; return 1; }
		done
	done <<<"$output"
	# every v1 hierarchy of the host (runc 1.1 leaves out hybrid's cgroup2 "unified")
	for d in /sys/fs/cgroup/*/; do
		d=${d%/}
		[ -L "$d" ] || [ "$(stat -f -c %T "$d")" != cgroupfs ] && continue
		[[ "$dests" == *" $d "* ]] || { echo "no mount at $d"; return 1; }
	done
}

@test "cgroup mount (v1): each hierarchy is the container's own cgroup, ro nosuid nodev noexec" {
	[ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && skip "v1 layout test"
	cgroup_mount_v1_check
	# a shared root: the binds are remounted one by one (their peers keep their flags)
	config_set linux.rootfsPropagation '"shared"'
	cgroup_mount_v1_check
}

# --- symlinks in the rootfs must never send a mount (or a mkdir) to the host ---

@test "symlink escape: absolute symlink to a host path" {
	mkdir -p "$TESTDIR/hostdir"
	ln -s "$TESTDIR/hostdir" "$BUNDLE/rootfs/abs"
	config_add mounts '{"destination":"/abs/sub","type":"tmpfs","source":"tmpfs"}'
	ctr_sh 'true'
	[ "$status" -eq 0 ]
	[ ! -e "$TESTDIR/hostdir/sub" ]
	[ -d "$BUNDLE/rootfs/$TESTDIR/hostdir/sub" ]
	! grep -q " $TESTDIR/hostdir" /proc/self/mountinfo
}

@test "symlink escape: relative .. chain symlink" {
	mkdir -p "$TESTDIR/hostdir"
	ln -s "../../../../../../../../../../$TESTDIR/hostdir" "$BUNDLE/rootfs/etc/rel"
	config_add mounts "{\"destination\":\"/etc/rel/sub\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"bind\"]}"
	ctr_sh 'true'
	[ "$status" -eq 0 ]
	[ ! -e "$TESTDIR/hostdir/sub" ]
	[ -d "$BUNDLE/rootfs/$TESTDIR/hostdir/sub" ]
	! grep -q " $TESTDIR/hostdir" /proc/self/mountinfo
}

@test "symlink escape: .. chain in the destination itself" {
	mkdir -p "$TESTDIR/hostdir"
	config_add mounts "{\"destination\":\"/../../../../../..$TESTDIR/hostdir/dd\",\"type\":\"tmpfs\",\"source\":\"tmpfs\"}"
	ctr_sh 'true'
	[ "$status" -eq 0 ]
	[ ! -e "$TESTDIR/hostdir/dd" ]
	! grep -q " $TESTDIR/hostdir" /proc/self/mountinfo
}

@test "symlink escape: dangling symlink for a file bind creates the file inside" {
	mkdir -p "$TESTDIR/hostdir"
	echo secret >"$TESTDIR/srcfile"
	ln -s "$TESTDIR/hostdir/victim" "$BUNDLE/rootfs/etc/dangling"
	config_add mounts "{\"destination\":\"/etc/dangling\",\"type\":\"bind\",\"source\":\"$TESTDIR/srcfile\",\"options\":[\"bind\"]}"
	ctr_sh 'cat /etc/dangling'
	[ "$status" -eq 0 ]
	[ "$output" = secret ]
	[ ! -e "$TESTDIR/hostdir/victim" ]
	[ -f "$BUNDLE/rootfs/$TESTDIR/hostdir/victim" ]
}

# mount_target SRC DEST REAL: a bind of SRC at DEST (no type: "bind" in the options)
# lands at REAL inside the container, as SRC itself (same device and inode).
mount_target() {
	config_add mounts "{\"source\":\"$1\",\"destination\":\"$2\",\"options\":[\"bind\"]}"
	set_args stat -c '%n %d:%i' -- "$3"
	run runtime run -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$3 $(stat -c %d:%i -- "$1")" ]
	config_del 'mounts[-1]'
}

@test "bind through a dangling symlink component: created inside the rootfs where the link points" {
	ln -s /tmp/foo/bar "$BUNDLE/rootfs/jump"
	ln -s /jump/baz/hosts "$BUNDLE/rootfs/etc/hosts"
	mount_target "$BUNDLE/config.json" /etc/hosts /tmp/foo/bar/baz/hosts
	[ -f "$BUNDLE/rootfs/tmp/foo/bar/baz/hosts" ]
}

@test "bind onto a trailing dangling symlink: the file or directory is created where it points" {
	ln -s /tmp/hosts "$BUNDLE/rootfs/etc/hosts"
	mount_target "$BUNDLE/config.json" /etc/hosts /tmp/hosts
	[ -f "$BUNDLE/rootfs/tmp/hosts" ]
	rm "$BUNDLE/rootfs/tmp/hosts"
	mount_target "$SHARED" /etc/hosts /tmp/hosts
	[ -d "$BUNDLE/rootfs/tmp/hosts" ]
}

@test "symlink escape: symlinked intermediate directory to /" {
	ln -s / "$BUNDLE/rootfs/root-link"
	config_add mounts '{"destination":"/root-link/tmp/escape-test-ocisbx","type":"tmpfs","source":"tmpfs"}'
	ctr_sh 'true'
	[ "$status" -eq 0 ]
	[ ! -e /tmp/escape-test-ocisbx ]
	[ -d "$BUNDLE/rootfs/tmp/escape-test-ocisbx" ]
}

@test "a relative mount destination is relative to / (runtime-spec 1.3)" {
	config_add mounts '{"destination":"relative/dir","type":"tmpfs","source":"tmpfs","options":["size=1m"]}'
	config_add mounts '{"destination":"../../up/there","type":"tmpfs","source":"tmpfs"}'
	ctr_sh 'grep -E " /(relative/dir|up/there) tmpfs " /proc/mounts'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" /relative/dir tmpfs "* ]]
	[[ "$output" == *" /up/there tmpfs "* ]]
	# inside the rootfs, not next to it
	[ -d "$BUNDLE/rootfs/relative/dir" ]
	[ -d "$BUNDLE/rootfs/up/there" ]
	[ ! -e "$BUNDLE/up" ]
}

@test "bind mounts into /proc are refused" {
	requires_ocisbx "error text"
	config_add mounts "{\"destination\":\"/proc/self/attr\",\"type\":\"bind\",\"source\":\"$SHARED\",\"options\":[\"bind\"]}"
	ctr_sh 'true'
	[ "$status" -ne 0 ]
	[[ "$output" == *"inside /proc"* ]]
}

@test "no mount is left on the host after 20 runs" {
	bind_shared /mnt ro
	config_add mounts '{"destination":"/scratch","type":"tmpfs","source":"tmpfs"}'
	set_args true
	# Other suites may run in parallel and mount under their own /tmp dirs: count
	# every mount outside /tmp, plus ours under $TESTDIR.
	ours() { awk -v d="$TESTDIR" '$5 !~ "^/tmp/" || index($5, d) == 1 || index($4, d) == 1' /proc/self/mountinfo | wc -l; }
	before=$(ours)
	for i in $(seq 20); do
		runtime run -b "$BUNDLE" "$CID-$i" </dev/null
	done
	[ "$(ours)" -eq "$before" ]
	! grep -q -F "$TESTDIR" /proc/self/mountinfo
}

# --- idmapped binds -----------------------------------------------------------------

# idmap_src: a host directory (on /tmp's file system, which supports idmapped mounts)
# holding `root-file` owned by 0:0 and `user-file` owned by 1000:1000; sets $IDSRC.
idmap_src() {
	IDSRC=$(mktemp -d /tmp/ocisbx-idmap.XXXXXX)
	chmod 755 "$IDSRC"
	touch "$IDSRC/root-file" "$IDSRC/user-file"
	chown 1000:1000 "$IDSRC/user-file"
}

@test "idmap: a bind with its own uidMappings/gidMappings shows owners through them" {
	requires_ocisbx "runc 1.1 has no idmapped mounts"
	idmap_src
	config_add mounts "{\"destination\":\"/mnt\",\"type\":\"bind\",\"source\":\"$IDSRC\",\"options\":[\"bind\",\"idmap\"],
		\"uidMappings\":[{\"containerID\":0,\"hostID\":2000,\"size\":1}],
		\"gidMappings\":[{\"containerID\":0,\"hostID\":3000,\"size\":1}]}"
	ctr_sh 'stat -c "%n %u:%g" /mnt/root-file /mnt/user-file'
	rm -rf "$IDSRC"
	echo "$output"
	[ "$status" -eq 0 ]
	# disk 0 is the mapping's container id: host 2000/3000 is what is seen; 1000 is unmapped
	[ "${lines[0]}" = "/mnt/root-file 2000:3000" ]
	[ "${lines[1]}" = "/mnt/user-file 65534:65534" ]
}

@test "idmap: with a user namespace, the container's own mappings make host root files its root's" {
	requires_ocisbx "runc 1.1 has no idmapped mounts"
	USERNS_DIR=$(mktemp -d /tmp/ocisbx-idmap-userns.XXXXXX)
	chmod 755 "$USERNS_DIR"
	cp -a "$BUNDLE/rootfs" "$USERNS_DIR/rootfs"
	mkdir "$USERNS_DIR/rootfs/idm" "$USERNS_DIR/rootfs/plain" # host root's: the container cannot mkdir there
	chmod -R a+rX "$USERNS_DIR/rootfs"
	config_set root.path "\"$USERNS_DIR/rootfs\""
	config_add linux.namespaces '{"type":"user"}'
	config_set linux.uidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	config_set linux.gidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	idmap_src
	config_add mounts "{\"destination\":\"/idm\",\"type\":\"bind\",\"source\":\"$IDSRC\",\"options\":[\"bind\",\"idmap\"]}"
	config_add mounts "{\"destination\":\"/plain\",\"type\":\"bind\",\"source\":\"$IDSRC\",\"options\":[\"bind\"]}"
	ctr_sh 'stat -c "%n %u:%g" /idm/root-file /idm/user-file /plain/root-file; echo x >/idm/new && stat -c "%n %u:%g" /idm/new'
	echo "$output"
	newowner=$(stat -c %u:%g "$IDSRC/new" 2>/dev/null || true)
	rm -rf "$IDSRC" "$USERNS_DIR"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/idm/root-file 0:0" ]
	[ "${lines[1]}" = "/idm/user-file 1000:1000" ]
	# without the idmap, host root is unmapped in the container's user namespace
	[ "${lines[2]}" = "/plain/root-file 65534:65534" ]
	# the container's root writes files owned by host root through the idmapped mount
	[ "${lines[3]}" = "/idm/new 0:0" ]
	[ "$newowner" = 0:0 ]
}

@test "idmap: uidMappings without gidMappings (or the reverse) is refused, naming the mount" {
	requires_ocisbx "runc 1.1 has no idmapped mounts"
	local m='"uidMappings":[{"containerID":0,"hostID":2000,"size":1}]' which
	for which in "$m" "${m//uid/gid}"; do
		make_config
		config_add mounts "{\"destination\":\"/mnt\",\"type\":\"bind\",\"source\":\"$TESTDIR\",\"options\":[\"bind\",\"idmap\"],$which}"
		set_args true
		run run_container "$CID"
		echo "$which: status $status: $output"
		[ "$status" -ne 0 ]
		[[ $output == *'config.json: .mounts['*']: uidMappings and gidMappings go together'* ]]
		[ -z "$(state_entries)" ]
	done
}
