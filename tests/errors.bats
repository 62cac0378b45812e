#!/usr/bin/env bats
# Bad configs: create fails with a non-zero exit and leaves nothing behind.

load helpers/common

setup_file() { common_setup_file; }

setup() {
	common_setup
	set_args sleep 100
	# mark the container process too, so tagged_pids finds it after the exec
	config_add process.env "OCIT_TAG=$CID"
	snapshot_host
}

# create_fails: create must fail, and leave nothing behind; $output has its stderr.
create_fails() {
	run create_container "$CID"
	echo "create: status $status: $output"
	[ "$status" -ne 0 ]
	[ "$status" -ne 124 ] # not a timeout
	assert_nothing_left
}

@test "errors: a good config creates (control for the tests below)" {
	run create_container "$CID"
	[ "$status" -eq 0 ]
	[ -n "$(state_entries)" ]
	[ -n "$(tagged_pids)" ]
	run runtime delete --force "$CID"
	[ "$status" -eq 0 ]
	assert_nothing_left
}

@test "errors: invalid JSON" {
	echo '{ "ociVersion": "1.0.2", ' >"$BUNDLE/config.json"
	create_fails
}

@test "errors: missing config.json" {
	rm "$BUNDLE/config.json"
	create_fails
	[[ "$output" == *config.json* ]]
}

@test "errors: process.args not an array" {
	config_set process.args '"sh"'
	create_fails
	if is_ocisbx; then
		[[ "$output" == *'config.json: .process.args: expected an array of strings'* ]]
	fi
}

@test "errors: process.args holds a non-string" {
	config_set process.args '["sh", 1]'
	create_fails
	if is_ocisbx; then
		[[ "$output" == *'config.json: .process.args: expected an array of strings'* ]]
	fi
}

@test "errors: unknown namespace type" {
	config_set 'linux.namespaces[2].type' '"foo"'
	create_fails
	if is_ocisbx; then
		[[ "$output" == *'.linux.namespaces[2].type: unknown namespace "foo"'* ]]
	fi
}

@test "errors: an annotation with an empty key is refused, naming .annotations" {
	requires_ocisbx "runc 1.1 takes it (config.md: keys MUST NOT be empty)"
	config_set annotations '{"com.example.ok":"1","":"empty"}'
	create_fails
	[[ "$output" == *'config.json: .annotations: a key is empty'* ]]
}

@test "errors: missing executable (absolute path)" {
	set_args /nonexistent
	create_fails
	[[ "$output" == */nonexistent* ]]
	[[ "$output" == *'no such file or directory'* ]]
}

@test "errors: missing executable (PATH lookup), run fails fast" {
	set_args nosuchcmd
	SECONDS=0
	RUNTIME_TIMEOUT=10 run run_container "$CID" </dev/null
	echo "run: status $status in ${SECONDS}s: $output"
	[ "$status" -ne 0 ]
	[ "$status" -ne 124 ]
	[ "$SECONDS" -lt 5 ]
	[[ "$output" == *nosuchcmd* ]]
	[[ "$output" == *'executable file not found'* ]]
	assert_nothing_left
}

@test "errors: missing rootfs" {
	config_set root.path '"no-such-rootfs"'
	create_fails
}

@test "errors: relative cwd" {
	config_set process.cwd '"tmp"'
	create_fails
}

# config_long CODE: runs CODE (python, `c` the config, `big` 1 MiB of "a") on config.json:
# a value that large cannot pass through an argument (128 KiB each at most).
config_long() {
	"$PYTHON" - "$BUNDLE/config.json" "$1" <<-'EOF'
		import json, sys
		path, code = sys.argv[1:]
		c = json.load(open(path))
		big = "a" * (1 << 20)
		exec(code)
		json.dump(c, open(path, "w"))
	EOF
}

@test "errors: a 1 MiB domainname, path or args[0] is refused before anything is made, naming the field in a short message; 64-byte names pass" {
	requires_ocisbx "runc 1.1 takes a 1 MiB domainname"
	local code field
	while IFS='|' read -r field code; do
		make_config sleep 100
		config_add process.env "OCIT_TAG=$CID"
		config_long "$code"
		create_fails
		echo "${#output} bytes"
		[[ "$output" == *"config.json: $field: "*" bytes, longer than the kernel takes ("* ]]
		[ "${#output}" -lt 512 ]
	done <<-'EOF'
		.domainname|c["domainname"] = big
		.process.cwd|c["process"]["cwd"] = "/" + big
		.process.args[0]|c["process"]["args"] = ["/" + big]
		.mounts[7].destination|c["mounts"].append({"destination": "/" + big, "type": "tmpfs", "source": "tmpfs"})
		.linux.maskedPaths[0]|c["linux"]["maskedPaths"] = ["/" + big]
		.linux.cgroupsPath|c["linux"]["cgroupsPath"] = "/" + big
	EOF
	# the longest names the kernel takes pass
	make_config sh -c 'hostname; cat /proc/sys/kernel/domainname'
	config_set hostname "\"$(printf 'h%.0s' {1..64})\""
	config_set domainname "\"$(printf 'd%.0s' {1..64})\""
	run run_container "$CID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'h%.0s' {1..64})"$'\n'"$(printf 'd%.0s' {1..64})" ]
}

