#!/usr/bin/env bats
# spec, features, state and version output against the OCI JSON schemas; CLI errors.

load helpers/common

setup_file() { common_setup_file; }
teardown() { common_teardown; }

setup() {
	common_setup
	SPECDIR="$TESTDIR/spec"
	mkdir -p "$SPECDIR"
}

@test "schema helper: rejects an invalid config (control)" {
	requires_schema config-schema.json
	echo '{"ociVersion": "1.0.2", "process": {"args": "sh", "cwd": "/"}}' >"$TESTDIR/bad.json"
	run validate_json config-schema.json "$TESTDIR/bad.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *process/args* ]]
	run validate_json config-schema.json "$BUNDLE/config.json"
	[ "$status" -eq 0 ]
}

@test "spec: writes a config.json that validates" {
	requires_schema config-schema.json
	cd "$SPECDIR"
	run runtime spec
	[ "$status" -eq 0 ]
	run validate_json config-schema.json "$SPECDIR/config.json"
	echo "$output"
	[ "$status" -eq 0 ]
	"$PYTHON" - "$SPECDIR/config.json" <<-'EOF'
		import json, sys
		c = json.load(open(sys.argv[1]))
		assert c["root"]["path"] == "rootfs", c["root"]
		assert c["process"]["args"] == ["sh"], c["process"]
		assert c["process"]["cwd"] == "/", c["process"]
		types = {n["type"] for n in c["linux"]["namespaces"]}
		assert {"pid", "mount", "ipc", "uts", "network"} <= types, types
		assert "user" not in types, types
		assert any(m["destination"] == "/proc" and m["type"] == "proc" for m in c["mounts"])
	EOF
}

@test "spec --bundle DIR: writes there" {
	requires_schema config-schema.json
	cd "$TESTDIR"
	run runtime spec --bundle "$SPECDIR"
	[ "$status" -eq 0 ]
	[ -f "$SPECDIR/config.json" ]
	[ ! -e "$TESTDIR/config.json" ]
	validate_json config-schema.json "$SPECDIR/config.json"
}

@test "spec: refuses to overwrite an existing config.json" {
	echo '{"keep": "me"}' >"$SPECDIR/config.json"
	run runtime spec --bundle "$SPECDIR"
	[ "$status" -ne 0 ]
	[ -n "$output" ]
	[ "$(cat "$SPECDIR/config.json")" = '{"keep": "me"}' ]
}

