# shellcheck shell=bash
# Exec trees (tests/exec_tree.bats, tests/podman.bats): the process tree an agent's
# cancelled command leaves, and how to find its processes from the host.
#
# TREE_CMD: the shell command of the tree: a leader (sh -c, which execs its last
# command: `sleep 300`), a grandchild that double-forks (`sh -c 'sleep 300 &'`) and a
# child in a session of its own (`setsid sleep 300`): three `sleep 300` once it is up.
TREE_CMD="sh -c 'sleep 300 &'; setsid sleep 300 & sleep 300"

# ns_count INIT_PID ARGV...: live processes in the pid namespace of INIT_PID whose argv
# is exactly ARGV.
ns_count() { "$PYTHON" "$HELPERS/nsprocs.py" count "$@"; }

# tree_sleeps INIT_PID: the tree's processes left (`sleep 300`s) in that container.
tree_sleeps() { ns_count "$1" sleep 300; }

# ns_zombies INIT_PID: zombies of that namespace whose parent is in it too (a zombie
# whose parent is outside, such as a runtime's child orphaned by a SIGKILL, is the
# host's to reap).
ns_zombies() { "$PYTHON" "$HELPERS/nsprocs.py" zombies "$1"; }

# ns_pid HOST_PID: the pid of HOST_PID in its own (innermost) pid namespace.
ns_pid() { awk '$1 == "NSpid:" { print $NF }' "/proc/$1/status"; }

# first_child PID: the oldest living child of PID (an exec tree's reaper: its leader).
first_child() { awk '{ print $1 }' "/proc/$1/task/$1/children"; }

# tree_reaper INIT_PID: host pid of the reaper (ocisbx-dmz-tree) running TREE_CMD in that
# container.
tree_reaper() { "$PYTHON" "$HELPERS/nsprocs.py" find "$1" "ocisbx-dmz-tree " "setsid sleep 300"; }

# proc_tree_states PID: PID and every process below it, a line each (pid, state, the
# kernel function it sleeps in, pending/blocked/ignored signals, argv): where a signal
# stopped when an exec tree did not end in time.
proc_tree_states() {
	local p=$1 c
	[ -r "/proc/$p/status" ] || return 0
	echo "$p $(awk '$1 ~ /^(State|SigPnd|ShdPnd|SigBlk|SigIgn):$/ { printf "%s %s ", $1, $2 }' "/proc/$p/status" 2>/dev/null)wchan $(cat "/proc/$p/wchan" 2>/dev/null): $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
	for c in $(cat "/proc/$p"/task/*/children 2>/dev/null); do proc_tree_states "$c"; done
}
