#!/usr/bin/env bats
# The systemd cgroup driver (--systemd-cgroup) against a real systemd: the file boots one
# as the process of a container ($OCI_RUNTIME, a cgroup namespace, the cgroup hierarchies
# mounted read-write, the host's /usr read-only, a minimal /etc) and runs the runtime
# under test inside it with --systemd-cgroup: a transient scope in the slice, the limits
# as the unit's properties and in the cgroup files, update, delete stopping the unit.
# Skipped, with the reason, where systemd cannot boot.
#
#   OCI_RUNTIME=/usr/sbin/runc bats tests/systemd.bats          # reference

bats_require_minimum_version 1.5.0

load helpers/common

SYS=ocit-systemd
INNER_ROOT=/run/ocit-root
INNER_BUNDLE=/var/lib/ocit/bundle

setup_file() {
	requires_suite_tools
	requires_tool /usr/lib/systemd/systemd systemd
	requires_tool dbus-daemon dbus
	SD_DIR=$(mktemp -d /tmp/ocisd.XXXXXX)
	SD_CG="/ocisd-${SD_DIR##*.}"
	export SD_DIR SD_CG
	sd_rootfs "$SD_DIR/bundle/rootfs"
	sd_config "$SD_DIR/bundle/config.json"
	# the runtime under test inside: its directory (ocisbx-systemd is beside ocisbx)
	# at /opt/ocit, unless it is in /usr, which the container has anyway
	INNER_RT=$OCI_RUNTIME
	if [[ "$(readlink -f "$OCI_RUNTIME")" != /usr/* ]]; then
		mkdir -p "$SD_DIR/bundle/rootfs/opt/ocit"
		INNER_RT="/opt/ocit/$(basename "$OCI_RUNTIME")"
	fi
	export INNER_RT
	"$OCI_RUNTIME" --root "$SD_DIR/root" run -d -b "$SD_DIR/bundle" "$SYS" </dev/null >"$SD_DIR/boot.log" 2>&1 || {
		cat "$SD_DIR/boot.log" >&2
		return 1
	}
	local state=
	for _ in $(seq 600); do
		state=$(sys_exec systemctl is-system-running 2>/dev/null) || true
		case "$state" in running | degraded) break ;; esac
		sleep 0.1
	done
	case "$state" in
	running | degraded) ;;
	*)
		SD_BOOT_FAILED="systemd did not boot in a container here (is-system-running: '$state'): $(tail -3 "$SD_DIR/boot.log" | tr '\n' ' ')"
		export SD_BOOT_FAILED
		;;
	esac
}

teardown_file() {
	[ -n "${SD_DIR:-}" ] && [ -d "$SD_DIR" ] || return 0
	timeout 30 "$OCI_RUNTIME" --root "$SD_DIR/root" kill "$SYS" KILL >/dev/null 2>&1 || true
	timeout 30 "$OCI_RUNTIME" --root "$SD_DIR/root" delete --force "$SYS" >/dev/null 2>&1 || true
	# systemd's and the inner containers' cgroups below the container's, deepest first
	find /sys/fs/cgroup/ -mindepth 2 -depth -type d -path "*$SD_CG*" 2>/dev/null |
		while read -r d; do rmdir "$d" 2>/dev/null || true; done
	for mp in $(awk -v d="$SD_DIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r); do
		umount -l "$mp" 2>/dev/null || true
	done
	rm -rf --one-file-system "$SD_DIR"
}

setup() {
	[ -z "${SD_BOOT_FAILED:-}" ] || skip "$SD_BOOT_FAILED"
	NAME="c$BATS_TEST_NUMBER"
	UNIT="ocit-$NAME.scope"
}

teardown() {
	[ -z "${SD_BOOT_FAILED:-}" ] || return 0
	sys_exec "$INNER_RT" --root "$INNER_ROOT" --systemd-cgroup delete --force "$NAME" >/dev/null 2>&1 || true
}

# A root for systemd: the host's /usr (bound read-only by sd_config), the merged-/usr
# links, a minimal /etc (no unit of the host enabled), the inner bundle's busybox rootfs.
sd_rootfs() {
	local r=$1 l
	mkdir -p "$r"/{etc,usr,var/lib,var/log,var/tmp,run,tmp,proc,sys,dev,root,opt}
	for l in bin sbin lib lib64; do [ -e "/$l" ] && ln -s "usr/$l" "$r/$l"; done
	cp -a /etc/passwd /etc/group /etc/nsswitch.conf "$r/etc/"
	[ -e /etc/ld.so.cache ] && cp -a /etc/ld.so.cache "$r/etc/"
	ln -s ../usr/lib/os-release "$r/etc/os-release"
	: >"$r/etc/machine-id"
	: >"$r/etc/fstab"
	echo ocit-systemd >"$r/etc/hostname"
	mkdir -p "$r$INNER_BUNDLE"
	setup_rootfs_cache
	cp -a "$ROOTFS_CACHE" "$r$INNER_BUNDLE/rootfs"
}

# systemd's container: every capability, the cgroup namespace and the hierarchies
# read-write (systemd makes its slices and scopes there), /run and /tmp tmpfs,
# container=ocit in the environment; systemd goes to basic.target (its bus and manager).
sd_config() {
	"$PYTHON" - "$1" "$SD_CG/$SYS" "$(readlink -f "$(dirname "$OCI_RUNTIME")")" "$OCI_RUNTIME" <<-'EOF'
		import json, sys
		out, cgpath, rtdir, rt = sys.argv[1:]
		# the capabilities we have (this machine's bounding set lacks some)
		bnd = int([l for l in open("/proc/self/status") if l.startswith("CapBnd:")][0].split()[1], 16)
		order = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
		         "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
		         "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
		         "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
		         "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
		         "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
		         "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
		         "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ"]
		have = [n for i, n in enumerate(order) if bnd >> i & 1]
		mounts = [
		    {"destination": "/proc", "type": "proc", "source": "proc"},
		    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
		    {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
		    {"destination": "/dev/shm", "type": "tmpfs", "source": "shm", "options": ["nosuid", "noexec", "nodev", "mode=1777"]},
		    {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
		    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["nosuid", "noexec", "nodev", "relatime", "rw"]},
		    {"destination": "/usr", "type": "bind", "source": "/usr", "options": ["rbind", "ro"]},
		    {"destination": "/run", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=755"]},
		    {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev"]},
		]
		if not rtdir.startswith("/usr/"):
		    mounts.append({"destination": "/opt/ocit", "type": "bind", "source": rtdir, "options": ["rbind", "ro"]})
		c = {
		    "ociVersion": "1.0.2",
		    "process": {"terminal": False, "user": {"uid": 0, "gid": 0}, "cwd": "/",
		                "args": ["/usr/lib/systemd/systemd", "--unit=basic.target", "--log-target=console"],
		                "env": ["container=ocit", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"],
		                "capabilities": {k: have for k in ("bounding", "effective", "permitted")}},
		    "root": {"path": "rootfs", "readonly": False},
		    "hostname": "ocit-systemd",
		    "mounts": mounts,
		    "linux": {"namespaces": [{"type": t} for t in ("pid", "mount", "ipc", "uts", "cgroup", "network")],
		              "cgroupsPath": cgpath,
		              "resources": {"devices": [{"allow": True, "access": "rwm"}]}},
		}
		json.dump(c, open(out, "w"), indent=1)
	EOF
}

# sys_exec CMD...: CMD in systemd's container.
sys_exec() { timeout -k 5 60 "$OCI_RUNTIME" --root "$SD_DIR/root" exec "$SYS" "$@" </dev/null; }

# inner ARGS...: the runtime under test in systemd's container, --systemd-cgroup.
inner() { sys_exec "$INNER_RT" --root "$INNER_ROOT" --systemd-cgroup "$@"; }

# inner_detached: `run -d` of the inner bundle as $NAME, its stdio not ours (a detached
# container holding our stdout would keep `runc exec` waiting for its end).
inner_detached() {
	sys_exec sh -c "$INNER_RT --root $INNER_ROOT --systemd-cgroup run -d -b $INNER_BUNDLE $NAME </dev/null >/dev/null 2>/run/$NAME.err || { cat /run/$NAME.err >&2; exit 1; }"
}

# inner_config PYTHON-EDITS: the inner bundle's config.json (runc spec's defaults, no
# terminal), edited by python statements over `c`.
inner_config() {
	sys_exec sh -c "cd $INNER_BUNDLE && rm -f config.json && $INNER_RT spec" >/dev/null
	"$PYTHON" - "$SD_DIR/bundle/rootfs$INNER_BUNDLE/config.json" "$1" <<-'EOF'
		import json, sys
		c = json.load(open(sys.argv[1]))
		c["process"]["terminal"] = False
		exec(sys.argv[2])
		json.dump(c, open(sys.argv[1], "w"))
	EOF
}

# unit_prop UNIT PROPERTY: `systemctl show -p PROPERTY --value UNIT`.
unit_prop() { sys_exec systemctl show -p "$2" --value "$1"; }

# in_container_cgroup FILE-IN-HIERARCHY: the content of a file of the systemd container's
# /sys/fs/cgroup (its cgroup namespace).
sd_cat() { sys_exec cat "/sys/fs/cgroup/$1"; }

@test "systemd: --systemd-cgroup starts a transient scope in the slice with the init in it, the limits the unit's" {
	inner_config 'c["process"]["args"] = ["sleep", "1000"]
c["linux"]["cgroupsPath"] = "ocit-test.slice:ocit:'"$NAME"'"
c["linux"]["resources"] = {"memory": {"limit": 67108864}, "pids": {"limit": 50},
  "cpu": {"shares": 512, "quota": 50000, "period": 100000, "cpus": "0"}}'
	inner_detached
	# the unit: active, transient, delegated, in the slice
	[ "$(sys_exec systemctl is-active "$UNIT")" = active ]
	[ "$(unit_prop "$UNIT" Transient)" = yes ]
	[ "$(unit_prop "$UNIT" Delegate)" = yes ]
	[ "$(unit_prop "$UNIT" Slice)" = ocit-test.slice ]
	local cg pid
	cg=$(unit_prop "$UNIT" ControlGroup)
	[ "$cg" = "/ocit.slice/ocit-test.slice/$UNIT" ]
	# the container's init is the scope's
	pid=$(inner state "$NAME" | json_field pid)
	run sys_exec systemctl status --no-pager "$UNIT"
	[[ "$output" == *"$pid"* ]]
	run sys_exec cat "/proc/$pid/cgroup"
	[[ "$output" == *":$cg"* ]]
	# the limits: the unit's properties, and in effect in the cgroup files
	# MemoryMax (runc sets the older MemoryLimit on v1)
	[ "$(unit_prop "$UNIT" MemoryMax)" = 67108864 ] || [ "$(unit_prop "$UNIT" MemoryLimit)" = 67108864 ]
	[ "$(unit_prop "$UNIT" TasksMax)" = 50 ]
	[ "$(unit_prop "$UNIT" CPUQuotaPerSecUSec)" = 500ms ]
	[ "$(unit_prop "$UNIT" CPUQuotaPeriodUSec)" = 100ms ]
	[ "$(unit_prop "$UNIT" AllowedCPUs)" = 0 ]
	if is_v2; then
		[ "$(unit_prop "$UNIT" CPUWeight)" = 20 ] # 512 shares
		[ "$(sd_cat "$cg/memory.max")" = 67108864 ]
		[ "$(sd_cat "$cg/pids.max")" = 50 ]
		[ "$(sd_cat "$cg/cpu.max")" = "50000 100000" ]
	else
		[ "$(unit_prop "$UNIT" CPUShares)" = 512 ]
		[ "$(sd_cat "memory$cg/memory.limit_in_bytes")" = 67108864 ]
		[ "$(sd_cat "pids$cg/pids.max")" = 50 ]
		[ "$(sd_cat "cpu$cg/cpu.cfs_quota_us")" = 50000 ]
		# cpuset is not systemd's on v1: the runtime made and set it
		[ "$(sd_cat "cpuset$cg/cpuset.cpus")" = 0 ]
	fi
	# update: the unit's properties and the files
	inner update --memory 134217728 --pids-limit 60 "$NAME"
	[ "$(unit_prop "$UNIT" MemoryMax)" = 134217728 ] || [ "$(unit_prop "$UNIT" MemoryLimit)" = 134217728 ]
	[ "$(unit_prop "$UNIT" TasksMax)" = 60 ]
	if is_v2; then
		[ "$(sd_cat "$cg/memory.max")" = 134217728 ]
	else
		[ "$(sd_cat "memory$cg/memory.limit_in_bytes")" = 134217728 ]
	fi
	# delete stops the unit; its cgroups go, the runtime's too
	inner delete --force "$NAME"
	run sys_exec systemctl is-active "$UNIT"
	[ "$output" != active ]
	run sys_exec sh -c "ls -d /sys/fs/cgroup/*$cg /sys/fs/cgroup$cg 2>/dev/null"
	[ -z "$output" ]
}

@test "systemd: a foreground run: the scope lives as long as the container" {
	local go="$SD_DIR/bundle/rootfs$INNER_BUNDLE/rootfs/tmp/go"
	rm -f "$go"
	inner_config 'c["process"]["args"] = ["sh", "-c", "while [ ! -e /tmp/go ]; do sleep 0.1; done; exit 3"]
c["linux"]["cgroupsPath"] = "system.slice:ocit:'"$NAME"'"
c["root"]["readonly"] = False'
	inner run -b "$INNER_BUNDLE" "$NAME" >"$SD_DIR/$NAME.out" 2>&1 &
	local r=$!
	wait_for_output active 30 "unit $UNIT" sys_exec systemctl is-active "$UNIT"
	[ "$(unit_prop "$UNIT" ControlGroup)" = "/system.slice/$UNIT" ]
	touch "$go"
	local rc=0
	wait "$r" || rc=$?
	cat "$SD_DIR/$NAME.out"
	[ "$rc" -eq 3 ]
	run sys_exec sh -c "systemctl list-units --all --no-legend '$UNIT'"
	[ -z "$output" ]
}

@test "systemd: a create that fails leaves no unit and no cgroup" {
	inner_config 'c["process"]["args"] = ["/no/such/binary"]
c["linux"]["cgroupsPath"] = "system.slice:ocit:'"$NAME"'"'
	run inner run -b "$INNER_BUNDLE" "$NAME"
	[ "$status" -ne 0 ]
	[[ "$output" == */no/such/binary* ]]
	run sys_exec sh -c "systemctl list-units --all --no-legend '$UNIT'"
	[ -z "$output" ]
	run sys_exec sh -c "ls -d /sys/fs/cgroup/*/system.slice/$UNIT /sys/fs/cgroup/system.slice/$UNIT 2>/dev/null"
	[ -z "$output" ]
}