@test "spec: a cgroup namespace on a cgroup v2 host only, as runc writes it" {
	# runc's own integration tests (cgroups.bats, delete.bats) add a cgroup namespace
	# themselves on v1/hybrid and read the host's paths in /proc/self/cgroup otherwise
	cd "$SPECDIR"
	run runtime spec
	[ "$status" -eq 0 ]
	want=no
	[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] && want=yes
	got=$("$PYTHON" -c 'import json, sys
ns = json.load(open(sys.argv[1]))["linux"]["namespaces"]
print("yes" if any(n["type"] == "cgroup" for n in ns) else "no")' config.json)
	echo "cgroup2 host: $want, cgroup namespace in spec: $got"
	[ "$got" = "$want" ]
}

@test "spec --rootless: validates and has a user namespace with mappings" {
	requires_schema config-schema.json
	run runtime spec --rootless --bundle "$SPECDIR"
	[ "$status" -eq 0 ]
	run validate_json config-schema.json "$SPECDIR/config.json"
	echo "$output"
	[ "$status" -eq 0 ]
	"$PYTHON" - "$SPECDIR/config.json" "$(id -u)" "$(id -g)" <<-'EOF'
		import json, sys
		c = json.load(open(sys.argv[1]))
		uid, gid = int(sys.argv[2]), int(sys.argv[3])
		types = {n["type"] for n in c["linux"]["namespaces"]}
		assert "user" in types, types
		assert c["linux"]["uidMappings"] == [{"containerID": 0, "hostID": uid, "size": 1}], c["linux"]
		assert c["linux"]["gidMappings"] == [{"containerID": 0, "hostID": gid, "size": 1}], c["linux"]
	EOF
}

@test "spec: the config it writes runs (with our rootfs and terminal off)" {
	run runtime spec --bundle "$SPECDIR"
	[ "$status" -eq 0 ]
	rm "$BUNDLE/config.json"
	cp "$SPECDIR/config.json" "$BUNDLE/config.json"
	config_set process.terminal false
	set_args sh -c 'echo spec-ok'
	run run_container "$CID" </dev/null
	[ "$status" -eq 0 ]
	[ "$output" = spec-ok ]
}

@test "features: output validates against features-schema.json" {
	requires_schema features-schema.json
	runtime features >"$TESTDIR/features.json"
	run validate_json features-schema.json "$TESTDIR/features.json"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "features: what spec writes is within what features announces" {
	runtime features >"$TESTDIR/features.json"
	cd "$SPECDIR" && runtime spec
	"$PYTHON" - "$TESTDIR/features.json" "$SPECDIR/config.json" <<-'EOF'
		import json, sys
		f = json.load(open(sys.argv[1]))
		c = json.load(open(sys.argv[2]))
		# what spec writes is within what features announces
		assert f["ociVersionMax"] == c["ociVersion"], (f["ociVersionMax"], c["ociVersion"])
		ns = set(f["linux"]["namespaces"])
		assert {"pid", "network", "ipc", "uts", "mount", "user"} <= ns, ns
		assert {"prestart", "createRuntime", "poststart", "poststop"} <= set(f["hooks"]), f["hooks"]
		assert {"bind", "rbind", "ro", "nosuid"} <= set(f["mountOptions"]), f["mountOptions"]
	EOF
}

@test "features: linux.netDevices and memoryPolicy as implemented (runtime-spec 1.3)" {
	requires_ocisbx "runc 1.1 predates linux.netDevices and memoryPolicy"
	runtime features >"$TESTDIR/features.json"
	"$PYTHON" - "$TESTDIR/features.json" <<-'EOF'
		import json, sys
		l = json.load(open(sys.argv[1]))["linux"]
		assert l["netDevices"] == {"enabled": True}, l.get("netDevices")
		mp = l["memoryPolicy"]
		assert set(mp["modes"]) == {"MPOL_DEFAULT", "MPOL_BIND", "MPOL_INTERLEAVE", "MPOL_WEIGHTED_INTERLEAVE",
		                            "MPOL_PREFERRED", "MPOL_PREFERRED_MANY", "MPOL_LOCAL"}, mp
		assert set(mp["flags"]) == {"MPOL_F_NUMA_BALANCING", "MPOL_F_RELATIVE_NODES", "MPOL_F_STATIC_NODES"}, mp
	EOF
}

@test "state: output validates against state-schema.json, created and stopped; rootfs, created and owner as runc's" {
	requires_schema state-schema.json
	config_set annotations '{"org.example.key": "value"}'
	set_args sleep 100
	create_container "$CID"
	runtime state "$CID" >"$TESTDIR/state.json"
	run validate_json state-schema.json "$TESTDIR/state.json"
	echo "$output"
	[ "$status" -eq 0 ]
	runtime list --format json >"$TESTDIR/list.json"
	"$PYTHON" - "$TESTDIR/state.json" "$CID" "$BUNDLE" "$TESTDIR/list.json" <<-'EOF'
		import json, sys, datetime
		s = json.load(open(sys.argv[1]))
		assert s["id"] == sys.argv[2] and s["bundle"] == sys.argv[3], s
		assert s["status"] == "created" and s["pid"] > 0, s
		assert s["annotations"] == {"org.example.key": "value"}, s
		# beside the spec's fields what runc's state prints (go-runc reads them)
		l = json.load(open(sys.argv[4]))[0]
		assert s["rootfs"] == sys.argv[3] + "/rootfs", s
		assert s["created"] == l["created"] and s["created"].endswith("Z"), (s, l)
		datetime.datetime.strptime(s["created"][:19], "%Y-%m-%dT%H:%M:%S")
		assert "owner" in s, s  # runc 1.1 leaves it empty
	EOF
	if is_ocisbx; then [ "$(json_field owner "$TESTDIR/state.json")" = root ]; fi

	runtime kill "$CID" KILL
	wait_for_status "$CID" stopped
	runtime state "$CID" >"$TESTDIR/state.json"
	run validate_json state-schema.json "$TESTDIR/state.json"
	[ "$status" -eq 0 ]
	[ "$(json_field pid "$TESTDIR/state.json")" = 0 ]
}

@test "--version: names the runtime-spec version that spec writes" {
	run "$OCI_RUNTIME" --version
	echo "$output"
	[ "$status" -eq 0 ]
	cd "$SPECDIR" && runtime spec
	version=$(json_field ociVersion "$SPECDIR/config.json")
	grep -E "^spec: $version\$" <<<"$output"
}

@test "cli: an unknown command fails with a message" {
	run runtime nosuchcommand
	[ "$status" -ne 0 ]
	[[ "$output" == *nosuchcommand* ]]
}

@test "cli: an unknown global or command option fails with a message" {
	run "$OCI_RUNTIME" --no-such-option list
	[ "$status" -ne 0 ]
	[[ "$output" == *no-such-option* ]]
	run runtime list --no-such-option
	[ "$status" -ne 0 ]
	[[ "$output" == *no-such-option* ]]
	run runtime create --no-such-option -b "$BUNDLE" "$CID"
	[ "$status" -ne 0 ]
	[ -z "$(state_entries)" ]
}

@test "cli: a missing container id fails with a message" {
	for cmd in create start state kill delete; do
		run runtime $cmd
		echo "$cmd: $status: $output"
		[ "$status" -ne 0 ]
		[ -n "$output" ]
	done
}
