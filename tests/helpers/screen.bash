# shellcheck shell=bash
# A person at a terminal, as root (tests/terminal.bats) and rootless (tests/rootless.bats):
# `run` and `exec -t` in a tmux window (helpers/tmux.bash), judged by what the screen
# shows.  Each scenario takes MODE: run (the process comes from config.json, terminal
# true) or exec (`exec -t` into a running container).
#
# The .bats file provides:
#   SCREEN_AS       array: a command prefix that makes the tester (empty: root)
#   SCREEN_ENV      array: NAME=VALUE for the tester's shell
#   screen_container ID   ID created and started, detached, running `sleep 1000`
#                         without a terminal (for exec)
#
# The tester's shell (sh, prompt "host$ ", in $BUNDLE) has `rt`: the runtime with
# --root $ROOT.  A line the shell runs ends with `echo "rc=$?"`.

load helpers/tmux

# screen_shell: the tester's shell in tmux, the screen cleared.
screen_shell() {
	# every signal's default action, as a terminal emulator gives it (bats' background
	# jobs leave SIGQUIT ignored, a disposition the container's process would inherit)
	tmux_start "${SCREEN_AS[@]}" env --default-signal -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
		HOME=/ TERM=screen LANG=C.UTF-8 "${SCREEN_ENV[@]}" RT="$OCI_RUNTIME" ROOT="$ROOT" \
		PS1='host$ ' sh -c 'cd "$1" && exec sh' sh "$BUNDLE"
	tmux_wait_screen '^host\$'
	tmux_line 'rt() { "$RT" --root "$ROOT" "$@"; }; clear'
	tmux_wait_screen '^host\$$'
}

# screen_cmd MODE ID ARG...: the command line that starts ARG... in a pty: for run, ARG
# becomes config.json's process (terminal true) and ID the container; for exec, ARG runs
# in the container ID.
screen_cmd() {
	local mode=$1 id=$2
	shift 2
	if [ "$mode" = run ]; then
		config_set process.terminal true
		config_set process.args "$(json_array "$@")"
		echo "rt run $id"
	else
		echo "rt exec -t $id $(printf '%q ' "$@")"
	fi
}

# screen_up MODE: the container exec needs (ID $CID); nothing for run.
screen_up() {
	[ "$1" = exec ] || return 0
	screen_container "$CID"
}

# screen_id MODE N: the container of the Nth command: a fresh one for run, $CID for exec.
screen_id() { if [ "$1" = run ]; then echo "$CID-$2"; else echo "$CID"; fi; }

