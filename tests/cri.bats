#!/usr/bin/env bats
# The Kubernetes path: containerd's CRI plugin (containerd 1.6, the io.containerd.runc.v2
# shim with BinaryName = $OCI_RUNTIME, from contrib/engines/containerd-config.toml) driven
# through the CRI v1 gRPC API as the kubelet drives it (helpers/cri.py, on python3-grpcio).  The daemon is the file's own (see
# helpers/engines.bash); pods use the host network (no CNI here) and the cgroupfs driver;
# the sandbox ("pause") image and the container image are local busybox images.
#
#   OCI_RUNTIME=/usr/sbin/runc bats tests/cri.bats          # reference

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/engines

IMAGE=docker.io/ocit/busybox:latest
PAUSE_IMAGE=docker.io/ocit/pause:latest

setup_file() {
	eng_requires
	requires_tool containerd containerd
	requires_tool ctr containerd
	requires_python_module grpc python3-grpcio
	eng_setup_file ocicri
	mkdir -p "$ENG_DIR/logs"
	# The configuration users paste (contrib/engines/containerd-config.toml: the runtime
	# "ocisbx", the default) with the runtime under test and its state dir; then what a
	# test daemon needs besides.  restrict_oom_score_adj: the sandbox asks for
	# oom_score_adj -998, which needs CAP_SYS_RESOURCE (not in this machine's bounding
	# set); kubelet sets the same option in a user namespace.  No hostname for
	# host-network pods: kubelet leaves it empty for them (it needs a UTS namespace).
	local paste="$BATS_TEST_DIRNAME/../contrib/engines/containerd-config.toml"
	ctrd_start "$(
		awk -v rt="$OCI_RUNTIME" -v root="$ENG_DIR/rtroot" '
			/^version *=/ { next }
			/^ *BinaryName *=/ { print "  BinaryName = \"" rt "\""; print "  Root = \"" root "\""; next }
			{ print }' "$paste"
		cat <<-EOF
			[plugins."io.containerd.grpc.v1.cri"]
			  sandbox_image = "$PAUSE_IMAGE"
			  stream_server_address = "127.0.0.1"
			  stream_server_port = "0"
			  enable_selinux = false
			  disable_apparmor = true
			  restrict_oom_score_adj = true
			  [plugins."io.containerd.grpc.v1.cri".cni]
			    bin_dir = "$ENG_DIR/cni/bin"
			    conf_dir = "$ENG_DIR/cni/conf"
		EOF
	)"
	grep -q "BinaryName = \"$OCI_RUNTIME\"" "$ENG_DIR/ctrd/config.toml"
	# the pause image: a shell that waits until SIGTERM/SIGINT (the sandbox is stopped
	# with SIGKILL anyway)
	eng_build_image_tar "$ENG_DIR/pause.tar" "$PAUSE_IMAGE" --cmd '[]' \
		--entrypoint '["/bin/sh", "-c", "trap \"exit 0\" TERM INT; while :; do sleep 3600 & wait $!; done"]'
	eng_build_image_tar "$ENG_DIR/busybox.tar" "$IMAGE"
	ctr --address "$CTRD_SOCK" -n k8s.io images import "$ENG_DIR/pause.tar" >/dev/null
	ctr --address "$CTRD_SOCK" -n k8s.io images import "$ENG_DIR/busybox.tar" >/dev/null
}

teardown_file() { eng_teardown_file "$(cri_rt_state)"; }

teardown() { common_teardown; }

setup() {
	POD_NAME="pod$BATS_TEST_NUMBER"
}

# The runtime's state dir as the shim passes it (--root ROOT/NAMESPACE).
cri_rt_state() { echo "$ENG_DIR/rtroot/k8s.io"; }

# cri CALL [JSON]: one CRI call; the reply (JSON) on stdout.
cri() { "$PYTHON" "$HELPERS/cri.py" -s "$CTRD_SOCK" -t "$ENG_TIMEOUT" "$@"; }

# jget EXPR: a value of the JSON on stdin, EXPR a python expression over `d`.
jget() { "$PYTHON" -c 'import json, sys; d = json.load(sys.stdin); v = eval(sys.argv[1]); print(v if isinstance(v, str) else json.dumps(v))' "$1"; }

# pod_config: the sandbox config of this test's pod (host network, cgroupfs parent).
pod_config() {
	cat <<-EOF
		{"metadata": {"name": "$POD_NAME", "uid": "uid-$POD_NAME", "namespace": "ocit", "attempt": 0},
		 "log_directory": "$ENG_DIR/logs/$POD_NAME",
		 "linux": {"cgroup_parent": "$ENG_CGPARENT",
		           "security_context": {"namespace_options": {"network": "NODE", "pid": "CONTAINER", "ipc": "POD"}}}}
	EOF
}