@test "errors: a bind mount of a missing source, after other mounts" {
	config_add mounts '{"destination":"/mnt","type":"bind","source":"/no/such/dir","options":["rbind"]}'
	create_fails
}

@test "errors: a mount with an unknown filesystem type" {
	config_add mounts '{"destination":"/mnt","type":"nosuchfs","source":"none"}'
	create_fails
}

@test "errors: start/state/kill/delete of a container that failed to create" {
	config_set process.cwd '"tmp"'
	create_fails
	for cmd in start state 'kill' delete; do
		run runtime $cmd "$CID"
		[ "$status" -ne 0 ]
	done
}

@test "errors: --log FILE --log-format json writes JSON lines" {
	set_args /nonexistent
	run "$OCI_RUNTIME" --root "$ROOT" --log "$TESTDIR/log.json" --log-format json \
		create -b "$BUNDLE" "$CID" </dev/null
	[ "$status" -ne 0 ]
	[ -s "$TESTDIR/log.json" ]
	"$PYTHON" - "$TESTDIR/log.json" <<-'EOF'
		import json, sys
		lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
		assert lines, "no log lines"
		for l in lines:
		    assert {"level", "msg", "time"} <= set(l), l
		assert any(l["level"] == "error" and "/nonexistent" in l["msg"] for l in lines), lines
	EOF
}

