# shellcheck shell=bash
# A person at a terminal: tmux gives a real terminal (a pty and a screen of 100x30
# cells that an emulator draws), and the tests read that screen back.
#
#   tmux_start CMD...     a private tmux server (its socket in $TESTDIR) with one
#                         window of 100x30 running CMD (a shell, say)
#   tmux_type TEXT...     types TEXT literally (no key names), then nothing else
#   tmux_keys KEY...      tmux key names: Enter, C-c, 'C-\', Escape, ...
#   tmux_line TEXT        types TEXT and Enter
#   tmux_screen           prints the visible screen, one row a line (trailing blanks cut)
#   tmux_wait_screen ERE [SECONDS]
#                         waits until a row of the screen matches the extended regular
#                         expression ERE (grep -E); fails after SECONDS (default
#                         $TMUX_DEADLINE, 20) showing the screen
#   tmux_row N            prints row N (1 is the top)
#   tmux_resize W H       the window becomes W columns by H rows (the pane's programs
#                         get a SIGWINCH, as from a terminal emulator's window)
#   tmux_pane_pid         the pid of the program CMD started as
#   tmux_stop             ends the server (the teardown does it too)
#
# Waiting is polling the screen with a deadline, never a fixed sleep.

TMUX_DEADLINE=${TMUX_DEADLINE:-20}

tmux_cmd() { tmux -S "$TMUX_SOCK" "$@"; }

tmux_start() {
	requires_tool tmux tmux
	TMUX_SOCK="$TESTDIR/tmux.sock"
	# no user configuration; the pane's terminal is tmux's own (TERM=screen)
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x 100 -y 30 -s t "$@"
	tmux_cmd set-option -g remain-on-exit on
	tmux_cmd set-option -g history-limit 100
}

tmux_stop() {
	[ -n "${TMUX_SOCK:-}" ] && [ -S "$TMUX_SOCK" ] || return 0
	tmux_cmd kill-server 2>/dev/null || true
}

tmux_type() { tmux_cmd send-keys -t t -l "$*"; }
tmux_keys() { tmux_cmd send-keys -t t "$@"; }
tmux_line() {
	tmux_type "$*"
	tmux_keys Enter
}

tmux_screen() { tmux_cmd capture-pane -p -t t | sed -e 's/[[:space:]]*$//'; }
tmux_row() { tmux_screen | sed -n "${1}p"; }
tmux_pane_pid() { tmux_cmd display-message -p -t t '#{pane_pid}'; }

tmux_wait_screen() {
	local ere=$1 deadline=$((SECONDS + ${2:-$TMUX_DEADLINE}))
	while :; do
		tmux_screen | grep -qE -- "$ere" && return 0
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "screen never showed /$ere/ within ${2:-$TMUX_DEADLINE} s; it shows:" >&2
			tmux_screen | sed -e 's/^/|/' >&2
			return 1
		fi
		sleep 0.1
	done
}

# tmux_line_until ERE LINE: types LINE and Enter until the screen shows ERE (up to 3
# times, TMUX_DEADLINE in all): input typed while a full-screen program hands the
# terminal back may be flushed with it (busybox vi's exit), as a person would retype.
tmux_line_until() {
	local ere=$1 try
	shift
	for try in 1 2 3; do
		tmux_line "$*"
		tmux_wait_screen "$ere" $((TMUX_DEADLINE / 3)) 2>/dev/null && return 0
	done
	tmux_wait_screen "$ere" 1
}

tmux_resize() { tmux_cmd resize-window -t t -x "$1" -y "$2"; }
