# The phases of contrib/bench/growth.sh (sourced, bash): how each cost grows with the
# work.  Samples go to lib.sh's arrays under "SERIES|X|RUNTIME"; growth_report.sh prints
# each series as a table (X down, runtimes across) and plots it.

# SERIES_XS[series]: its X values in the order first measured.
declare -A SERIES_XS=() HAS_EVENTS=()

# gkey SERIES X RT: the sample key, X registered for the series.
gkey ()
{
  case " ${SERIES_XS[$1]:-} " in *" $2 "*) ;; *) SERIES_XS[$1]+="${SERIES_XS[$1]:+ }$2" ;; esac
  GKEY="$1|$2|$3"
}

# g_bundle NAME ARGS...: a minimal bundle $TMP/b/g-NAME shared by every runtime (no
# cgroupsPath: each runtime uses its default path, named after the container id).
g_bundle ()
{
  local name=$1
  shift
  mkconf minimal any "" "$TMP/b/g-$name" "$@"
}

growth_setup ()
{
  local n rt max=0
  for n in $MOUNT_XS; do [ "$n" -gt $max ] && max=$n; done
  # Mount points exist in the rootfs: no runtime pays for making them.
  mkdir -p "$TMP/bindsrc"
  echo x >"$TMP/bindsrc/file"
  for ((n = 0; n < max; n++)); do mkdir -p "$TMP/rootfs-minimal/m/$n"; done
  # crun sets the process's rlimits before it mounts and holds an fd per mount: under
  # `runc spec`'s RLIMIT_NOFILE of 1024 it fails at 1000 ("Too many open files"; ocisbx
  # and runc do not).  These bundles ask for the hard limit, as podman's do.
  for n in $MOUNT_XS; do
    g_bundle "binds-$n" --binds "$n" --bind-source "$TMP/bindsrc" --nofile "$NOFILE" || return 1
    g_bundle "masked-$n" --masked "$n" --nofile "$NOFILE" || return 1
  done
  # The other containers of `many`: no network namespace (its clean-up in the kernel would
  # load the machine for minutes), exited at once.
  g_bundle light --no-netns || return 1
  for n in $PROCS_XS; do
    g_bundle "procs-$n" -- /bin/sh -c \
      "i=0; while [ \$i -lt $n ]; do sleep 3600 & i=\$((i + 1)); done; exec sleep 3600" || return 1
  done
  for rt in "${RTS[@]}"; do
    "${RT_PATH[$rt]}" events --help >/dev/null 2>&1 && HAS_EVENTS[$rt]=1
  done
  [ -n "$SECCOMP" ] && case " $PHASES " in *" tput "*) podman_copies ;; esac
  return 0
}

# podman_copies: for the parallel starts of the podman-like bundle, one copy per run
# (podman gives each container its own cgroupsPath): $TMP/b/gp-RT-J.
podman_copies ()
{
  local rt j n=0 p
  for p in $TPUT_XS; do
    j=$((TPUT_N > 2 * p ? TPUT_N : 2 * p))
    [ $j -gt $n ] && n=$j
  done
  for rt in "${RTS[@]}"; do
    for ((j = 0; j < n; j++)); do
      mkdir -p "$TMP/b/gp-$rt-$j"
      sed "s|\"$(cgroup_path podman "$rt" run)\"|\"$(cgroup_path podman "$rt" "t$j")\"|" \
        "$TMP/b/podman-$rt/config.json" >"$TMP/b/gp-$rt-$j/config.json"
    done
  done
}

# record_batch KEY_SERIES X RT N: the last batch () as N/s under SERIES and its CPU per
# run under SERIES_cpu.
record_batch ()
{
  local s=$1 x=$2 rt=$3 n=$4
  gkey "$s" "$x" "$rt"
  if [ "$RC" -eq 0 ]; then
    record_value "$GKEY" /s "$(awk -v n="$n" -v t="$T_US" 'BEGIN { printf "%.3f", n * 1000000 / t }')"
    gkey "${s}_cpu" "$x" "$rt"
    record_value "$GKEY" ms $((T_CPU_US / n))
  else
    record "$GKEY" /s
  fi
}

