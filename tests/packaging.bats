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
