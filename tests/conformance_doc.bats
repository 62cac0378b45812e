#!/usr/bin/env bats
# docs/spec-conformance.md, the runtime-spec's MUSTs one row each, is checked here: every
# test a row names exists, every row has a status and a proof, and the counts it states
# are the table's.
#
# A row is a table line whose first cell is an id (rt-1, cl-12, ...):
#   | ID | requirement | where in ocisbx | STATUS | PROOF |
# STATUS is one of: tested, deviation, untestable, gap, n/a.
# PROOF, for tested and deviation: only test references, each in backquotes, separated
# by ", ":
#   `tests/FILE.bats: "the exact name of its @test"`
#   `tests/unit/FILE.c: function_name`   (defined there and registered with T (...))
# for the others a reason in words; a test reference in it (in backquotes) is checked too.

load helpers/common

SRCDIR="${OCISBX_SRCDIR:-$BATS_TEST_DIRNAME/..}"
DOC="$SRCDIR/docs/spec-conformance.md"

setup() { TESTDIR="$BATS_TEST_TMPDIR"; }
teardown() { common_teardown; } # a no-op: common_setup does not run here

# The rows of DOC, "ID<TAB>STATUS<TAB>PROOF" each (the counts' test reads them).
doc_rows() {
	awk -F' [|] ' '/^[|] [a-z]+-[0-9]+ [|]/ {
		id = $1; sub(/^[|] /, "", id); proof = $5; sub(/ [|]$/, "", proof)
		print id "\t" $4 "\t" proof
	}' "$1"
}

# known_tests: every test there is, one line each, as a row names it:
# tests/FILE.bats: "NAME" (its line is @test "NAME" {) and tests/unit/FILE.c: FUNCTION
# (defined there, and registered with T (FUNCTION))
known_tests() {
	cd "$SRCDIR" || return 1
	awk '/^@test "/ { s = substr($0, 8); i = index(s, "\" {"); if (i) print FILENAME ": \"" substr(s, 1, i - 1) "\"" }' tests/*.bats
	awk '
		/^[a-z_][a-z0-9_]* \(void\)/ { def[FILENAME SUBSEP $1] = 1 }
		{
			l = $0
			while (match(l, /T \([a-z_][a-z0-9_]*\)/)) {
				reg[FILENAME SUBSEP substr(l, RSTART + 3, RLENGTH - 4)] = 1
				l = substr(l, RSTART + RLENGTH)
			}
		}
		END { for (k in reg) if (k in def) { split(k, p, SUBSEP); print p[1] ": " p[2] } }' tests/unit/*.c
}

# check_doc FILE: prints every problem of FILE's rows and returns 1 if there is one; its
# last line is "N rows".
check_doc() {
	known_tests >"$BATS_TEST_TMPDIR/known" || return 1
	awk -F' [|] ' -v known="$BATS_TEST_TMPDIR/known" '
		BEGIN { while ((getline l < known) > 0) ok[l] = 1 }
		/^[|] [a-z]+-[0-9]+ [|]/ {
			n++
			id = $1; sub(/^[|] /, "", id)
			if (NF != 5 || $5 !~ / [|]$/) { print id ": not five cells"; bad = 1; next }
			if (id in seen) { print id ": listed twice"; bad = 1 }
			seen[id] = 1
			st = $4; proof = $5; sub(/ [|]$/, "", proof)
			if (st == "tested" || st == "deviation") {
				rest = proof; gsub(/`[^`]+`/, "", rest); gsub(/, /, "", rest)
				if (rest != "" || proof !~ /`/) { print id ": " st " needs test references alone, got: " proof; bad = 1 }
			} else if (st == "untestable" || st == "gap" || st == "n/a") {
				if (proof !~ /[a-z][a-z][a-z]/) { print id ": " st " needs a reason, got: " proof; bad = 1 }
			} else {
				print id ": status \"" st "\" is not tested, deviation, untestable, gap or n/a"; bad = 1; next
			}
			p = proof
			while (match(p, /`[^`]+`/)) {
				ref = substr(p, RSTART + 1, RLENGTH - 2); p = substr(p, RSTART + RLENGTH)
				if (st != "tested" && st != "deviation" && ref !~ /^tests\//) continue
				if (ref !~ /^tests\/[a-z0-9_]+\.bats: ".+"$/ && ref !~ /^tests\/unit\/[a-z0-9_]+\.c: [a-z_][a-z0-9_]*$/) {
					print id ": not a test reference: `" ref "`"; bad = 1
				} else if (!(ref in ok)) {
					print id ": no such test: " ref; bad = 1
				}
			}
		}
		END { print n + 0 " rows"; exit bad }' "$1"
}

@test "conformance doc: every row has a status, and every test it names exists" {
	requires_ocisbx "ocisbx's documentation"
	[ -f "$DOC" ]
	run check_doc "$DOC"
	echo "$output"
	[ "$status" -eq 0 ]
	# the table was read: the spec 1.3's Linux documents hold some 300 requirements
	n=$(tail -1 <<<"$output" | awk '{print $1}')
	[ "$n" -ge 250 ]
}

@test "conformance doc: the counts it states are the table's" {
	requires_ocisbx "ocisbx's documentation"
	local line want got s
	line=$(grep -E '^Rows: [0-9]+;' "$DOC")
	echo "stated: $line"
	got="Rows: $(doc_rows "$DOC" | wc -l);"
	for s in tested deviation untestable gap n/a; do
		got+=" $s: $(doc_rows "$DOC" | awk -F'\t' -v s="$s" '$2 == s' | wc -l);"
	done
	echo "table:  ${got%;}."
	[ "$line" = "${got%;}." ]
}

@test "conformance doc: the check fails on a test name that does not exist, a bad status or a stray proof" {
	requires_ocisbx "ocisbx's documentation"
	local ref
	# a bats name and a unit test function of the document, each broken
	ref=$(grep -oE '`tests/[a-z_]+\.bats: "[a-zA-Z0-9 ,:>-]+"`' "$DOC" | head -1 | tr -d '`')
	[ -n "$ref" ]
	sed "s|${ref%\"}|${ref%\"} broken|" "$DOC" >"$TESTDIR/bats.md"
	run check_doc "$TESTDIR/bats.md"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *'no such test: tests/'*' broken"'* ]]

	ref=$(grep -oE '`tests/unit/[a-z_]+\.c: [a-z_0-9]+`' "$DOC" | head -1 | tr -d '`')
	[ -n "$ref" ]
	sed "s|$ref|${ref}_broken|" "$DOC" >"$TESTDIR/unit.md"
	run check_doc "$TESTDIR/unit.md"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *'no such test: tests/unit/'*'_broken'* ]]

	# a status out of the list, and words where a tested row wants references alone
	sed -E '0,/^[|] [a-z]+-[0-9]+ [|](.*)[|] tested [|]/s//| zz-1 |\1| done |/' "$DOC" >"$TESTDIR/status.md"
	run check_doc "$TESTDIR/status.md"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *'zz-1: status "done"'* ]]
	sed -E '0,/^([|] [a-z]+-[0-9]+ [|].*[|] tested [|] .*) [|]$/s//\1 and more |/' "$DOC" >"$TESTDIR/words.md"
	run check_doc "$TESTDIR/words.md"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"needs test references alone"* ]]

	# the document as it is passes (the control)
	run check_doc "$DOC"
	[ "$status" -eq 0 ]
}