# tput: TPUT_N (at least 2 x P) `run`s of the minimal bundle, P at a time, per round; then
# of the podman-like one (tputp: each run its own copy, for its own cgroupsPath).
growth_tput ()
{
  local p n i rt s
  for s in tput tputp; do
    [ $s = tput ] || [ -n "$SECCOMP" ] || continue
    for p in $TPUT_XS; do
      n=$((TPUT_N > 2 * p ? TPUT_N : 2 * p))
      for ((i = 1; i <= ROUNDS; i++)); do
        progress "$s $p" "$i" "$ROUNDS"
        for rt in floor "${RTS[@]}"; do
          gave_up "$s|$p|$rt" && continue
          BATCH_ID=ocisbxbench-$BENCHID-$rt-$s$p-$i
          if [ "$rt" = floor ]; then
            [ $s = tput ] || continue
            batch "$p" "$n" "$TMP/floor" "$TMP/rootfs-minimal" /bin/true
          elif [ $s = tput ]; then
            batch "$p" "$n" $(rt_cmd "$rt") run -b "$TMP/b/minimal-$rt" "$BATCH_ID-@J@"
          else
            batch "$p" "$n" $(rt_cmd "$rt") run -b "$TMP/b/gp-$rt-@J@" "$BATCH_ID-@J@"
          fi
          record_batch "$s" "$p" "$rt" "$n"
          for j in $BATCH_FAILED; do kill_ctr "$rt" "$BATCH_ID-$j"; done
        done
      done
    done
  done
  progress_end
}

# mounts: `run` with N bind mounts, then with N masked paths.
growth_mounts ()
{
  local kind n i rt id
  WANT_CPU=1
  for kind in binds masked; do
    for n in $MOUNT_XS; do
      for ((i = 1; i <= ROUNDS * 2; i++)); do
        progress "$kind $n" "$i" $((ROUNDS * 2))
        for rt in "${RTS[@]}"; do
          gkey "$kind" "$n" "$rt"
          gave_up "$GKEY" && continue
          id=ocisbxbench-$BENCHID-$rt-$kind-$n-$i
          timed $(rt_cmd "$rt") run -b "$TMP/b/g-$kind-$n" "$id"
          record "$GKEY"
          gkey "${kind}_cpu" "$n" "$rt"
          record_cpu "$GKEY"
          [ "$RC" -eq 0 ] || kill_ctr "$rt" "$id"
        done
      done
    done
  done
  WANT_CPU=""
  progress_end
}

# others RT: the ids of RT's other containers (many).
others () { ls "$TMP/state/$1" 2>/dev/null | grep -- "-$1-other-"; }

# populate RT FROM TO: RT's other containers FROM .. TO-1 (`run -d` of /bin/true, which
# exits at once: they stay, stopped, until deleted), four at a time (xargs gives them
# /dev/null as stdin).
populate ()
{
  local rt=$1
  seq "$2" $(($3 - 1)) |
    xargs -P 4 -I@ timeout -s KILL "$STEP_TIMEOUT" "${RT_PATH[$rt]}" --root "$TMP/state/$rt" \
      run -d -b "$TMP/b/g-light" "ocisbxbench-$BENCHID-$rt-other-@" >/dev/null 2>"$TMP/populate.err"
}

# many_timed SERIES K RT ARGS...: time `RT ARGS`, wall under SERIES and CPU (of the
# runtime's own process: a created container's init is not its child) under SERIES_cpu.
many_timed ()
{
  local s=$1 k=$2 rt=$3
  shift 3
  gkey "$s" "$k" "$rt"
  WANT_CPU=1 timed $(rt_cmd "$rt") "$@"
  record "$GKEY"
  gkey "${s}_cpu" "$k" "$rt"
  record_cpu "$GKEY"
}

