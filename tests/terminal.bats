#!/usr/bin/env bats
# process.terminal: the pty handed over --console-socket, and the pty that a
# foreground `run` relays itself.

load helpers/common
load helpers/screen

setup_file() { common_setup_file; }
teardown() {
	tmux_stop
	common_teardown
}

setup() {
	common_setup
	config_set process.terminal true
	SOCK="$TESTDIR/console.sock"
}


# tty_output: what the receiver got, without the pty's \r.
tty_output() { tr -d '\r' <"$TESTDIR/tty.out"; }

# in_script SHELL-COMMAND [INPUT]: runs it under script(1), on a pty of its own,
# typing INPUT; the input stays open (at EOF script would type ^D).  Prints the
# output sans \r, returns the command's exit code.
in_script() {
	local rc=0
	rm -f "$TESTDIR/stdin"
	mkfifo "$TESTDIR/stdin"
	exec 8<>"$TESTDIR/stdin"
	printf '%s' "${2:-}" >&8
	timeout 20 script -qec "$1" /dev/null <"$TESTDIR/stdin" >"$TESTDIR/script.out" 3>&- 8>&- || rc=$?
	exec 8>&-
	tr -d '\r' <"$TESTDIR/script.out"
	return "$rc"
}

# settle_size: shell code that waits until the pty has a size.  runc 1.1 sizes the
# pty it relays only after the process started; ocisbx must size it before.
settle_size() {
	# (busybox stty size exits 0 on a 0x0 pty, printing only an error)
	is_ocisbx || echo 'for i in $(seq 30); do [ -n "$(stty size 2>/dev/null)" ] && break; sleep 0.1; done;'
}

# runtime_cmd ARG...: the runtime command line, quoted for a shell.
runtime_cmd() { printf '%q ' "$OCI_RUNTIME" --root "$ROOT" "$@"; }