@test "errors: an idmapped bind with a missing source in a user namespace names it, nothing left" {
	requires_ocisbx "runc 1.1 has no idmapped mounts"
	use_userns # the container's root reaches its rootfs: the mount is the first thing to fail
	config_add mounts '{"destination":"/idm","type":"bind","source":"/no/such/dir","options":["bind","idmap"]}'
	run runtime run -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"/no/such/dir"* ]]
	[ ! -e "$ROOT/$CID" ]
	! ls -d /sys/fs/cgroup/*/ocisbx/"$CID" 2>/dev/null
}

# --- the child's error, whatever the parent was doing when it failed -------------------

# A create that fails early in the child (a bind mount of a file onto a directory) while
# the parent still sends or waits: its message, not the channel's ("sync: send go:
# Broken pipe", "sync: receive ready: Connection reset by peer"), on stderr and in the
# JSON log, every time.  Under load (three busy loops) the race is likely; 50 tries each
# of create and run, without and with user and cgroup namespaces: 200 in all.
LOAD_PIDS=()

teardown() {
	[ "${#LOAD_PIDS[@]}" -eq 0 ] || kill "${LOAD_PIDS[@]}" 2>/dev/null || true
	[ -z "${EARLY_DIR:-}" ] || rm -rf "$EARLY_DIR"
	common_teardown
}

# early_failures CMD TRIES: CMD (create or run) of $BUNDLE, TRIES times; each must fail
# with the child's message on stderr and as one error line in $TESTDIR/log.json.
early_failures() {
	local cmd=$1 tries=$2 i out bad=0
	: >"$TESTDIR/log.json"
	for i in $(seq "$tries"); do
		out=$(runtime --log "$TESTDIR/log.json" --log-format json "$cmd" -b "$BUNDLE" "$CID-$i" \
			</dev/null 2>&1 >/dev/null) && { echo "try $i: $cmd succeeded"; return 1; }
		if ! early_failure_message "$out"; then
			echo "try $i: $out"
			bad=$((bad + 1))
		fi
	done
	"$PYTHON" - "$TESTDIR/log.json" "$tries" "$(is_ocisbx && echo ocisbx)" <<-'PY'
		import json, sys
		errors = [l["msg"] for l in map(json.loads, filter(str.strip, open(sys.argv[1])))
		          if l["level"] == "error"]
		want = "bind mount `/tmp`: Not a directory" if sys.argv[3] else "not a directory"
		good = [m for m in errors if want in m.lower() or want in m]
		assert len(errors) == int(sys.argv[2]) and len(good) == len(errors), errors
	PY
	[ "$bad" -eq 0 ]
	[ -z "$(state_entries)" ]
}

# early_failure_message TEXT: the child's own words.
early_failure_message() {
	if is_ocisbx; then
		[[ "$1" == *'rootfs: mounts[7]: bind mount `/tmp`: Not a directory'* ]]
	else
		[[ "${1,,}" == *"/tmp"*"not a directory"* ]]
	fi
}

# early_failure_setup [userns]: the failing config; with userns, new user and cgroup
# namespaces (the rootfs and the bind source where uid 100000 reaches them).
early_failure_setup() {
	EARLY_DIR=$(mktemp -d /tmp/ocisbx-early.XXXXXX)
	chmod 755 "$EARLY_DIR"
	touch "$EARLY_DIR/file"
	if [ "${1:-}" = userns ]; then
		cp -a "$BUNDLE/rootfs" "$EARLY_DIR/rootfs"
		chmod -R a+rX "$EARLY_DIR/rootfs"
		config_set root.path "\"$EARLY_DIR/rootfs\""
		config_add linux.namespaces '{"type":"user"}'
		config_add linux.namespaces '{"type":"cgroup"}'
		config_set linux.uidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
		config_set linux.gidMappings '[{"containerID":0,"hostID":100000,"size":65536}]'
	fi
	config_add mounts '{"destination":"/tmp","type":"bind","source":"'"$EARLY_DIR/file"'","options":["bind"]}'
	for _ in 1 2 3; do
		(while :; do :; done) &
		LOAD_PIDS+=($!)
	done
}

@test "errors: the child's early failure reaches create and run under load" {
	early_failure_setup
	early_failures create 50
	early_failures run 50
}

@test "errors: the child's early failure reaches create and run under load (user and cgroup namespaces)" {
	early_failure_setup userns
	early_failures create 50
	early_failures run 50
}

@test "errors: an execve that fails reads as runc's (\"exec /run.sh: no such file or directory\"), run and exec" {
	# found by the lookup, refused by execve: a missing interpreter, a file that is no program
	printf '#!/nonexistent\n' >"$BUNDLE/rootfs/run.sh"
	printf 'junk' >"$BUNDLE/rootfs/junk"
	chmod +x "$BUNDLE/rootfs/run.sh" "$BUNDLE/rootfs/junk"
	set_args /run.sh
	run run_container "$CID" </dev/null
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"exec /run.sh: no such file or directory"* ]]
	if is_ocisbx; then [ "$status" -eq 127 ]; fi # podman's "not found"
	set_args /junk
	run run_container "$CID" </dev/null
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"exec /junk: exec format error"* ]]
	if is_ocisbx; then [ "$status" -eq 126 ]; fi # podman's "cannot run"

	set_args sleep 100
	create_container "$CID"
	runtime start "$CID"
	run runtime exec "$CID" /run.sh </dev/null
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"exec /run.sh: no such file or directory"* ]]
	if is_ocisbx; then [ "$status" -eq 127 ]; fi
}

@test "errors: --debug writes debug lines (level=debug) to stderr, or to --log as text and as JSON" {
	set_args true
	run "$OCI_RUNTIME" --root "$ROOT" --debug run -b "$BUNDLE" "$CID" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"level=debug"* ]]

	run "$OCI_RUNTIME" --root "$ROOT" --debug --log "$TESTDIR/log.txt" run -b "$BUNDLE" "$CID" </dev/null
	[ "$status" -eq 0 ]
	cat "$TESTDIR/log.txt"
	grep -q 'level=debug' "$TESTDIR/log.txt"
	[[ "$output" != *"level=debug"* ]] # the log has them, not stderr

	run "$OCI_RUNTIME" --root "$ROOT" --debug --log "$TESTDIR/log.json" --log-format json run -b "$BUNDLE" "$CID" </dev/null
	[ "$status" -eq 0 ]
	"$PYTHON" - "$TESTDIR/log.json" <<-'EOF'
		import json, sys
		lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
		assert any(l["level"] == "debug" and l["msg"] for l in lines), lines
	EOF
}

@test "errors: a 1 MiB hostname is refused naming .hostname, in a short message, before anything exists" {
	"$PYTHON" - "$BUNDLE/config.json" <<-'EOF'
		import json, sys
		c = json.load(open(sys.argv[1]))
		c["hostname"] = "h" * (1 << 20)
		json.dump(c, open(sys.argv[1], "w"))
	EOF
	create_fails
	[ "${#output}" -lt 400 ]
	if is_ocisbx; then [[ "$output" == *".hostname"* ]]; fi
}

@test "errors: a huge value in a message is cut short (a 64 KiB process.args[0])" {
	requires_ocisbx "runc 1.1 echoes the whole value"
	set_args "/$(head -c 65536 /dev/zero | tr '\0' x)"
	create_fails
	[ "${#output}" -lt 2048 ]
}

@test "errors: a config without root is refused, naming .root.path" {
	config_del root
	create_fails
	if is_ocisbx; then [[ $output == *'config.json: .root.path: required'* ]]; fi
}