# screen_rows_are TEXT...: consecutive rows of the screen are exactly the TEXTs (the
# first match of the first one), each beginning at column 0.
screen_rows_are() {
	local screen first
	screen=$(tmux_screen)
	first=$(grep -nxF -- "$1" <<<"$screen" | head -1 | cut -d: -f1)
	if [ -z "$first" ] || [ "$(sed -n "$first,$((first + $# - 1))p" <<<"$screen")" != "$(printf '%s\n' "$@")" ]; then
		echo "expected the rows: $*; the screen:" >&2
		sed -e 's/^/|/' <<<"$screen" >&2
		return 1
	fi
}

# screen_row_is N TEXT / screen_row_matches N ERE: row N of the screen.
screen_row_is() {
	[ "$(tmux_row "$1")" = "$2" ] || { echo "row $1: '$(tmux_row "$1")', expected '$2'" >&2; tmux_screen >&2; return 1; }
}
screen_row_matches() {
	tmux_row "$1" | grep -qE -- "$2" || { echo "row $1: '$(tmux_row "$1")', expected /$2/" >&2; tmux_screen >&2; return 1; }
}

# screen_runtime_pid: the runtime the tester's shell runs now.
screen_runtime_pid() {
	local pid
	for _ in $(seq 100); do
		pid=$(pgrep -P "$(tmux_pane_pid)" | head -1)
		[ -n "$pid" ] && { echo "$pid"; return 0; }
		sleep 0.1
	done
	return 1
}

# screen_in_foreground NAME: the process NAME below the runtime runs (not stopped) in its
# terminal's foreground process group, so that a key typed now signals it.  busybox sh's
# `fg` prints the job's command before it hands the job the terminal (TIOCSPGRP) and
# continues it: a ^C typed when the command shows may still reach the shell instead.
screen_in_foreground() {
	local pid st
	pid=$(descendant_pid "$(screen_runtime_pid)" "$1") || return 1
	st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || return 1
	# shellcheck disable=SC2086 # the fields, split: state ppid pgrp session tty_nr tpgid
	set -- $st
	[ "$1" != T ] && [ "$3" = "$6" ]
}

# ---- scenarios ----

# Lines start at column 0, UTF-8 both ways, vi, top and less draw their screens.
screen_display() {
	local mode=$1
	screen_up "$mode"
	screen_shell
	tmux_line "$(screen_cmd "$mode" "$(screen_id "$mode" 1)" sh); echo \"rc=\$?\""
	tmux_wait_screen '^/ #'
	tmux_line "printf 'l1\\nl2\\nl3\\n'"
	tmux_wait_screen 'l3$'
	screen_rows_are l1 l2 l3
	# UTF-8 out (é € 日), and in: typed, read, echoed
	tmux_line "printf 'u8:\\303\\251\\342\\202\\254\\346\\227\\245\\n'"
	tmux_wait_screen '^u8:'
	screen_rows_are 'u8:é€日'
	tmux_line 'read x; echo "in:$x:"'
	tmux_line 'é€日'
	tmux_wait_screen '^in:'
	screen_rows_are 'in:é€日:'
	# vi: its text, a tilde on each row below, its status line at the bottom
	tmux_line 'clear; vi'
	tmux_wait_screen '^~$'
	tmux_type i
	tmux_type 'hello vi'
	tmux_keys Escape
	tmux_wait_screen '^hello vi$'
	screen_row_is 1 'hello vi'
	for r in $(seq 2 29); do screen_row_is "$r" '~'; done
	screen_row_matches 30 'No file'
	tmux_type ':q!'
	tmux_keys Enter
	tmux_wait_screen '^/ #$'
	tmux_line_until '^vi-done$' 'clear; echo vi-done'
	# top: its four header rows in place
	tmux_line 'clear; top'
	tmux_wait_screen '^ +PID +PPID'
	screen_row_matches 1 '^Mem: '
	screen_row_matches 2 '^CPU: '
	screen_row_matches 3 '^Load average: '
	screen_row_matches 4 '^ +PID +PPID USER'
	screen_row_matches 5 '^ +[0-9]+ +[0-9]+ '
	tmux_type q
	tmux_wait_screen '^/ #$'
	tmux_line_until '^top-done$' 'clear; echo top-done'
	# less: a screenful of lines, its prompt at the bottom
	tmux_line 'clear; seq 100 | less'
	tmux_wait_screen '^29$'
	screen_rows_are $(seq 1 29)
	screen_row_matches 30 '^[^0-9]'
	tmux_type q
	tmux_wait_screen '^/ #$'
	tmux_line_until '^less-done$' 'clear; echo less-done'
	tmux_line 'exit 0'
	tmux_wait_screen '^rc=0$'
}

# The window size from the first instruction on, after a resize and after a burst.
screen_size() {
	local mode=$1
	screen_up "$mode"
	screen_shell
	tmux_line "$(screen_cmd "$mode" "$(screen_id "$mode" 1)" sh -c 'echo "first:$(stty size)"; exec sh'); echo \"rc=\$?\""
	tmux_wait_screen '^first:'
	screen_rows_are 'first:30 100'
	tmux_wait_screen '^/ #'
	tmux_resize 120 40
	tmux_line 'until [ "$(stty size)" = "40 120" ]; do sleep 0.1; done; echo resized-one'
	tmux_wait_screen '^resized-one$'
	for s in "90 25" "110 35" "80 24" "130 33" "100 20" "132 43"; do
		tmux_resize $s
	done
	tmux_line 'until [ "$(stty size)" = "43 132" ]; do sleep 0.1; done; echo "resized-burst:$(stty size)"'
	tmux_wait_screen '^resized-burst:'
	screen_rows_are 'resized-burst:43 132'
	tmux_line 'exit 0'
	tmux_wait_screen '^rc=0$'
}

# Ctrl-C, Ctrl-\ and Ctrl-Z reach the program in the foreground of the container's
# terminal; what was typed before the prompt arrives; the exit code comes back.
screen_keys() {
	local mode=$1
	screen_up "$mode"
	screen_shell
	# typed at once: the second line waits in the terminal until the container reads it
	tmux_type "$(screen_cmd "$mode" "$(screen_id "$mode" 1)" sh); echo \"rc=\$?\""$'\r''echo "early-$((6*7))"'$'\r'
	tmux_wait_screen '^early-42$'
	# (the shell drops the rest of a line whose program died of ^C: $? on a line of its own)
	tmux_line "sh -c 'echo ready-int; sleep 100'"
	tmux_wait_screen '^ready-int$'
	tmux_keys C-c
	tmux_wait_screen '^/ #$'
	tmux_line 'echo "after-int:$?"'
	tmux_wait_screen '^after-int:'
	screen_rows_are 'after-int:130'
	tmux_line "sh -c 'echo ready-stop; sleep 100'"
	tmux_wait_screen '^ready-stop$'
	tmux_keys C-z
	tmux_wait_screen 'Stopped'
	# back to the foreground, and ended
	tmux_line 'fg'
	tmux_wait_screen '^sh -c'
	wait_until 60 screen_in_foreground sleep
	tmux_keys C-c
	tmux_line 'echo "after-fg:$?"'
	tmux_wait_screen '^after-fg:'
	screen_rows_are 'after-fg:130'
	tmux_line 'exit 7'
	tmux_wait_screen '^rc=7$'
	# Ctrl-\: for the container's first program (busybox's interactive sh leaves SIGQUIT
	# ignored in what it starts)
	tmux_line "clear; $(screen_cmd "$mode" "$(screen_id "$mode" 2)" sh -c 'trap "echo got-quit; exit 5" QUIT; echo ready-quit; while :; do sleep 0.1; done'); echo \"rc=\$?\""
	tmux_wait_screen '^ready-quit$'
	tmux_keys 'C-\'
	tmux_wait_screen '^rc='
	screen_rows_are got-quit rc=5
}

# The tester's terminal as it was, exactly, on every way out.
screen_restore() {
	local mode=$1 n=0 spid
	screen_up "$mode"
	screen_shell
	tmux_line 'stty -g >stty.0; stty -a | grep -c icanon'
	tmux_wait_screen '^1$'
	# restored: runs LINE ("..." rt ...) and checks the terminal after it
	# 1. the process exits
	tmux_line "clear; $(screen_cmd "$mode" "$(screen_id "$mode" 1)" sh); echo \"rc=\$?\"; stty -g | cmp - stty.0 && echo same-1"
	tmux_wait_screen '^/ #'
	tmux_line 'exit 4'
	tmux_wait_screen '^same-1$'
	screen_rows_are rc=4 same-1
	# 2. the process is killed (from outside: a container's init ignores its own SIGKILL)
	tmux_line "clear; $(screen_cmd "$mode" "$(screen_id "$mode" 2)" sh -c 'echo ready; exec sleep 1000'); echo \"rc=\$?\"; stty -g | cmp - stty.0 && echo same-2"
	tmux_wait_screen '^ready$'
	kill -KILL "$(descendant_pid "$(screen_runtime_pid)" sleep)"
	tmux_wait_screen '^same-2$'
	screen_rows_are rc=137 same-2
	# 3, 4. the runtime gets SIGTERM, SIGHUP: passed on to the process, which ends
	for sig in TERM HUP; do
		n=$((n + 1))
		tmux_line "clear; $(screen_cmd "$mode" "$(screen_id "$mode" "$((n + 2))")" sh -c 'trap "exit 3" TERM HUP; echo ready; while :; do sleep 0.1; done'); echo \"rc=\$?\"; stty -g | cmp - stty.0 && echo same-$sig"
		tmux_wait_screen '^ready$'
		spid=$(screen_runtime_pid)
		kill -"$sig" "$spid"
		tmux_wait_screen "^same-$sig\$"
		screen_rows_are rc=3 "same-$sig"
	done
	# 5. the process cannot start
	tmux_line "clear; $(screen_cmd "$mode" "$(screen_id "$mode" 5)" /nonexistent); echo \"rc=\$?\"; stty -g | cmp - stty.0 && echo same-5"
	tmux_wait_screen '^rc='
	tmux_wait_screen '^same-5$'
	if tmux_screen | grep -qx rc=0; then
		echo "the process that cannot start: exit code 0" >&2
		return 1
	fi
}

# 10 MB through the relay to the terminal, complete and in order (as the pane got it).
screen_bulk() {
	local mode=$1 out="$TESTDIR/pane.out"
	screen_up "$mode"
	screen_shell
	tmux_cmd pipe-pane -t t -o "cat >$out"
	tmux_line "$(screen_cmd "$mode" "$(screen_id "$mode" 1)" sh -c 'echo BEGIN; seq 1 1300000; echo END'); echo \"rc=\$?\""
	tmux_wait_screen '^rc=' 120
	screen_rows_are 1299999 1300000 END rc=0
	tmux_cmd pipe-pane -t t
	for _ in $(seq 100); do tr -d '\r' <"$out" | grep -qx END && break; sleep 0.1; done
	tr -d '\r' <"$out" | sed -n '/^BEGIN$/,/^END$/p' | sed '1d;$d' | cmp - <(seq 1 1300000)
}

# Standard input a pipe or a file, with a terminal and without: the data, then its end.
screen_stdin() {
	local mode=$1 t=-t prog
	prog=(sh -c 'while read -r l; do echo "got:$l"; done; echo "[end]"')
	screen_up "$mode"
	screen_shell
	tmux_line 'printf "f1\nf2\n" >in.txt'
	for term in true false; do
		if [ "$mode" = run ]; then
			config_set process.terminal "$term"
			config_set process.args "$(json_array "${prog[@]}")"
			cmd="rt run"
		else
			[ "$term" = true ] || t=""
			cmd="rt exec $t"
		fi
		tmux_line "clear; printf 'p1\\np2\\n' | $cmd $(screen_id "$mode" "p$term") $([ "$mode" = run ] || printf '%q ' "${prog[@]}"); echo \"rc=\$?\""
		tmux_wait_screen '^rc='
		screen_rows_are '[end]' rc=0
		tmux_wait_screen '^got:p2$'
		screen_rows_are got:p1 got:p2
		tmux_line "clear; $cmd $(screen_id "$mode" "f$term") $([ "$mode" = run ] || printf '%q ' "${prog[@]}") <in.txt; echo \"rc=\$?\""
		tmux_wait_screen '^rc='
		screen_rows_are '[end]' rc=0
		tmux_wait_screen '^got:f2$'
		screen_rows_are got:f1 got:f2
	done
}
