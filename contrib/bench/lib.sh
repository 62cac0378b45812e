# Helpers of contrib/bench/startup.sh and growth.sh (sourced, bash): the two halves of a
# run, timing, samples, clean-up.
# Globals used: TMP (scratch dir), BENCHID (names every container and cgroup), RT_PATH[rt],
# STEP_TIMEOUT, KEEP.

declare -A RT_PATH=()

# ---- options -----------------------------------------------------------------------------

# bench_parse_args ARGS...: the options of both scripts (usage () is the script's own).
# Sets ROUNDS RUNTIMES OUT PHASES CONFIGS STEP_TIMEOUT OCISBX KEEP QUICK, whose defaults
# the script set before; --configs only where CONFIGS_OPTION=1.
bench_parse_args ()
{
  local name=${0##*/}
  while [ $# -gt 0 ]; do
    case "$1" in
      -n|--rounds) ROUNDS=$2; shift 2 ;;
      --runtimes) RUNTIMES=$2; shift 2 ;;
      --out) OUT=$2; shift 2 ;;
      --phases) PHASES=$2; shift 2 ;;
      --timeout) STEP_TIMEOUT=$2; shift 2 ;;
      --ocisbx) OCISBX=$2; shift 2 ;;
      --quick) QUICK=1; shift ;;
      --keep) KEEP=1; shift ;;
      -h|--help) usage 0 ;;
      --configs) [ "${CONFIGS_OPTION:-0}" = 1 ] || { echo "$name: unknown option $1" >&2; usage 1 >&2; }
                 CONFIGS=$2; shift 2 ;;
      -*) echo "$name: unknown option $1" >&2; usage 1 >&2 ;;
      *) OCISBX=$1; shift ;;
    esac
  done
  case "$ROUNDS" in ''|[1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;;
    *) echo "$name: -n wants a number 1..999" >&2; exit 1 ;;
  esac
  case "$OUT" in /*|'') ;; *) OUT=$PWD/$OUT ;; esac
}

# ---- the two halves --------------------------------------------------------------------

# bench_outer SCRIPT ARGS...: the outer half of a bench script (as root, in the host's
# namespaces): a scratch dir, the helpers compiled into it, SCRIPT re-run with ARGS inside
# a private mount namespace under the subreaper, then a sweep of anything it left.  Exits
# with the inner half's status.
bench_outer ()
{
  local script=$1 name=${1##*/} rc t
  shift
  [ "$(id -u)" = 0 ] || { echo "$name: must run as root" >&2; exit 1; }
  for t in unshare python3 gcc; do
    command -v $t >/dev/null || { echo "$name: $t not found (contrib/deps.sh)" >&2; exit 1; }
  done
  export OCISBX_BENCH_TMP OCISBX_BENCH_ID=$$
  OCISBX_BENCH_TMP=$(mktemp -d /tmp/ocisbx-bench.XXXXXX) || exit 1
  TMP=$OCISBX_BENCH_TMP BENCHID=$OCISBX_BENCH_ID
  if ! gcc -O2 -Wall -o "$TMP/reaper" "$here/reaper.c" ||
     ! gcc -O2 -Wall -o "$TMP/floor" "$here/floor.c"; then
    rm -rf "$TMP"
    exit 1
  fi
  # On Ctrl-C the inner half cleans up; this half waits for it, then sweeps again.  A
  # closed pipe (`startup.sh | tail` interrupted) must not kill us before that.
  trap 'trap "" PIPE; echo "bench: interrupted, cleaning up" >&2' INT TERM HUP
  "$TMP/reaper" unshare -m --propagation private -- bash "$script" "$@"
  rc=$?
  trap '' INT PIPE
  # Whatever the inner half could not remove (e.g. it was killed): crun's directories on
  # the /sys/fs/cgroup tmpfs are only visible with cgroup2 unmounted, so look twice.
  OCISBX_BENCH_SWEEP=1 unshare -m --propagation private -- bash "$script"
  sweep_cgroups
  grep -F " $TMP/" /proc/self/mountinfo | awk '{print $5}' | sort -r | while read -r m; do
    umount -l "$m"
  done
  if [ "${KEEP:-0}" = 1 ]; then echo "bench: kept $TMP" >&2; else rm -rf "$TMP"; fi
  exit $rc
}