@test "terminal: output arrives over the pty sent to --console-socket" {
	set_args sh -c 'tty; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-ttys; echo to-stderr >&2'
	start_recvtty
	run create_container "$CID" --console-socket "$SOCK"
	[ "$status" -eq 0 ]
	runtime start "$CID"
	wait_recvtty
	run tty_output
	echo "$output"
	[[ "${lines[0]}" == /dev/pts/* ]]
	[ "${lines[1]}" = all-ttys ]
	[ "${lines[2]}" = to-stderr ]
	# nothing went to the runtime's own stdio
	[ ! -s "$IO/$CID.out" ]
}

@test "terminal: input written to the pty master reaches the process" {
	set_args sh -c 'read line; echo "got:$line"'
	start_recvtty --send $'hello-input\n'
	create_container "$CID" --console-socket "$SOCK"
	runtime start "$CID"
	wait_recvtty
	run tty_output
	echo "$output"
	grep -qx 'got:hello-input' <<<"$output"
}

@test "terminal: consoleSize is honoured" {
	config_set process.consoleSize '{"height":30,"width":100}'
	set_args stty size
	start_recvtty --winsize "$TESTDIR/winsize"
	create_container "$CID" --console-socket "$SOCK"
	runtime start "$CID"
	wait_recvtty
	run tty_output
	[ "$output" = "30 100" ]
	[ "$(cat "$TESTDIR/winsize")" = "30 100" ]
}

@test "terminal: /dev/console is the pty" {
	set_args sh -c 'stat -c "%t:%T" /dev/console "$(tty)"'
	start_recvtty
	create_container "$CID" --console-socket "$SOCK"
	runtime start "$CID"
	wait_recvtty
	run tty_output
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "${lines[1]}" ]
	[[ "${lines[0]}" == 88:* ]] # a unix98 pty slave (major 136)
}

@test "terminal: create without --console-socket fails" {
	set_args true
	snapshot_host
	run create_container "$CID"
	[ "$status" -ne 0 ]
	assert_nothing_left
}

@test "terminal: --console-socket without terminal fails" {
	config_set process.terminal false
	set_args true
	start_recvtty
	snapshot_host
	run create_container "$CID" --console-socket "$SOCK"
	[ "$status" -ne 0 ]
	assert_nothing_left
}

@test "terminal: run without --console-socket relays a pty of the caller's size" {
	set_args sh -c "$(settle_size) tty; stty size; echo done"
	run in_script "stty rows 33 cols 111; $(runtime_cmd run -b "$BUNDLE" "$CID")"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == /dev/pts/* ]]
	[ "${lines[1]}" = "33 111" ]
	[ "${lines[2]}" = done ]
}

@test "terminal: run relays a window size change" {
	bind_shared /mnt
	set_args sh -c "$(settle_size)"'stty size; echo x >/mnt/sized
		for i in $(seq 50); do [ "$(stty size)" != "33 111" ] && break; sleep 0.1; done; stty size'
	# resize the terminal once the container saw its first size: the runtime gets
	# SIGWINCH and must pass the new size on
	resize="for i in \$(seq 50); do [ -e $SHARED/sized ] && break; sleep 0.1; done
		stty rows 44 cols 122 </dev/tty"
	run in_script "stty rows 33 cols 111; ($resize) & $(runtime_cmd run -b "$BUNDLE" "$CID"); wait"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "33 111" ]
	[ "${lines[1]}" = "44 122" ]
}

@test "terminal: run relays input and returns the exit code" {
	set_args sh -c 'read line; echo "got:$line"; exit 7'
	run in_script "$(runtime_cmd run -b "$BUNDLE" "$CID")" $'hello-input\n'
	echo "$output"
	[ "$status" -eq 7 ]
	grep -qx 'got:hello-input' <<<"$output"
}

@test "terminal: run sizes the pty before the process starts: 50 runs under script(1), none sees a wrong size" {
	requires_ocisbx "runc 1.1 sizes the pty it relays after the process started"
	set_args stty size
	rt=$(runtime_cmd run -b "$BUNDLE")
	run in_script "stty rows 33 cols 77; for i in \$(seq 50); do $rt $CID-\$i; done"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -cx '33 77' <<<"$output")" -eq 50 ]
	[ "${#lines[@]}" -eq 50 ]
}

# script's end of input: once its stdin is at its end (here at once), script types the
# terminal's EOF character (^D).  Arriving while run's terminal is still in canonical
# mode it becomes an end-of-file mark, which raw mode turned into a NUL byte for the
# container (echoed as ^@).
@test "terminal: script's end of input reaches the program as an end of file, never as a NUL byte" {
	requires_ocisbx "runc 1.1 passes script's ^D on as a NUL byte (shown as ^@), and the program waits"
	set_args sh -c 'cat; echo "[end]"'
	for i in $(seq 10); do
		timeout -k 5 30 script -qec "$(runtime_cmd run -b "$BUNDLE" "$CID-$i")" /dev/null </dev/null >"$TESTDIR/out" || {
			echo "run $i: exit $?: $(od -c "$TESTDIR/out")"
			return 1
		}
		if od -An -tx1 "$TESTDIR/out" | grep -qw 00 || [ "$(tr -d '\r' <"$TESTDIR/out")" != "[end]" ]; then
			od -c "$TESTDIR/out"
			return 1
		fi
	done
}

@test "terminal: run with a terminal and stdin a pipe: the program reads the pipe's end of file" {
	requires_ocisbx "runc 1.1 leaves the program waiting for input"
	set_args sh -c 'cat >/dev/null; echo "[end]"'
	run runtime run -b "$BUNDLE" "$CID" < <(printf 'line1\npartial')
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"[end]"* ]]
	# a whole last line, and nothing at all
	run runtime run -b "$BUNDLE" "$CID-2" < <(printf 'line1\n')
	[ "$status" -eq 0 ]
	[[ "$output" == *"[end]"* ]]
	run runtime run -b "$BUNDLE" "$CID-3" </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *"[end]"* ]]
}

@test "terminal: the pty sent to --console-socket keeps the kernel's modes: a line ends in \\r\\n, as runc's" {
	set_args sh -c 'stty -a 2>/dev/null | tr " ;" "\n\n" | grep -x -- "-\?onlcr"; printf "line1\nline2\n"'
	start_recvtty
	create_container "$CID" --console-socket "$SOCK"
	runtime start "$CID"
	wait_recvtty
	od -c "$TESTDIR/tty.out"
	# what an engine logs (conmon, containerd's shim): the pty's bytes, \r\n as ever
	"$PYTHON" -c 'import sys; d = open(sys.argv[1], "rb").read(); assert d == b"onlcr\r\nline1\r\nline2\r\n", d' "$TESTDIR/tty.out"
}

@test "terminal: the pty run relays has the modes of one sent to a console socket (onlcr)" {
	requires_ocisbx "runc 1.1 clears ONLCR of the pty it relays and leaves output processing on in the caller's terminal"
	set_args sh -c 'stty -a 2>/dev/null | tr " ;" "\n\n" | grep -x -- "-\?onlcr"'
	run in_script "$(runtime_cmd run -b "$BUNDLE" "$CID")"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = onlcr ]
	# the caller's terminal passes the pty's bytes on unchanged (raw, output too)
	"$PYTHON" -c 'import sys; d = open(sys.argv[1], "rb").read(); assert d == b"onlcr\r\n", d' "$TESTDIR/script.out"
}

# run_pty_owner: `run` of a process of uid and gid 1000 that prints its pty's owner.
run_pty_owner() {
	config_set process.user '{"uid":1000,"gid":1000}'
	set_args sh -c 'stat -c %u:%g $(tty)'
	run in_script "$(runtime_cmd run -b "$BUNDLE" "$CID")"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "terminal: the pty belongs to the process's user (run and exec -t)" {
	run_pty_owner
	# devpts' gid=5 names the group (the kernel's choice, kept, as runc keeps it)
	[ "${lines[0]}" = 1000:5 ]

	config_set process.terminal false
	set_args sleep 100
	create_container "$CID-x"
	runtime start "$CID-x"
	run in_script "$(runtime_cmd exec -t -u 1000:1000 "$CID-x" sh -c 'stat -c %u:%g $(tty)')"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000:5 ]
}

@test "terminal: without a gid from devpts the pty's group is the process's, as if it had opened it" {
	requires_ocisbx "runc leaves the creator's group (0)"
	config_set 'mounts[destination=/dev/pts].options' '["nosuid","noexec","newinstance","ptmxmode=0666","mode=0620"]'
	run_pty_owner
	[ "${lines[0]}" = 1000:1000 ]
}

# ---- a person at a terminal: tmux, and what its screen shows (helpers/screen.bash) ----

SCREEN_AS=()
SCREEN_ENV=()
screen_container() {
	config_set process.terminal false
	set_args sleep 1000
	create_container "$1"
	runtime start "$1"
}

@test "terminal screen: run: lines begin at column 0, UTF-8 both ways, vi, top and less draw right" { screen_display run; }
@test "terminal screen: exec -t: lines begin at column 0, UTF-8 both ways, vi, top and less draw right" { screen_display exec; }
@test "terminal screen: run: the window's size from the first instruction, after a resize and a burst of them" { screen_size run; }
@test "terminal screen: exec -t: the window's size from the first instruction, after a resize and a burst of them" { screen_size exec; }
@test "terminal screen: run: ^C ^\\ ^Z reach the container's program, typing ahead is kept, the exit code comes back" { screen_keys run; }
@test "terminal screen: exec -t: ^C ^\\ ^Z reach the container's program, typing ahead is kept, the exit code comes back" { screen_keys exec; }
@test "terminal screen: run: the terminal restored exactly: exit, process killed, runtime SIGTERM/SIGHUP, failed start" { screen_restore run; }
@test "terminal screen: exec -t: the terminal restored exactly: exit, process killed, runtime SIGTERM/SIGHUP, failed start" { screen_restore exec; }
@test "terminal screen: run: 10 MB of output reach the terminal complete and in order" { screen_bulk run; }
@test "terminal screen: exec -t: 10 MB of output reach the terminal complete and in order" { screen_bulk exec; }
@test "terminal screen: run: stdin a pipe or a file, with a terminal and without: the data and its end" { screen_stdin run; }
@test "terminal screen: exec: stdin a pipe or a file, with -t and without: the data and its end" { screen_stdin exec; }