@test "systemd: pause, resume, ps and kill of a container in a scope" {
	inner_config 'c["process"]["args"] = ["sh", "-c", "sleep 1001 & sleep 1002"]
c["linux"]["cgroupsPath"] = "system.slice:ocit:'"$NAME"'"'
	inner_detached
	[ "$(sys_exec systemctl is-active "$UNIT")" = active ]
	inner pause "$NAME"
	[ "$(inner state "$NAME" | json_field status)" = paused ]
	inner resume "$NAME"
	run inner ps "$NAME"
	[[ "$output" == *"sleep 1001"* ]]
	inner kill --all "$NAME" KILL
	inner delete --force "$NAME"
	run sys_exec systemctl is-active "$UNIT"
	[ "$output" != active ]
}

@test "systemd: a unit systemd refuses: its words reach the caller, nothing is left" {
	inner_config 'c["process"]["args"] = ["true"]
c["linux"]["cgroupsPath"] = "system.slice:ocit:bad~name"'
	run inner run -b "$INNER_BUNDLE" "$NAME"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid unit name"* ]] # systemd's words
	run inner list -q
	[ -z "$output" ]
	run sys_exec sh -c "ls -d /sys/fs/cgroup/*/system.slice/*bad* /sys/fs/cgroup/system.slice/*bad* 2>/dev/null"
	[ -z "$output" ]
}