# many: with K other containers in each runtime's --root, time `create`, `state`, `list`
# and `delete` of one more.
growth_many ()
{
  local k have=0 i rt id got
  for k in $MANY_XS; do
    for rt in "${RTS[@]}"; do
      printf '\rbench: many   %s: %d other containers  ' "$rt" "$k" >&2
      populate "$rt" "$have" "$k"
      got=$(others "$rt" | wc -l)
      [ "$got" = "$k" ] ||
        echo "bench: $rt has $got other containers, not $k: $(head -c 300 "$TMP/populate.err")" >&2
    done
    have=$k
    for ((i = 1; i <= ROUNDS * 2; i++)); do
      progress "many $k" "$i" $((ROUNDS * 2))
      for rt in "${RTS[@]}"; do
        gkey create "$k" "$rt"
        gave_up "$GKEY" && continue
        id=ocisbxbench-$BENCHID-$rt-many-$k-$i
        many_timed create "$k" "$rt" create -b "$TMP/b/minimal-$rt-sleep" "$id"
        [ "$RC" -eq 0 ] || { kill_ctr "$rt" "$id"; continue; }
        many_timed state "$k" "$rt" state "$id"
        many_timed list "$k" "$rt" list
        many_timed delete "$k" "$rt" delete "$id"
        [ "$RC" -eq 0 ] || kill_ctr "$rt" "$id"
      done
    done
  done
  progress_end
  for rt in "${RTS[@]}"; do
    printf 'bench: many   deleting the other containers of %s\n' "$rt" >&2
    others "$rt" | xargs -P 4 -n 1 timeout -s KILL "$STEP_TIMEOUT" "${RT_PATH[$rt]}" \
      --root "$TMP/state/$rt" delete -f >/dev/null 2>&1
  done
}

# start_sleeper RT ID BUNDLE: create and start a container (untimed); 0 when it runs.
start_sleeper ()
{
  timed $(rt_cmd "$1") create -b "$3" "$2"
  [ "$RC" -eq 0 ] && timed $(rt_cmd "$1") start "$2"
  [ "$RC" -eq 0 ] && return 0
  kill_ctr "$1" "$2"
  return 1
}

# exec: EXEC_N (at least 2 x C) `exec ID /bin/true` into one container, C at a time.
growth_exec ()
{
  local c n i rt
  declare -A live=()
  for rt in "${RTS[@]}"; do
    start_sleeper "$rt" "ocisbxbench-$BENCHID-$rt-execp" "$TMP/b/minimal-$rt-sleep" &&
      live[$rt]=ocisbxbench-$BENCHID-$rt-execp
  done
  for c in $EXEC_XS; do
    n=$((EXEC_N > 2 * c ? EXEC_N : 2 * c))
    for ((i = 1; i <= ROUNDS; i++)); do
      progress "exec $c" "$i" "$ROUNDS"
      for rt in "${RTS[@]}"; do
        gkey exec "$c" "$rt"
        if [ -z "${live[$rt]:-}" ]; then
          record "$GKEY"   # a failure, with the create/start error
          continue
        fi
        gave_up "$GKEY" && continue
        batch "$c" "$n" $(rt_cmd "$rt") exec "${live[$rt]}" /bin/true
        record_batch exec "$c" "$rt" "$n"
      done
    done
  done
  progress_end
  for rt in "${!live[@]}"; do kill_ctr "$rt" "${live[$rt]}"; done
}

# wait_children RT ID N: until the container's init has N children (60 s at most).
wait_children ()
{
  local pid end=$((${EPOCHREALTIME/./} + 60000000))
  pid=$($(rt_cmd "$1") state "$2" 2>/dev/null | sed -n 's/^[[:space:]]*"pid":[[:space:]]*\([0-9]*\).*/\1/p')
  [ -n "$pid" ] || return 1
  while [ "${EPOCHREALTIME/./}" -lt $end ]; do
    [ "$(wc -w <"/proc/$pid/task/$pid/children" 2>/dev/null || echo 0)" -ge "$3" ] && return 0
    sleep 0.1
  done
  return 1
}

