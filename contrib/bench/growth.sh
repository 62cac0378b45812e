#!/bin/bash
# How the costs of ocisbx, runc and crun grow with the work (issue 20).
#
#   contrib/bench/growth.sh [--quick] [-n ROUNDS] [--runtimes "ocisbx runc crun"]
#                           [--out FILE.tsv] [--phases "tput mounts many exec procs mem"]
#                           [--timeout SECONDS] [--keep] [OCISBX]
#
# Phases (each a table and a plot, every runtime side by side, the runtimes alternating
# inside each round, the ratio to crun in every cell):
#   tput    start throughput: containers/s with 1, 4, 16, 64 parallel `run`s (and the floor)
#   mounts  `run` with 0, 10, 100, 1000 bind mounts, and with as many masked paths
#   many    `create`, `state`, `list`, `delete` with 1, 100, 1000 other containers in --root
#   exec    exec throughput: 1, 16, 64 concurrent `exec`s into one container
#   procs   `ps` and `events --stats` of a container with 1 and 1000 processes
#   mem     peak RSS of each command; the smallest memory limit for the minimal and the
#           podman-like config (as startup.sh's mem phase)
# --quick: smaller sizes and one round (a smoke test of a minute or two).  --out writes the
# TSV and, beside it, FILE-PHASE.png (gnuplot) and the data of each plot; without --out,
# bench-growth.tsv in the current directory.  Needs root; see startup.sh for the set-up
# (private mount namespace without cgroup2, tmpfs state roots, subreaper, clean-up).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage () { sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

ROUNDS="" RUNTIMES="ocisbx runc crun" OUT=$PWD/bench-growth.tsv PHASES="tput mounts many exec procs mem"
CONFIGS="minimal podman" STEP_TIMEOUT=30 KEEP=0 QUICK=0 OCISBX=${OCISBX_BIN:-./ocisbx}
. "$here/lib.sh"
bench_parse_args "$@"
[ -n "${OCISBX_BENCH_TMP:-}" ] || bench_outer "${BASH_SOURCE[0]}" "$@"

# ---- inner half ------------------------------------------------------------------------
. "$here/setup.sh"
bench_inner_init
. "$here/phases.sh"
. "$here/report.sh"
. "$here/growth_phases.sh"
. "$here/growth_report.sh"

if [ $QUICK = 1 ]; then
  ROUNDS=${ROUNDS:-1}
  TPUT_XS="1 4" TPUT_N=8 MOUNT_XS="0 10 100" MANY_XS="1 10" EXEC_XS="1 4" EXEC_N=8 PROCS_XS="1 100"
else
  ROUNDS=${ROUNDS:-3}
  TPUT_XS="1 4 16 64" TPUT_N=64 MOUNT_XS="0 10 100 1000" MANY_XS="1 100 1000" EXEC_XS="1 16 64"
  EXEC_N=64 PROCS_XS="1 1000"
fi

setup_runtimes || exit 1
setup_cgroups
setup_bundles || { kill_all; exit 1; }
growth_setup || { kill_all; exit 1; }
run_phases growth "tput mounts many exec procs mem"

growth_report
growth_write "$OUT"
exit 0
