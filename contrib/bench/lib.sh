# Helpers of contrib/bench/startup.sh (sourced, bash): timing, samples, clean-up, report.
# Globals used: TMP (scratch dir), BENCHID (names every container and cgroup), RT_PATH[rt].

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
  echo "$CUR_PID $t0" >"$TMP/current"
  wait "$CUR_PID"
  RC=$?
  t1=${EPOCHREALTIME/./}
  CUR_PID=
  T_US=$((t1 - t0))
  if [ -n "${WANT_CPU:-}" ]; then
    local c0=$CPU_US
    child_cpu_us
    T_CPU_US=$((CPU_US - c0))
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

watchdog_start ()
{
  : >"$TMP/current"
  (
    trap 'exit 0' TERM
    while sleep 1; do
      read -r pid t0 <"$TMP/current" 2>/dev/null || continue
      [ -n "${pid:-}" ] || continue
      now=${EPOCHREALTIME/./}
      if [ $(((now - t0) / 1000000)) -ge "$STEP_TIMEOUT" ] && kill -0 "$pid" 2>/dev/null; then
        echo "[killed after ${STEP_TIMEOUT}s, see --timeout]" >>"$TMP/err"
        kill -KILL "$pid" 2>/dev/null
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
  [ "${1%%|*}" = cpu ] && trim=1
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