# run_pod: RunPodSandbox; sets $POD.
run_pod() {
	local out
	out=$(cri RunPodSandbox "{\"config\": $(pod_config)}") || return 1
	POD=$(jget 'd["pod_sandbox_id"]' <<<"$out")
	[ -n "$POD" ]
}

# create_ctr NAME CONFIG_FIELDS: CreateContainer in $POD; sets $CTR.  CONFIG_FIELDS: more
# fields of the ContainerConfig, JSON without the braces ("command": [...], ...).
create_ctr() {
	local out
	out=$(cri CreateContainer "{\"pod_sandbox_id\": \"$POD\", \"sandbox_config\": $(pod_config),
		\"config\": {\"metadata\": {\"name\": \"$1\"}, \"image\": {\"image\": \"$IMAGE\"},
		             \"log_path\": \"$1.log\", $2}}") || return 1
	CTR=$(jget 'd["container_id"]' <<<"$out")
	[ -n "$CTR" ]
}

# ctr_state ID: the ContainerState number (0 created, 1 running, 2 exited).
ctr_state() { cri ContainerStatus "{\"container_id\": \"$1\"}" | jget 'd["status"].get("state", 0)'; }

# exec_sync ID CMD...: ExecSync; prints the reply.
exec_sync() {
	local id=$1
	shift
	cri ExecSync "{\"container_id\": \"$id\", \"cmd\": $(json_array "$@"), \"timeout\": 30}"
}

# assert_pod_gone: nothing of the pod's containers (ids in $GONE) is left with the runtime,
# in the cgroup tree or in containerd.
assert_pod_gone() {
	local id
	for id in $GONE; do
		[ ! -e "$(cri_rt_state)/$id" ] || { echo "runtime state left: $(cri_rt_state)/$id" >&2; return 1; }
		[ -z "$(find /sys/fs/cgroup/ -maxdepth 6 -type d -name "$id" 2>/dev/null)" ] ||
			{ echo "cgroups left for $id" >&2; return 1; }
	done
	run ! cri PodSandboxStatus "{\"pod_sandbox_id\": \"$POD\"}"
	[[ "$output" == *NOT_FOUND* ]]
}

@test "CRI: Version names containerd; the images are there" {
	run cri Version
	[ "$status" -eq 0 ]
	[ "$(jget 'd["runtime_name"]' <<<"$output")" = containerd ]
	[ "$(jget 'd["runtime_api_version"]' <<<"$output")" = v1 ]
	run cri ImageStatus "{\"image\": {\"image\": \"$PAUSE_IMAGE\"}}"
	[ "$status" -eq 0 ]
	[ "$(jget 'd["image"]["repo_tags"]' <<<"$output")" = "[\"$PAUSE_IMAGE\"]" ]
}

