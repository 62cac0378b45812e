#!/usr/bin/env bats
# The project as a user installs it: test dependencies, man pages, bash completion,
# `make install`, the version of a build.

load helpers/common

setup_file() { common_setup_file; }

SRCDIR="${OCISBX_SRCDIR:-$BATS_TEST_DIRNAME/..}"

setup() { TESTDIR="$BATS_TEST_TMPDIR"; }
teardown() { common_teardown; } # a no-op unless the test ran common_setup

# --- the sources -----------------------------------------------------------------

# "NAME FILE" for every function defined at file scope in the C sources of src/ and
# libocispec/: GNU style puts its name at column 0, then " (" (dmz_main.c's __asm__ blocks
# look alike; main is once per program).
defined_functions() {
	(cd "$SRCDIR" && find src libocispec -name '*.c' -exec grep -oHE '^[A-Za-z_][A-Za-z0-9_]* \(' {} +) |
		sed 's/ ($//' | awk -F: '$2 != "main" && $2 !~ /^__/ {print $2, $1}' | sort -u
}

@test "source: no function name is defined in two files" {
	requires_ocisbx "ocisbx's sources"
	local n dup
	n=$(defined_functions | wc -l)
	dup=$(defined_functions | awk '{c[$1]++; f[$1] = f[$1] " " $2} END {for (k in c) if (c[k] > 1) print k ":" f[k]}' | sort)
	echo "$n functions; defined in more than one file (each wants one shared function, or names saying what each does):"
	echo "$dup"
	[ "$n" -ge 500 ] # the scan found the sources
	[ -z "$dup" ]
}

@test "source: no two files of src/ share a name" {
	requires_ocisbx "ocisbx's sources"
	local n dup
	n=$(cd "$SRCDIR" && find src -name '*.[ch]' | wc -l)
	dup=$(cd "$SRCDIR" && find src -name '*.[ch]' | awk -F/ '{c[$NF]++; f[$NF] = f[$NF] " " $0} END {for (k in c) if (c[k] > 1) print k ":" f[k]}' | sort)
	echo "$n files; names found more than once (a name says what the file does, wherever it is):"
	echo "$dup"
	[ "$n" -ge 100 ] # the scan found the sources
	[ -z "$dup" ]
}

@test "source: commit subjects are 'area: what changed', at most 72 characters" {
	requires_ocisbx "ocisbx's history"
	# the first commit that follows CONTRIBUTING.md's rule comes after this one
	local base=4aed8fd bad
	git -C "$SRCDIR" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout (a tarball or archive has no history)"
	git -C "$SRCDIR" cat-file -e "$base^{commit}" 2>/dev/null || skip "a shallow clone: $base is not in it"
	run git -C "$SRCDIR" log --no-merges --format=%s "$base..HEAD"
	[ "$status" -eq 0 ]
	echo "${#lines[@]} subjects"
	bad=$(printf '%s\n' "${lines[@]}" | awk 'length($0) > 72 || $0 !~ /^[a-z0-9][a-z0-9_.,\/ -]*: [^ ]/')
	echo "not 'area: what changed' in at most 72 characters:"
	echo "$bad"
	[ "${#lines[@]}" -ge 1 ]
	[ -z "$bad" ]
}

# --- test dependencies ----------------------------------------------------------