# bench_inner_init: start of the inner half (setup.sh sourced): the globals, the sweep
# that bench_outer asks for (then exit), and the clean-up on a signal.
bench_inner_init ()
{
  TMP=$OCISBX_BENCH_TMP BENCHID=$OCISBX_BENCH_ID
  if [ -n "${OCISBX_BENCH_SWEEP:-}" ]; then
    setup_cgroups 2>/dev/null
    sweep_cgroups
    exit 0
  fi
  trap on_signal INT TERM HUP
}

# run_phases PREFIX "NAME...": PREFIX_NAME for each of $PHASES among the NAMEs (none: no
# phase), under the watchdog; then every container and cgroup of this run is removed.
run_phases ()
{
  local phase
  META_LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
  watchdog_start
  for phase in $PHASES; do
    case " $2 " in
      *" $phase "*) "$1_$phase" ;;
      *) [ "$phase" = none ] || echo "bench: unknown phase $phase" >&2 ;;
    esac
  done
  watchdog_stop
  kill_all
  sweep_cgroups
  META_LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
}

on_signal ()
{
  trap '' INT TERM HUP PIPE
  echo "bench: interrupted" >&2
  watchdog_stop
  kill_current
  kill_all
  sweep_cgroups
  exit 130
}

# ---- timing ---------------------------------------------------------------------------

# timed CMD...: run CMD with stdin/stdout on /dev/null and stderr in $TMP/err; set RC and
# T_US (wall time in microseconds).  A watchdog (watchdog_start) kills CMD after
# $STEP_TIMEOUT seconds.  $EPOCHREALTIME costs no fork, so the overhead is one fork+exec,
# the same for every runtime and for the floor.
timed ()
{
  local t0 t1
  [ -n "${WANT_CPU:-}" ] && child_cpu_us
  t0=${EPOCHREALTIME/./}
  "$@" </dev/null >/dev/null 2>"$TMP/err" &
  CUR_PID=$!
  echo "$t0 $STEP_TIMEOUT $CUR_PID" >"$TMP/current"
  wait "$CUR_PID"
  RC=$?
  t1=${EPOCHREALTIME/./}
  CUR_PID=
  : >"$TMP/current"
  T_US=$((t1 - t0))
  if [ -n "${WANT_CPU:-}" ]; then
    local c0=$CPU_US
    child_cpu_us
    T_CPU_US=$((CPU_US - c0))
  fi
}

# batch P N CMD...: N runs of CMD in P parallel workers, worker w running j = w, w+P, ...
# one after the other, with every word @J@ of CMD replaced by j (ids: ID-@J@).  Sets
# T_US (wall time of the whole batch), T_CPU_US (CPU of every process of it), RC (0 when
# all N succeeded), BATCH_FAILED (the j that failed) and $TMP/err (their first error).
# The watchdog kills the whole batch after BATCH_TIMEOUT (default 10 x STEP_TIMEOUT) s.
batch ()
{
  local p=$1 n=$2 w t0 t1 c0 pids=() f
  shift 2
  child_cpu_us
  c0=$CPU_US
  rm -f "$TMP"/batch.err.* "$TMP"/batch.fail.*
  t0=${EPOCHREALTIME/./}
  for ((w = 0; w < p && w < n; w++)); do
    (
      for ((j = w; j < n; j += p)); do
        "${@//@J@/$j}" </dev/null >/dev/null 2>>"$TMP/batch.err.$w" || echo "$j" >>"$TMP/batch.fail.$w"
      done
    ) &
    pids+=($!)
  done
  echo "$t0 ${BATCH_TIMEOUT:-$((STEP_TIMEOUT * 10))} ${pids[*]}" >"$TMP/current"
  wait "${pids[@]}"
  t1=${EPOCHREALTIME/./}
  : >"$TMP/current"
  T_US=$((t1 - t0))
  child_cpu_us
  T_CPU_US=$((CPU_US - c0))
  BATCH_FAILED=$(cat "$TMP"/batch.fail.* 2>/dev/null)
  RC=0
  : >"$TMP/err"
  if [ -n "$BATCH_FAILED" ]; then
    RC=1
    for f in "$TMP"/batch.err.*; do
      [ -s "$f" ] && { head -c 400 "$f" >"$TMP/err"; break; }
    done
    echo " ($(wc -w <<<"$BATCH_FAILED") of $n failed)" >>"$TMP/err"
  fi
}