# procs: `ps` and `events --stats` of a container running N processes (and its init).
growth_procs ()
{
  local p i rt id
  for p in $PROCS_XS; do
    declare -A live=()
    for rt in "${RTS[@]}"; do
      id=ocisbxbench-$BENCHID-$rt-procs-$p
      printf '\rbench: procs  starting %s with %d processes  ' "$rt" "$p" >&2
      if start_sleeper "$rt" "$id" "$TMP/b/g-procs-$p" && wait_children "$rt" "$id" "$p"; then
        live[$rt]=$id
      else
        [ "$RC" -eq 0 ] && RC=1 && echo "no $p processes in the container after 60 s" >"$TMP/err"
        gkey ps "$p" "$rt"
        record "$GKEY"
        kill_ctr "$rt" "$id"
      fi
    done
    for ((i = 1; i <= ROUNDS * 2; i++)); do
      progress "procs $p" "$i" $((ROUNDS * 2))
      for rt in "${RTS[@]}"; do
        [ -n "${live[$rt]:-}" ] || continue
        gkey ps "$p" "$rt"
        timed $(rt_cmd "$rt") ps "${live[$rt]}"
        record "$GKEY"
        [ -n "${HAS_EVENTS[$rt]:-}" ] || continue
        gkey events "$p" "$rt"
        timed $(rt_cmd "$rt") events --stats "${live[$rt]}"
        record "$GKEY"
      done
    done
    for rt in "${!live[@]}"; do kill_ctr "$rt" "${live[$rt]}"; done
    unset live
  done
  progress_end
}

# rss_of CMDNAME RT CMD...: peak RSS (GNU time's %M: the largest of the command and of the
# children it waited for) of CMD, under "rss|CMDNAME|RT".
rss_of ()
{
  local name=$1 rt=$2
  shift 2
  gkey rss "$name" "$rt"
  rm -f "$TMP/rss"
  timed /usr/bin/time -f %M -o "$TMP/rss" "$@"
  if [ "$RC" -eq 0 ] && [ -s "$TMP/rss" ]; then
    record_value "$GKEY" KiB "$(tail -1 "$TMP/rss")"
  else
    [ "$RC" -eq 0 ] && RC=1
    record "$GKEY" KiB
  fi
}

# mem: the peak RSS of every command, then phase_mem (phases.sh) for both configs.
growth_mem ()
{
  local i rt id
  if [ ! -x /usr/bin/time ]; then
    echo "bench: /usr/bin/time missing (apt-get install time): rss skipped" >&2
  else
    for ((i = 1; i <= ROUNDS; i++)); do
      progress rss "$i" "$ROUNDS"
      for rt in "${RTS[@]}"; do
        id=ocisbxbench-$BENCHID-$rt-rss-$i
        rss_of run "$rt" $(rt_cmd "$rt") run -b "$TMP/b/minimal-$rt" "$id-m"
        [ "$RC" -eq 0 ] || kill_ctr "$rt" "$id-m"
        if [ -n "$SECCOMP" ]; then
          rss_of run-podman "$rt" $(rt_cmd "$rt") run -b "$TMP/b/podman-$rt" "$id-p"
          [ "$RC" -eq 0 ] || kill_ctr "$rt" "$id-p"
        fi
        rss_of create "$rt" $(rt_cmd "$rt") create -b "$TMP/b/minimal-$rt-sleep" "$id"
        [ "$RC" -eq 0 ] || { kill_ctr "$rt" "$id"; continue; }
        rss_of start "$rt" $(rt_cmd "$rt") start "$id"
        rss_of state "$rt" $(rt_cmd "$rt") state "$id"
        rss_of list "$rt" $(rt_cmd "$rt") list
        rss_of exec "$rt" $(rt_cmd "$rt") exec "$id" /bin/true
        rss_of ps "$rt" $(rt_cmd "$rt") ps "$id"
        [ -n "${HAS_EVENTS[$rt]:-}" ] && rss_of events "$rt" $(rt_cmd "$rt") events --stats "$id"
        rss_of kill "$rt" $(rt_cmd "$rt") kill "$id" KILL
        wait_stopped "$rt" "$id"
        rss_of delete "$rt" $(rt_cmd "$rt") delete "$id"
        [ "$RC" -eq 0 ] || kill_ctr "$rt" "$id"
      done
    done
    progress_end
  fi
  MEM_CONFIGS="minimal${SECCOMP:+ podman}" phase_mem
}