# the Debian packages the tests name: requires_tool CMD PKG / requires_python_module
# MOD PKG in the bats files and helpers, UNIT_SKIP reasons "... (Debian package PKG)"
# in the C unit tests, "(Debian packages PKG, PKG)" in the fuzz runner
named_packages() {
	grep -ohE '(requires_tool|requires_python_module) +[^ ]+ +[a-z0-9][a-z0-9.+-]+' \
		"$SRCDIR"/tests/*.bats "$SRCDIR"/tests/helpers/*.bash | awk '{print $3}'
	grep -ohE 'Debian package [a-z0-9][a-z0-9.+-]+[a-z0-9]' "$SRCDIR"/tests/unit/*.c | awk '{print $3}'
	grep -ohE 'Debian packages [a-z0-9][a-z0-9.+-]+(, [a-z0-9][a-z0-9.+-]+)*' "$SRCDIR"/tests/fuzz/*.sh |
		sed 's/^Debian packages //; s/, /\n/g'
}

@test "deps: contrib/deps.sh --tests installs every package a test names" {
	run "$SRCDIR/contrib/deps.sh" --list --tests
	[ "$status" -eq 0 ]
	local listed=" ${lines[*]} " pkg missing=() n=0
	for pkg in $(named_packages | sort -u); do
		n=$((n + 1))
		[[ "$listed" == *" $pkg "* ]] || missing+=("$pkg")
	done
	echo "$n packages named by tests; not in contrib/deps.sh: ${missing[*]}"
	[ "$n" -ge 10 ] # the scan found the suite's requires_tool calls
	[ ${#missing[@]} -eq 0 ]
}

@test "deps: the fuzz run without clang is a skip naming the packages, a failure after deps.sh --tests" {
	run env -u OCISBX_TESTS_ALL_DEPS FUZZ_CC=/nonexistent/clang "$SRCDIR/tests/fuzz/run.sh" --tap
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "1..0 # SKIP no /nonexistent/clang (Debian packages clang, libclang-rt-dev;"* ]]
	run env FUZZ_CC=/nonexistent/clang OCISBX_TESTS_ALL_DEPS=1 "$SRCDIR/tests/fuzz/run.sh" --tap
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not ok 1 - no /nonexistent/clang (Debian packages clang, libclang-rt-dev;"* ]]
}

# --- the build tree: man pages, make install, version -----------------------------

# requires_builddir: $BUILDDIR, the configured build tree of the ocisbx under test.
requires_builddir() {
	requires_ocisbx "the build tree's products"
	BUILDDIR="${OCISBX_BUILDDIR:-$(dirname "$OCI_RUNTIME")}"
	[ -f "$BUILDDIR/Makefile" ] || skip "no build tree at $BUILDDIR (set OCISBX_BUILDDIR)"
}

# bmake ARGS...: make in the build tree, on its own (not a sub-make of `make check`).
bmake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$BUILDDIR" "$@"; }

# the commands `ocisbx --help` lists
commands() { "$OCI_RUNTIME" --help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }'; }

# options CMD: the options `ocisbx CMD --help` lists (-x and --xyz), one per line
options() {
	"$OCI_RUNTIME" "$1" --help | awk '/^ +-/ { sub(/^ +/, ""); sub(/  .*/, ""); print }' | grep -oE -- '--?[a-zA-Z][-a-zA-Z]*'
}

