#!/usr/bin/env bats
# The project as a user installs it: test dependencies, man pages, bash completion,
# `make install`, the version of a build.

load helpers/common

SRCDIR="${OCISBX_SRCDIR:-$BATS_TEST_DIRNAME/..}"

setup() { TESTDIR="$BATS_TEST_TMPDIR"; }
teardown() { :; }

# --- test dependencies ----------------------------------------------------------

# the Debian packages the tests name: requires_tool CMD PKG / requires_python_module
# MOD PKG in the bats files and helpers, UNIT_SKIP reasons "... (Debian package PKG)"
# in the C unit tests
named_packages() {
	grep -ohE '(requires_tool|requires_python_module) +[^ ]+ +[a-z0-9][a-z0-9.+-]+' \
		"$SRCDIR"/tests/*.bats "$SRCDIR"/tests/helpers/*.bash | awk '{print $3}'
	grep -ohE 'Debian package [a-z0-9][a-z0-9.+-]+[a-z0-9]' "$SRCDIR"/tests/unit/*.c | awk '{print $3}'
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

# --- the build tree: man pages, make install, version -----------------------------

# requires_builddir: $BUILDDIR, the configured build tree of the ocisbx under test.
requires_builddir() {
	requires_ocisbx "the build tree's products"
	BUILDDIR="${OCISBX_BUILDDIR:-$(dirname "$OCI_RUNTIME")}"
	[ -f "$BUILDDIR/Makefile" ] || skip "no build tree at $BUILDDIR (set OCISBX_BUILDDIR)"
}

# bmake ARGS...: make in the build tree, on its own (not a sub-make of `make check`).
bmake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$BUILDDIR" "$@"; }

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
	git -C "$SRCDIR" rev-parse --show-toplevel >/dev/null 2>&1 || skip "$SRCDIR is not a git checkout"
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
