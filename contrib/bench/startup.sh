#!/bin/bash
# Container start-up benchmark: ocisbx against runc and crun (issue 9).
#
#   contrib/bench/startup.sh [-n ROUNDS] [--runtimes "ocisbx runc crun"] [--out FILE.tsv]
#                            [--phases "run csd exec rss mem ovlsys btrfs"] [--configs "minimal podman"]
#                            [--timeout SECONDS] [--keep] [--quick] [OCISBX]
#
# Builds a busybox bundle twice -- "minimal" (`runc spec`, /bin/true) and "podman" (what
# podman 4.3 generates: default seccomp profile, caps, rlimits, mounts, masked paths, pids
# limit, cgroupsPath) -- and times ROUNDS (default 20) sequential `RUNTIME run` of each,
# the runtimes alternating (floor A B C floor A B C ...), inside a private mount namespace
# where /sys/fs/cgroup/unified is unmounted (crun refuses this machine's hybrid layout).
# Phases: run = `run` wall time (and the floor: unshare+fork+mount proc+chroot+exec);
# csd = `create`, `start`, `delete` each; exec = `exec ID /bin/true` into a running
# container; rss = peak RSS of `run` (/usr/bin/time %M); mem = the smallest memory limit
# (cgroup v1 memory.limit_in_bytes) under which `run /bin/true` still succeeds, per config.
# An ocisbx with overlay runs also times `run --ephemeral` and `run --overlay-upper DIR`
# after each plain run (ratios to its own plain run); ovlsys = the time in their mount
# calls (strace -T); btrfs = `run --ephemeral` on a btrfs subvolume of 1 GiB against one
# of ~2 MiB, and the space a snapshot takes (overlay.sh).
# --quick: 3 rounds (a smoke test).  growth.sh measures how these costs grow.
# OCISBX: the ocisbx binary (default $OCISBX_BIN, else ./ocisbx).  A runtime is NAME (found
# in PATH) or NAME=PATH.  Every container, cgroup and mount is removed at the end, on
# Ctrl-C too.  Failures are counted and reported, never fatal.  Needs root.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage () { sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

ROUNDS="" RUNTIMES="ocisbx runc crun" OUT="" PHASES="run csd exec rss mem ovlsys btrfs"
CONFIGS="minimal podman" CONFIGS_OPTION=1 STEP_TIMEOUT=20 KEEP=0 QUICK=0 OCISBX=${OCISBX_BIN:-./ocisbx}
. "$here/lib.sh"
bench_parse_args "$@"
[ $QUICK = 1 ] && ROUNDS=${ROUNDS:-3}
ROUNDS=${ROUNDS:-20}
[ -n "${OCISBX_BENCH_TMP:-}" ] || bench_outer "${BASH_SOURCE[0]}" "$@"

# ---- inner half ------------------------------------------------------------------------
. "$here/setup.sh"
bench_inner_init
. "$here/phases.sh"
. "$here/overlay.sh"
. "$here/report.sh"

setup_runtimes || exit 1
setup_cgroups
setup_bundles || { kill_all; exit 1; }
run_phases phase "run csd exec rss mem ovlsys btrfs"

report
[ -n "$OUT" ] && write_tsv "$OUT" "start-up benchmark" metric config && echo "summary written to $OUT"
exit 0