@test "man: a page per command, with every option its --help lists" {
	requires_builddir
	local cmd opt page n=0 bad=()
	for cmd in $(commands); do
		page="$BUILDDIR/man/ocisbx-$cmd.1"
		[ -f "$page" ] || { bad+=("no $page"); continue; }
		grep -q "^ocisbx\\\\-$cmd \\\\- " "$page" || bad+=("$page: no NAME line")
		for opt in $(options "$cmd"); do
			n=$((n + 1))
			grep -qF -- "\\fB${opt//-/\\-}\\fR" "$page" || bad+=("$page: no $opt")
		done
		grep -qF ".BR ocisbx\\-$cmd (1)" "$SRCDIR/ocisbx.1" || bad+=("ocisbx.1: no ocisbx-$cmd(1) in SEE ALSO")
	done
	echo "$n options checked; ${bad[*]}"
	[ "$n" -ge 40 ]
	[ ${#bad[@]} -eq 0 ]
}

@test "man: the pages render without warnings" {
	requires_builddir
	requires_tool groff groff-base
	local page
	for page in "$SRCDIR/ocisbx.1" "$BUILDDIR"/man/ocisbx-*.1; do
		run groff -man -ww -z "$page"
		[ -z "$output" ] || { echo "$page: $output"; false; }
	done
}

@test "make install: binary, man pages, bash completion and docs" {
	requires_builddir
	local d="$TESTDIR/dest" cmd
	bmake install DESTDIR="$d" prefix=/usr >/dev/null
	[ -x "$d/usr/bin/ocisbx" ]
	"$d/usr/bin/ocisbx" --version
	[ -f "$d/usr/share/man/man1/ocisbx.1" ]
	for cmd in $(commands); do [ -f "$d/usr/share/man/man1/ocisbx-$cmd.1" ]; done
	[ -f "$d/usr/share/bash-completion/completions/ocisbx" ]
	[ -f "$d/usr/share/doc/ocisbx/README.md" ]
	# the systemd cgroup driver's helper, when this build has it (ocisbx --version: +SYSTEMD)
	if "$d/usr/bin/ocisbx" --version | grep -q +SYSTEMD; then
		[ -x "$d/usr/libexec/ocisbx/ocisbx-systemd" ]
	fi
	for f in containers.conf daemon.json containerd-config.toml runtimeclass.yaml; do
		cmp "$SRCDIR/contrib/engines/$f" "$d/usr/share/doc/ocisbx/engines/$f"
	done
	bmake uninstall DESTDIR="$d" prefix=/usr >/dev/null
	[ -z "$(find "$d" -type f)" ]
}

# commit_of DIR: the commit contrib/git-version.sh reads from the tree DIR
commit_of() { sh "$1/contrib/git-version.sh" "$1"; }

@test "--version: names the commit the source tree records" {
	requires_ocisbx "ocisbx's --version"
	local want
	want=$(commit_of "$SRCDIR")
	[ "$want" != unknown ] || skip "$SRCDIR records no commit (not a git checkout, dist tarball or git archive)"
	run "$OCI_RUNTIME" --version
	echo "$output (want commit: $want)"
	[ "${lines[1]}" = "commit: $want" ]
}

@test "git archive: the archived tree records its commit (export-subst)" {
	requires_tool git git
	local top
	top=$(git -C "$SRCDIR" rev-parse --show-toplevel 2>/dev/null) && [ "$top" -ef "$SRCDIR" ] ||
		skip "$SRCDIR is not the top of a git checkout"
	mkdir "$TESTDIR/a"
	git -C "$SRCDIR" archive HEAD contrib/git-version.sh .git-archive-version | tar -C "$TESTDIR/a" -x
	run commit_of "$TESTDIR/a"
	[ "$output" = "$(git -C "$SRCDIR" rev-parse --short HEAD)" ]
}

@test "make dist: the tarball's tree records the commit" {
	requires_builddir
	local want
	want=$(commit_of "$SRCDIR")
	[ "$want" != unknown ] || skip "$SRCDIR records no commit"
	bmake distdir distdir="$TESTDIR/d" >/dev/null
	[ -f "$TESTDIR/d/.tarball-git-version" ]
	run commit_of "$TESTDIR/d"
	[ "$output" = "$want" ]
}

# --- the engine configurations (contrib/engines; podman's: tests/podman.bats) -------

@test "engines: containerd reads containerd-config.toml: ocisbx, the runc v2 shim, BinaryName" {
	requires_tool containerd containerd
	run timeout 60 containerd -c "$SRCDIR/contrib/engines/containerd-config.toml" config dump
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# the ocisbx runtime's table and its options, as containerd understood them
	local rt='[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.ocisbx]'
	local section
	section=$(echo "$output" | awk -v rt="$rt" '$1 == rt { on = 1 } on && /^ *\[/ && index($0, "runtimes.ocisbx") == 0 { exit } on')
	echo "$section"
	[[ "$section" == *'runtime_type = "io.containerd.runc.v2"'* ]]
	[[ "$section" == *'BinaryName = "/usr/bin/ocisbx"'* ]]
	[[ "$section" == *'SystemdCgroup = false'* ]]
	[[ "$output" == *'default_runtime_name = "ocisbx"'* ]]
}

@test "engines: daemon.json is Docker's shape: the ocisbx runtime, the default, cgroupfs, ulimits" {
	requires_suite_tools
	"$PYTHON" - "$SRCDIR/contrib/engines/daemon.json" <<-'EOF'
		import json, sys
		d = json.load(open(sys.argv[1]))
		assert d["runtimes"]["ocisbx"] == {"path": "/usr/bin/ocisbx"}, d["runtimes"]
		assert d["default-runtime"] == "ocisbx"
		assert d["exec-opts"] == ["native.cgroupdriver=cgroupfs"]
		for name, soft, hard in (("nofile", 20000, 20000), ("nproc", 32768, 32768)):
		    assert d["default-ulimits"][name] == {"Name": name, "Soft": soft, "Hard": hard}, name
	EOF
}

# --- bash completion -------------------------------------------------------------

# complete_line WORD...: the completions of the last WORD on the line "ocisbx WORD..."
complete_line() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ocisbx; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$SRCDIR/contrib/completion/ocisbx" "$OCI_RUNTIME" "$@"
}

@test "completion: commands, global options and their values" {
	requires_ocisbx "ocisbx's completion"
	run complete_line ""
	[ "$(echo "$output" | sort)" = "$(commands | sort)" ]
	run complete_line cr
	[ "$output" = create ]
	run complete_line --root /x --log-f
	[ "$output" = --log-format ]
	run complete_line --log-format ""
	[ "$output" = "$(printf 'text\njson')" ]
	run complete_line --rootless true --debug ki
	[ "$output" = kill ]
}

@test "completion: a command's options, and file names for their values" {
	requires_ocisbx "ocisbx's completion"
	run complete_line exec --no-new
	[ "$output" = --no-new-privs ]
	run complete_line --root /x create --b
	[ "$output" = --bundle ]
	mkdir -p "$TESTDIR/bundles/b1"
	run complete_line create --bundle "$TESTDIR/bundles/b"
	[ "$output" = "$TESTDIR/bundles/b1" ]
	run complete_line kill x SIGTE
	[ "$output" = SIGTERM ]
}

@test "completion: container ids from the --root given" {
	requires_ocisbx "ocisbx's completion"
	common_setup
	set_args sleep 100
	create_container "$CID-a"
	create_container "$CID-b"
	run complete_line --root "$ROOT" kill ""
	[ "$(echo "$output" | sort)" = "$(printf '%s\n' "$CID-a" "$CID-b")" ]
	run complete_line --root="$ROOT" exec -t "$CID-a"
	[ "$output" = "$CID-a" ]
	run complete_line --root "$ROOT" exec "$CID-a" ""
	[ -z "$output" ]
	run complete_line kill "$CID"
	[ -z "$output" ] # another root: none of these
	run complete_line --root "$ROOT" create ""
	[ -z "$output" ] # create takes a new id
}
