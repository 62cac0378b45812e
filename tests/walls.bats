#!/usr/bin/env bats
# ARCHITECTURE.md's walls, checked on the sources: each test fails when code that breaks
# its wall is added (each was seen failing with the wall broken once).

load helpers/common

setup_file() { common_setup_file; }

SRCDIR="${OCISBX_SRCDIR:-$BATS_TEST_DIRNAME/..}"

setup() { TESTDIR="$BATS_TEST_TMPDIR"; }
teardown() { common_teardown; } # a no-op unless the test ran common_setup

# "FILE:FUNCTION" for each line of the C files under DIRS whose code (comments taken
# out) matches the extended regular expression RE; FUNCTION is the one the line is in
# (GNU style: its name at column 0, then " (").  CALLS_IN_LINES=1 prints the lines too.
calls_in() {
	local re=$1
	shift
	(cd "$SRCDIR" && find "$@" -name '*.c' | sort | xargs awk -v re="$re" -v show="${CALLS_IN_LINES:-}" '
		FNR == 1 { fn = ""; incom = 0 }
		/^[A-Za-z_][A-Za-z0-9_]* \(/ { fn = $1 }
		{
			line = $0; code = ""
			while (line != "") {
				if (incom) {
					i = index(line, "*/")
					if (i == 0) line = ""
					else { line = substr(line, i + 2); incom = 0 }
				} else {
					i = index(line, "/*")
					if (i == 0) { code = code line; line = "" }
					else { code = code substr(line, 1, i - 1); line = substr(line, i + 2); incom = 1 }
				}
			}
			if (code ~ re) print FILENAME ":" fn (show ? ": " code : "")
		}') | sort -u
}

# The lines of LIST (one a line) that match none of the shell patterns given.
not_allowed() {
	local list=$1 line p ok
	shift
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		ok=
		for p in "$@"; do
			# shellcheck disable=SC2053 # a pattern on purpose
			[[ $line == $p ]] && ok=1 && break
		done
		[ -n "$ok" ] || echo "$line"
	done <<<"$list"
}

@test "wall: core writes no JSON with printf or yajl_gen (libocispec's generator)" {
	requires_ocisbx "ocisbx's sources"
	local printed gen
	# a string literal holding a JSON key: \"name\":
	printed=$(cd "$SRCDIR" && grep -rnE '\\"[A-Za-z_]+\\":' src/core --include='*.c' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*)' || true)
	gen=$(cd "$SRCDIR" && grep -rn 'yajl_gen' src/core src/cmd || true)
	echo "JSON keys in string literals of src/core (generate it from a field table: ocispec_generate):"
	echo "$printed"
	echo "yajl_gen in src/:"
	echo "$gen"
	[ -n "$(calls_in 'ocispec_generate' src/core)" ] # the scan found the sources
	[ -z "$printed" ]
	[ -z "$gen" ]
}

@test "wall: the container's child reads no directory or file with opendir or stdio" {
	requires_ocisbx "ocisbx's sources"
	local found bad
	# Only the parent's files may: the cgroup manager, the seccomp cache, list, ps, the
	# subordinate id files; utils.c only in opendir_at (which the child never calls).
	found=$(calls_in '(^|[^A-Za-z0-9_>.])(opendir|fdopendir|opendir_at|readdir|fopen|fdopen|getline|fgets|fscanf)[ ]*[(]' src/core)
	bad=$(not_allowed "$found" 'src/core/utils.c:opendir_at' 'src/core/cgroups/*' 'src/core/seccomp/seccomp_cache.c:*' \
		'src/core/container/container_ops.c:*' 'src/core/container/container_ps.c:*' 'src/core/ns/rootless_user.c:*')
	echo "readers: $found"
	echo "not in a file of the parent alone (the child reads with dir_each and lines_each, utils.h):"
	echo "$bad"
	[ -n "$found" ]
	[ -z "$bad" ]
}

@test "wall: every write to /proc or /sys goes through open_proc_file" {
	requires_ocisbx "ocisbx's sources"
	local found bad
	# Every open for writing of src/: open_proc_file's own, or one of these, none of which
	# can be under /proc or /sys (a new one is open_proc_file, or added here once
	# reviewed).  open_proc_file's open is open_write_on_fs, which resctrl's files
	# (/sys/fs/resctrl: a resctrl file system, not sysfs) go through too.
	found=$(calls_in 'O_WRONLY|O_RDWR|O_APPEND|O_TRUNC|fopen[ ]*[(][^,]*, *"[wa]' src/core src/cmd)
	bad=$(not_allowed "$found" 'src/core/utils.c:open_write_on_fs' \
		'src/core/utils.c:write_file_atomic_at' 'src/core/log.c:log_init' 'src/cmd/spec.c:*' \
		'src/core/rootfs/device_nodes.c:*' 'src/core/rootfs/mounts_copyup.c:*' 'src/core/rootfs/pathres.c:*' \
		'src/core/process/terminal.c:*' 'src/core/container/container_init.c:*' \
		'src/core/container/container_ps.c:*')
	echo "opens for writing: $found"
	echo "not open_proc_file, nor one of the known ones:"
	echo "$bad"
	[ -n "$found" ]
	[ -z "$bad" ]
}

@test "wall: cgroup files are written only through cg_fs (cgroups/fs_ops.h)" {
	requires_ocisbx "ocisbx's sources"
	local found bad
	# In cgroups/, files are made, removed, opened for writing and written through the
	# manager's `fs` (m->fs->...), but in the seam's own files; reads are direct.
	found=$(calls_in '(^|[^A-Za-z0-9_>.])(open_proc_file|write_proc_file|fstatfs|mkdir|mkdirat|rmdir|unlink|unlinkat|write|write_all|pwrite)[ ]*[(]|O_WRONLY|O_RDWR|O_CREAT' src/core/cgroups)
	bad=$(not_allowed "$found" 'src/core/cgroups/fs_ops.c:*' 'src/core/cgroups/ebpf_devices.c:*' \
		'src/core/cgroups/systemd.c:props_file') # a memfd of ocisbx-systemd's input
	echo "direct writes in cgroups/: $found"
	echo "not behind the seam:"
	echo "$bad"
	[ -n "$(calls_in 'm->fs->' src/core/cgroups)" ] # the scan found the sources
	[ -z "$bad" ]
}

@test "wall: libocispec includes nothing from src/, cgroups/ nothing from container/" {
	requires_ocisbx "ocisbx's sources"
	local lib cg
	lib=$(cd "$SRCDIR" && grep -nE '#[[:space:]]*include[[:space:]]*"(core|cmd|dmz|systemd)/' libocispec/*.[ch] || true)
	cg=$(cd "$SRCDIR" && grep -nE '#[[:space:]]*include[[:space:]]*"core/container/' src/core/cgroups/*.[ch] || true)
	echo "libocispec including src/: $lib"
	echo "cgroups/ including container/: $cg"
	[ -f "$SRCDIR/libocispec/ocispec.h" ] && [ -f "$SRCDIR/src/core/cgroups/cgroups.h" ]
	[ -z "$lib" ]
	[ -z "$cg" ]
}

@test "wall: src/cmd/ mounts, clones, spawns, polls and writes cgroup files never itself" {
	requires_ocisbx "ocisbx's sources"
	local found
	# the lines themselves, less cgroup_detect_layout (it only reads which hierarchies
	# the host has: spec's default namespaces)
	found=$(CALLS_IN_LINES=1 calls_in '(^|[^A-Za-z0-9_>.])(mount|umount2?|move_mount|open_tree|fsopen|clone3?|ns_clone|unshare|setns|fork|vfork|posix_spawnp?|execvp?e?|execveat|poll|ppoll|epoll_wait|select|run_program|write_proc_file|open_proc_file|cgroup_[a-z_]+|cg_[a-z_]+)[ ]*[(]' src/cmd |
		grep -vE ': +if \(cgroup_detect_layout \(CGROUP_FS_ROOT\) == CGROUP_LAYOUT_V2\)$' || true)
	echo "in src/cmd/ (hand it to src/core):"
	echo "$found"
	[ -n "$(calls_in 'container_' src/cmd)" ] # the scan found the sources
	[ -z "$found" ]
}

@test "wall: the container's child reads its plan through a const pointer and never names the parent's context" {
	requires_ocisbx "ocisbx's sources"
	local entries parents writable shared
	# the two children's entries, declared with a const plan
	entries=$(cd "$SRCDIR/src/core" && {
		grep -c '_Noreturn void container_init (const init_plan \*' container/container_internal.h
		grep -c '_Noreturn void exec_child (const exec_plan \*' container/exec_internal.h
	} | tr '\n' ' ')
	# the parent's contexts in the children's files (comments taken out)
	parents=$(calls_in '(create_ctx|exec_ctx)' src/core/container/container_init.c src/core/container/exec_child.c)
	# a plan of theirs reached through a pointer that is not const
	writable=$(CALLS_IN_LINES=1 calls_in '(init_plan|exec_plan|child_plan|process_plan) \*' \
		src/core/container/container_init.c src/core/container/exec_child.c |
		sed -E 's/const (init_plan|exec_plan|child_plan|process_plan) \*//g' |
		grep -E '(init_plan|exec_plan|child_plan|process_plan) \*' || true)
	# the child steps they share take the plans const
	shared=$(cd "$SRCDIR/src/core" && {
		grep -c 'int spawn_child_enter (const child_plan \*' container/spawn.h
		grep -c 'int spawn_child_pty (const child_plan \*' container/spawn.h
		grep -c 'int process_setup (const process_plan \*' process/process.h
		grep -c 'int process_apply (const process_plan \*' process/process.h
		grep -c 'int process_finish_and_exec (const process_plan \*' process/process.h
		grep -c 'int cgroup_join_self (const cgroup_join \*' cgroups/join.h
	} | tr '\n' ' ')
	echo "entries declared const (want 1 1): $entries"
	echo "the parent's context named in the child: $parents"
	echo "a plan through a pointer that is not const: $writable"
	echo "shared steps taking it const (want 1 1 1 1 1 1): $shared"
	[ -n "$(calls_in 'spawn_child_enter' src/core/container/container_init.c)" ] # the scan found the sources
	[ "$entries" = "1 1 " ]
	[ -z "$parents" ]
	[ -z "$writable" ]
	[ "$shared" = "1 1 1 1 1 1 " ]
}