@test "CRI: a container that exits by itself: every call from RunPodSandbox to RemovePodSandbox succeeds" {
	run_pod
	GONE=$POD
	[ -d "$(cri_rt_state)/$POD" ] # the sandbox runs under $OCI_RUNTIME
	create_ctr c1 '"command": ["sh", "-c", "echo started; while [ ! -e /tmp/done ]; do sleep 0.1; done; exit 7"],
		"linux": {"resources": {"memory_limit_in_bytes": 67108864, "cpu_shares": 256}}'
	GONE="$GONE $CTR"
	cri StartContainer "{\"container_id\": \"$CTR\"}"
	[ "$(ctr_state "$CTR")" = 1 ]
	[ -d "$(cri_rt_state)/$CTR" ]

	run exec_sync "$CTR" sh -c 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes; echo to-stderr >&2; exit 3'
	[ "$status" -eq 0 ]
	[ "$(jget 'd.get("exit_code", 0)' <<<"$output")" = 3 ]
	[ "$(jget 'd["stdout"]' <<<"$output")" = 67108864 ]
	[ "$(jget 'd["stderr"]' <<<"$output")" = to-stderr ]

	run cri ContainerStats "{\"container_id\": \"$CTR\"}"
	[ "$status" -eq 0 ]
	[ "$(jget 'd["stats"]["attributes"]["id"]' <<<"$output")" = "$CTR" ]
	[ "$(jget 'd["stats"]["memory"]["working_set_bytes"]["value"] > 0' <<<"$output")" = true ]
	[ "$(jget 'd["stats"]["cpu"]["usage_core_nano_seconds"]["value"] > 0' <<<"$output")" = true ]

	run cri UpdateContainerResources "{\"container_id\": \"$CTR\", \"linux\": {\"memory_limit_in_bytes\": 134217728, \"cpu_shares\": 512}}"
	[ "$status" -eq 0 ]
	run exec_sync "$CTR" cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.shares
	[ "$status" -eq 0 ]
	[ "$(jget 'd["stdout"].split()' <<<"$output")" = '["134217728", "512"]' ]

	# the container ends by itself (exit 7); containerd records it
	exec_sync "$CTR" touch /tmp/done
	wait_for_output 2 "$ENG_TIMEOUT" "container $CTR: state" ctr_state "$CTR"
	run cri ContainerStatus "{\"container_id\": \"$CTR\"}"
	[ "$(jget 'd["status"]["exit_code"]' <<<"$output")" = 7 ]
	grep -q 'stdout F started' "$ENG_DIR/logs/$POD_NAME/c1.log"

	cri StopContainer "{\"container_id\": \"$CTR\", \"timeout\": 10}"
	cri RemoveContainer "{\"container_id\": \"$CTR\"}"
	run ! cri ContainerStatus "{\"container_id\": \"$CTR\"}"
	[[ "$output" == *NOT_FOUND* ]]
	cri StopPodSandbox "{\"pod_sandbox_id\": \"$POD\"}"
	[ "$(cri PodSandboxStatus "{\"pod_sandbox_id\": \"$POD\"}" | jget 'd["status"].get("state", 0)')" = 1 ]
	cri RemovePodSandbox "{\"pod_sandbox_id\": \"$POD\"}"
	assert_pod_gone
}

@test "CRI: a container that is stopped: StopContainer (SIGTERM, then SIGKILL), RemoveContainer, StopPodSandbox, RemovePodSandbox succeed" {
	run_pod
	GONE=$POD
	# c1 ends on SIGTERM; c2 ignores it and is killed when the timeout runs out
	create_ctr c1 '"command": ["sh", "-c", "trap \"exit 0\" TERM; while :; do sleep 0.1; done"]'
	local c1=$CTR
	create_ctr c2 '"command": ["sh", "-c", "trap \"\" TERM; while :; do sleep 0.1; done"]'
	local c2=$CTR
	GONE="$GONE $c1 $c2"
	cri StartContainer "{\"container_id\": \"$c1\"}"
	cri StartContainer "{\"container_id\": \"$c2\"}"
	[ "$(ctr_state "$c1")" = 1 ]
	[ "$(ctr_state "$c2")" = 1 ]
	run exec_sync "$c1" echo in-c1
	[ "$(jget 'd["stdout"]' <<<"$output")" = in-c1 ]

	cri StopContainer "{\"container_id\": \"$c1\", \"timeout\": 30}"
	[ "$(ctr_state "$c1")" = 2 ]
	[ "$(cri ContainerStatus "{\"container_id\": \"$c1\"}" | jget 'd["status"].get("exit_code", 0)')" = 0 ]
	cri StopContainer "{\"container_id\": \"$c2\", \"timeout\": 1}"
	[ "$(ctr_state "$c2")" = 2 ]
	[ "$(cri ContainerStatus "{\"container_id\": \"$c2\"}" | jget 'd["status"]["exit_code"]')" = 137 ]
	# a second stop of a stopped container is no error either
	cri StopContainer "{\"container_id\": \"$c1\", \"timeout\": 1}"
	cri RemoveContainer "{\"container_id\": \"$c1\"}"
	cri RemoveContainer "{\"container_id\": \"$c2\"}"
	cri StopPodSandbox "{\"pod_sandbox_id\": \"$POD\"}"
	cri RemovePodSandbox "{\"pod_sandbox_id\": \"$POD\"}"
	assert_pod_gone
}

@test "CRI: StopPodSandbox stops a pod's running container; RemovePodSandbox removes it" {
	run_pod
	create_ctr c1 '"command": ["sleep", "1000"]'
	GONE="$POD $CTR"
	cri StartContainer "{\"container_id\": \"$CTR\"}"
	[ "$(ctr_state "$CTR")" = 1 ]
	cri StopPodSandbox "{\"pod_sandbox_id\": \"$POD\"}"
	[ "$(ctr_state "$CTR")" = 2 ]
	cri RemovePodSandbox "{\"pod_sandbox_id\": \"$POD\"}"
	run ! cri ContainerStatus "{\"container_id\": \"$CTR\"}"
	assert_pod_gone
}

@test "CRI: containerd stops and leaves nothing (mounts, cgroups, runtime state, shims)" {
	eng_daemon_stop
	eng_assert_clean "$(cri_rt_state)"
}