# child_cpu_us: set CPU_US to the user+sys time (µs) of all the children this shell has
# waited for (RUSAGE_CHILDREN, via the `times` builtin: no fork).  A runtime's time
# includes the processes it waited for itself (its init, the container).
child_cpu_us ()
{
  local line re='^([0-9]+)m([0-9]+)\.([0-9]+)s ([0-9]+)m([0-9]+)\.([0-9]+)s$'
  times >"$TMP/state/.times"
  { read -r line; read -r line; } <"$TMP/state/.times"
  CPU_US=0
  [[ $line =~ $re ]] || return 0
  CPU_US=$(( (10#${BASH_REMATCH[1]} * 60 + 10#${BASH_REMATCH[2]}) * 1000000 + 10#${BASH_REMATCH[3]} * 1000
           + (10#${BASH_REMATCH[4]} * 60 + 10#${BASH_REMATCH[5]}) * 1000000 + 10#${BASH_REMATCH[6]} * 1000 ))
}

# kill_tree PID: SIGKILL PID and every process below it (children first found, then
# killed top-down so that none escapes by being reparented in between).
kill_tree ()
{
  local p c
  kill -STOP "$1" 2>/dev/null
  for p in /proc/"$1"/task/*/children; do
    for c in $(cat "$p" 2>/dev/null); do kill_tree "$c"; done
  done
  kill -KILL "$1" 2>/dev/null
}

# kill_current: kill what timed () or batch () is waiting for ($TMP/current: "T0 LIMIT PID...").
kill_current ()
{
  local t0 limit pids p
  read -r t0 limit pids <"$TMP/current" 2>/dev/null || return 0
  for p in $pids; do kill_tree "$p"; done
}

# The watchdog kills the current step ($TMP/current) once it has run LIMIT seconds.
watchdog_start ()
{
  : >"$TMP/current"
  (
    trap 'exit 0' TERM
    while sleep 1; do
      read -r t0 limit pids <"$TMP/current" 2>/dev/null || continue
      [ -n "${pids:-}" ] || continue
      now=${EPOCHREALTIME/./}
      if [ $(((now - t0) / 1000000)) -ge "$limit" ]; then
        echo "[killed after ${limit}s, see --timeout]" >>"$TMP/err"
        kill_current
        : >"$TMP/current"
      fi
    done
  ) &
  WATCHDOG_PID=$!
}

watchdog_stop ()
{
  [ -n "${WATCHDOG_PID:-}" ] && kill "$WATCHDOG_PID" 2>/dev/null && wait "$WATCHDOG_PID" 2>/dev/null
  WATCHDOG_PID=
}

# ---- samples ---------------------------------------------------------------------------
# Keys are "metric|config|runtime".  SAMPLES holds microseconds (or KiB), space-separated.
declare -A SAMPLES=() OK=() FAIL=() FIRSTERR=() UNIT=()
KEYS=()

key_init ()
{
  if [ -z "${OK[$1]+x}" ]; then
    OK[$1]=0 FAIL[$1]=0 SAMPLES[$1]="" UNIT[$1]=${2:-ms}
    KEYS+=("$1")
  fi
}

# record KEY [UNIT]: file the last timed() result under KEY.
record ()
{
  key_init "$1" "${2:-ms}"
  if [ "$RC" -eq 0 ]; then
    SAMPLES[$1]+=" $T_US"
    OK[$1]=$((OK[$1] + 1))
  else
    FAIL[$1]=$((FAIL[$1] + 1))
    if [ -z "${FIRSTERR[$1]:-}" ]; then
      FIRSTERR[$1]="exit $RC: $(tr '\n' ' ' <"$TMP/err" | cut -c1-240)"
    fi
  fi
}

# record_cpu KEY: file the CPU time of the last successful timed() under KEY.
record_cpu ()
{
  key_init "$1" ms
  [ "$RC" -eq 0 ] || return 0
  SAMPLES[$1]+=" $T_CPU_US"
  OK[$1]=$((OK[$1] + 1))
}

# record_value KEY UNIT VALUE
record_value ()
{
  key_init "$1" "$2"
  SAMPLES[$1]+=" $3"
  OK[$1]=$((OK[$1] + 1))
}

# gave_up KEY: true once KEY failed 3 times without ever succeeding (stop wasting time).
gave_up ()
{
  [ "${OK[$1]:-0}" -eq 0 ] && [ "${FAIL[$1]:-0}" -ge 3 ]
}

# stats KEY: print "median min max" of the samples (µs turned into ms for unit ms).
# CPU samples come in 1 ms steps (`times`), so for them the "median" is a mean with the
# lowest and highest 10 % left out: robust like a median, finer than a step (each
# sample's rounding error lies within ±1 ms and averages out).
stats ()
{
  local div=1 fmt="%.0f %.0f %.0f\n" trim=0
  [ "${UNIT[$1]}" = ms ] && div=1000 fmt="%.2f %.2f %.2f\n"
  [ "${UNIT[$1]}" = /s ] && fmt="%.1f %.1f %.1f\n"
  case "${1%%|*}" in cpu*|*_cpu) trim=1 ;; esac
  [ -n "${SAMPLES[$1]// /}" ] || { echo "- - -"; return; }
  printf '%s\n' ${SAMPLES[$1]} | sort -n | awk -v d="$div" -v f="$fmt" -v trim="$trim" '
    { v[NR] = $1 / d }
    END {
      if (NR == 0) { print "- - -"; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      if (trim) {
        k = int(NR / 10); s = 0
        for (i = k + 1; i <= NR - k; i++) s += v[i]
        m = s / (NR - 2 * k)
      }
      printf f, m, v[1], v[NR]
    }'
}

# ---- clean-up --------------------------------------------------------------------------

# Without a cgroupsPath a runtime picks /<id> (runc, crun) or /<name>/<id> (ocisbx):
# look one level deeper too, leaving the shared parent alone.
our_cgroups ()
{
  local d
  for d in /sys/fs/cgroup/*/ocisbxbench-"$BENCHID"* /sys/fs/cgroup/*/*/ocisbxbench-"$BENCHID"*; do
    [ -d "$d" ] && echo "$d"
  done
}

# sweep_cgroups: kill whatever is left in this run's cgroups and remove them.
sweep_cgroups ()
{
  local d c pid tries
  for d in $(our_cgroups); do
    [ -d "$d" ] || continue
    # With cgroup2 unmounted, crun still makes its "unified" cgroup: plain directories
    # and files on the /sys/fs/cgroup tmpfs, hidden under the cgroup2 mount outside.
    if [ "$(stat -fc %T "$d")" = tmpfs ]; then
      rm -rf "$d"
      continue
    fi
    while read -r c; do
      for pid in $(cat "$c/cgroup.procs" 2>/dev/null); do
        kill -KILL "$pid" 2>/dev/null
      done
    done < <(find "$d" -type d 2>/dev/null)
  done
  for d in $(our_cgroups); do
    [ -d "$d" ] || continue
    while read -r c; do
      tries=0
      until rmdir "$c" 2>/dev/null || [ ! -d "$c" ] || [ $tries -ge 20 ]; do
        sleep 0.05
        tries=$((tries + 1))
      done
      [ -d "$c" ] && echo "bench: could not remove cgroup $c" >&2
    done < <(find "$d" -depth -type d 2>/dev/null)
  done
}

# kill_ctr RT ID: force-delete one container (quietly) and remove its leftover cgroups.
kill_ctr ()
{
  [ "$1" = floor ] && return 0
  timeout -s KILL 10 "${RT_PATH[$1]}" --root "$TMP/state/$1" delete -f "$2" </dev/null >/dev/null 2>&1
  local d c
  for d in /sys/fs/cgroup/*/"$2" /sys/fs/cgroup/*/*/"$2"; do
    [ -d "$d" ] || continue
    [ "$(stat -fc %T "$d")" = tmpfs ] && { rm -rf "$d"; continue; }
    for c in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -KILL "$c" 2>/dev/null; done
    rmdir "$d" 2>/dev/null
  done
  return 0
}

# kill_all: delete every container of every runtime under this run's state roots.
kill_all ()
{
  local rt id
  for rt in "${!RT_PATH[@]}"; do
    [ -d "$TMP/state/$rt" ] || continue
    for id in $(timeout -s KILL 10 "${RT_PATH[$rt]}" --root "$TMP/state/$rt" list -q 2>/dev/null) \
              $(ls "$TMP/state/$rt" 2>/dev/null); do
      case "$id" in ocisbxbench-*) kill_ctr "$rt" "$id" ;; esac
    done
  done
}
