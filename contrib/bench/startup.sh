#!/bin/bash
# Container start-up benchmark: ocisbx against runc and crun (issue 9).
#
#   contrib/bench/startup.sh [-n ROUNDS] [--runtimes "ocisbx runc crun"] [--out FILE.tsv]
#                            [--phases "run csd exec rss mem"] [--configs "minimal podman"]
#                            [--timeout SECONDS] [--keep] [OCISBX]
#
# Builds a busybox bundle twice -- "minimal" (`runc spec`, /bin/true) and "podman" (what
# podman 4.3 generates: default seccomp profile, caps, rlimits, mounts, masked paths, pids
# limit, cgroupsPath) -- and times ROUNDS (default 20) sequential `RUNTIME run` of each,
# the runtimes alternating (floor A B C floor A B C ...), inside a private mount namespace
# where /sys/fs/cgroup/unified is unmounted (crun refuses this machine's hybrid layout).
# Phases: run = `run` wall time (and the floor: unshare+fork+mount proc+chroot+exec);
# csd = `create`, `start`, `delete` each; exec = `exec ID /bin/true` into a running
# container; rss = peak RSS of `run` (/usr/bin/time %M); mem = the smallest memory limit
# (cgroup v1 memory.limit_in_bytes) under which `run /bin/true` still succeeds.
# OCISBX: the ocisbx binary (default $OCISBX_BIN, else ./ocisbx).  A runtime is NAME (found
# in PATH) or NAME=PATH.  Every container, cgroup and mount is removed at the end, on
# Ctrl-C too.  Failures are counted and reported, never fatal.  Needs root.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage () { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

ROUNDS=20 RUNTIMES="ocisbx runc crun" OUT="" PHASES="run csd exec rss mem"
CONFIGS="minimal podman" STEP_TIMEOUT=20 KEEP=0 OCISBX=${OCISBX_BIN:-./ocisbx}
ARGS=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    -n|--rounds) ROUNDS=$2; shift 2 ;;
    --runtimes) RUNTIMES=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --phases) PHASES=$2; shift 2 ;;
    --configs) CONFIGS=$2; shift 2 ;;
    --timeout) STEP_TIMEOUT=$2; shift 2 ;;
    --ocisbx) OCISBX=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "startup.sh: unknown option $1" >&2; usage 1 >&2 ;;
    *) OCISBX=$1; shift ;;
  esac
done
case "$ROUNDS" in ''|*[!0-9]*|0) echo "startup.sh: -n wants a positive number" >&2; exit 1 ;; esac

# ---- outer half: scratch dir, helpers, then re-run inside a private mount namespace -------
if [ -z "${OCISBX_BENCH_TMP:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "startup.sh: must run as root" >&2; exit 1; }
  for t in unshare python3 gcc; do
    command -v $t >/dev/null || { echo "startup.sh: $t not found (contrib/deps.sh)" >&2; exit 1; }
  done
  export OCISBX_BENCH_TMP OCISBX_BENCH_ID=$$
  OCISBX_BENCH_TMP=$(mktemp -d /tmp/ocisbx-bench.XXXXXX) || exit 1
  TMP=$OCISBX_BENCH_TMP BENCHID=$OCISBX_BENCH_ID
  declare -A RT_PATH=()
  . "$here/lib.sh"
  if ! gcc -O2 -Wall -o "$TMP/reaper" "$here/reaper.c" ||
     ! gcc -O2 -Wall -o "$TMP/floor" "$here/floor.c"; then
    rm -rf "$TMP"
    exit 1
  fi
  # On Ctrl-C the inner half cleans up; this half waits for it, then sweeps again.  A
  # closed pipe (`startup.sh | tail` interrupted) must not kill us before that.
  trap 'trap "" PIPE; echo "bench: interrupted, cleaning up" >&2' INT TERM HUP
  "$TMP/reaper" unshare -m --propagation private -- bash "${BASH_SOURCE[0]}" "${ARGS[@]}"
  rc=$?
  trap '' INT PIPE
  # Whatever the inner half could not remove (e.g. it was killed): crun's directories on
  # the /sys/fs/cgroup tmpfs are only visible with cgroup2 unmounted, so look twice.
  OCISBX_BENCH_SWEEP=1 unshare -m --propagation private -- bash "${BASH_SOURCE[0]}"
  sweep_cgroups
  grep -F " $TMP/" /proc/self/mountinfo | awk '{print $5}' | sort -r | while read -r m; do
    umount -l "$m"
  done
  if [ $KEEP = 1 ]; then echo "bench: kept $TMP" >&2; else rm -rf "$TMP"; fi
  exit $rc
fi

# ---- inner half ------------------------------------------------------------------------
TMP=$OCISBX_BENCH_TMP BENCHID=$OCISBX_BENCH_ID
declare -A RT_PATH=()
. "$here/lib.sh"
. "$here/setup.sh"
if [ -n "${OCISBX_BENCH_SWEEP:-}" ]; then
  setup_cgroups 2>/dev/null
  sweep_cgroups
  exit 0
fi
. "$here/phases.sh"
. "$here/report.sh"

on_signal ()
{
  trap '' INT TERM HUP PIPE
  echo "bench: interrupted" >&2
  [ -n "${CUR_PID:-}" ] && kill -KILL "$CUR_PID" 2>/dev/null
  watchdog_stop
  kill_all
  sweep_cgroups
  exit 130
}
trap on_signal INT TERM HUP

setup_runtimes || exit 1
setup_cgroups
setup_bundles || { kill_all; exit 1; }
META_LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

watchdog_start
for phase in $PHASES; do
  case "$phase" in
    run) phase_run ;;
    csd) phase_csd ;;
    exec) phase_exec ;;
    rss) phase_rss ;;
    mem) phase_mem ;;
    none) ;;
    *) echo "bench: unknown phase $phase" >&2 ;;
  esac
done
watchdog_stop
kill_all
sweep_cgroups
META_LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

report
[ -n "$OUT" ] && write_tsv "$OUT" && echo "summary written to $OUT"
exit 0
