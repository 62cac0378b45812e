# The measuring phases of contrib/bench/startup.sh (sourced, bash).  Every phase
# alternates the runtimes inside each round (A B C A B C ...), so slow drifts of the
# machine's load hit them all alike.

rt_cmd () { echo "${RT_PATH[$1]}" --root "$TMP/state/$1"; }

progress () { printf '\rbench: %-6s round %d/%d ' "$1" "$2" "$3" >&2; }
progress_end () { printf '\n' >&2; }

# run: ROUNDS x `RT run` of /bin/true per config, and the floor; wall and CPU time.  An
# ocisbx with overlay runs (its features list io.github.ocisbx.rootfs.overlay) also runs
# `run --ephemeral` and `run --overlay-upper NEWDIR` right after its plain run (run_overlays).
phase_run ()
{
  local i cfg rt key id
  declare -A ovl=()
  for rt in "${RTS[@]}"; do
    $(rt_cmd "$rt") features 2>/dev/null | grep -q io.github.ocisbx.rootfs.overlay && ovl[$rt]=1
  done
  WANT_CPU=1
  for ((i = 1; i <= ROUNDS; i++)); do
    progress run "$i" "$ROUNDS"
    for cfg in $CONFIGS; do
      for rt in floor "${RTS[@]}"; do
        key="run|$cfg|$rt"
        gave_up "$key" && continue
        id=ocisbxbench-$BENCHID-$rt-$cfg-run-$i
        if [ "$rt" = floor ]; then
          timed "$TMP/floor" "$TMP/rootfs-$cfg" /bin/true
        else
          timed $(rt_cmd "$rt") run -b "$TMP/b/$cfg-$rt" "$id"
        fi
        record "$key"
        record_cpu "cpu|$cfg|$rt"
        [ "$RC" -eq 0 ] || kill_ctr "$rt" "$id"
        [ -n "${ovl[$rt]:-}" ] && run_overlays "$cfg" "$rt" "$i"
      done
    done
  done
  WANT_CPU=""
  progress_end
}

# run_overlays CONFIG RT ROUND: `run --ephemeral` (keys runeph, cpueph) and `run
# --overlay-upper` of a new directory (runovl, cpuovl; removed after, untimed) of the
# plain run's bundle.  On a rootfs that is no btrfs subvolume both are overlays: the
# rootfs the lower layer, the upper on a tmpfs or in the directory.
run_overlays ()
{
  local cfg=$1 rt=$2 i=$3 v id
  for v in eph ovl; do
    gave_up "run$v|$cfg|$rt" && continue
    id=ocisbxbench-$BENCHID-$rt-$cfg-$v-$i
    if [ $v = eph ]; then
      timed $(rt_cmd "$rt") run --ephemeral -b "$TMP/b/$cfg-$rt" "$id"
    else
      timed $(rt_cmd "$rt") run --overlay-upper "$TMP/upper-$id" -b "$TMP/b/$cfg-$rt" "$id"
      rm -rf "$TMP/upper-$id"
    fi
    record "run$v|$cfg|$rt"
    record_cpu "cpu$v|$cfg|$rt"
    [ "$RC" -eq 0 ] || kill_ctr "$rt" "$id"
  done
}

# wait_stopped RT ID: poll `state` (untimed) until the container has stopped (5 s at most).
wait_stopped ()
{
  local end=$((${EPOCHREALTIME/./} + 5000000))
  while [ "${EPOCHREALTIME/./}" -lt $end ]; do
    timeout -s KILL 5 $(rt_cmd "$1") state "$2" 2>/dev/null </dev/null |
      grep -q '"status": *"stopped"' && return 0
    sleep 0.01
  done
  return 1
}

# csd: `create`, `start` and `delete` timed one by one.
phase_csd ()
{
  local i cfg rt id
  for ((i = 1; i <= ROUNDS; i++)); do
    progress csd "$i" "$ROUNDS"
    for cfg in $CONFIGS; do
      for rt in "${RTS[@]}"; do
        gave_up "create|$cfg|$rt" && continue
        id=ocisbxbench-$BENCHID-$rt-$cfg-csd-$i
        timed $(rt_cmd "$rt") create -b "$TMP/b/$cfg-$rt" "$id"
        record "create|$cfg|$rt"
        if [ "$RC" -eq 0 ]; then
          timed $(rt_cmd "$rt") start "$id"
          record "start|$cfg|$rt"
          if [ "$RC" -eq 0 ] && ! gave_up "delete|$cfg|$rt"; then
            if wait_stopped "$rt" "$id"; then
              timed $(rt_cmd "$rt") delete "$id"
            else
              RC=1
              echo "\`state $id\` never said stopped (5 s)" >"$TMP/err"
            fi
            record "delete|$cfg|$rt"
            [ "$RC" -eq 0 ] && continue
          fi
        fi
        kill_ctr "$rt" "$id"
      done
    done
  done
  progress_end
}

# exec: one `sleep` container per runtime and config, then ROUNDS x `exec ID /bin/true`
# (and, for an ocisbx with exec trees, `exec --kill-tree ID /bin/true` right after it; with
# per-exec cgroups, `exec --memory 1g --pids-limit 1000 ID /bin/true`: a cgroup made,
# joined, its usage read and removed).
phase_exec ()
{
  local i cfg rt id
  declare -A live=() tree=() percg=()
  # an ocisbx build with exec trees: `exec --kill-tree` too (issue 18); with per-exec
  # cgroups, `exec --memory --pids-limit` (issue 31)
  for rt in "${RTS[@]}"; do
    $(rt_cmd "$rt") features 2>/dev/null | grep -q exec.kill-tree && tree[$rt]=1
    $(rt_cmd "$rt") features 2>/dev/null | grep -q exec.pids-limit && percg[$rt]=1
  done
  for cfg in $CONFIGS; do
    for rt in "${RTS[@]}"; do
      id=ocisbxbench-$BENCHID-$rt-$cfg-sleep
      timed $(rt_cmd "$rt") create -b "$TMP/b/$cfg-$rt-sleep" "$id"
      [ "$RC" -eq 0 ] && timed $(rt_cmd "$rt") start "$id"
      if [ "$RC" -eq 0 ]; then
        live[$cfg-$rt]=$id
      else
        record "exec|$cfg|$rt"   # counts as a failure, with the create/start error
        kill_ctr "$rt" "$id"
      fi
    done
  done
  for ((i = 1; i <= ROUNDS; i++)); do
    progress exec "$i" "$ROUNDS"
    for cfg in $CONFIGS; do
      for rt in "${RTS[@]}"; do
        id=${live[$cfg-$rt]:-}
        [ -n "$id" ] || continue
        gave_up "exec|$cfg|$rt" && continue
        timed $(rt_cmd "$rt") exec "$id" /bin/true
        record "exec|$cfg|$rt"
        if [ -n "${tree[$rt]:-}" ] && ! gave_up "exectree|$cfg|$rt"; then
          timed $(rt_cmd "$rt") exec --kill-tree "$id" /bin/true
          record "exectree|$cfg|$rt"
        fi
        if [ -n "${percg[$rt]:-}" ] && ! gave_up "execcg|$cfg|$rt"; then
          timed $(rt_cmd "$rt") exec --memory 1g --pids-limit 1000 "$id" /bin/true
          record "execcg|$cfg|$rt"
        fi
      done
    done
  done
  progress_end
  for cfg in $CONFIGS; do
    for rt in "${RTS[@]}"; do
      [ -n "${live[$cfg-$rt]:-}" ] && kill_ctr "$rt" "${live[$cfg-$rt]}"
    done
  done
}

# rss: peak RSS (KiB) of `RT run`, as GNU time reports it (the largest of the process and
# the children it waited for), over min(ROUNDS, 5) runs.
phase_rss ()
{
  local i cfg rt id n=$((ROUNDS < 5 ? ROUNDS : 5))
  if [ ! -x /usr/bin/time ]; then
    echo "bench: /usr/bin/time missing (apt-get install time): rss skipped" >&2
    return 0
  fi
  for ((i = 1; i <= n; i++)); do
    progress rss "$i" "$n"
    for cfg in $CONFIGS; do
      for rt in floor "${RTS[@]}"; do
        gave_up "rss|$cfg|$rt" && continue
        id=ocisbxbench-$BENCHID-$rt-$cfg-rss-$i
        rm -f "$TMP/rss"
        if [ "$rt" = floor ]; then
          timed /usr/bin/time -f %M -o "$TMP/rss" "$TMP/floor" "$TMP/rootfs-$cfg" /bin/true
        else
          timed /usr/bin/time -f %M -o "$TMP/rss" $(rt_cmd "$rt") run -b "$TMP/b/$cfg-$rt" "$id"
        fi
        if [ "$RC" -eq 0 ] && [ -s "$TMP/rss" ]; then
          record_value "rss|$cfg|$rt" KiB "$(tail -1 "$TMP/rss")"
        else
          [ "$RC" -eq 0 ] && RC=1
          record "rss|$cfg|$rt" KiB
          kill_ctr "$rt" "$id"
        fi
      done
    done
  done
  progress_end
}

# mem_try CONFIG RT KIB: does `RT run /bin/true` of CONFIG succeed under memory.limit = KIB KiB?
mem_try ()
{
  local cfg=$1 rt=$2 kib=$3 id
  MEM_TRIAL=$((MEM_TRIAL + 1))
  id=ocisbxbench-$BENCHID-$rt-mem-$MEM_TRIAL
  mkconf "$cfg" "$rt" "mem-$MEM_TRIAL" "$TMP/b/mem-$cfg-$rt" --memory $((kib * 1024)) || return 1
  timed $(rt_cmd "$rt") run -b "$TMP/b/mem-$cfg-$rt" "$id"
  kill_ctr "$rt" "$id"
  [ "$RC" -eq 0 ] && return 0
  MEM_LASTERR[$cfg|$rt]="at $kib KiB: exit $RC: $(tr '\n' ' ' <"$TMP/err" | cut -c1-200)"
  return 1
}

# mem: for each of MEM_CONFIGS (default: CONFIGS), bisect the smallest memory limit, 64 MiB
# down to 64 KiB, to the page (4 KiB); the result is then run 3 more times (a limit that
# passes 3/3 is trustworthy).  Arrays keyed "CONFIG|RT".
declare -A MEM_MIN=() MEM_VERIFY=() MEM_LASTERR=() MEM_BISECT=()
MEM_TRIAL=0
phase_mem ()
{
  local cfg rt lo hi mid ok v step k
  for cfg in ${MEM_CONFIGS:-$CONFIGS}; do
    for rt in "${RTS[@]}"; do
      k="$cfg|$rt"
      printf 'bench: mem    %s %s ' "$cfg" "$rt" >&2
      lo=64 hi=65536
      if ! mem_try "$cfg" "$rt" $hi; then
        MEM_MIN[$k]=">65536"
        printf 'fails at 64 MiB\n' >&2
        continue
      fi
      if mem_try "$cfg" "$rt" $lo; then
        hi=$lo
      else
        while [ $((hi - lo)) -gt 4 ]; do
          mid=$(((lo + hi) / 2 / 4 * 4))
          [ "$mid" -le "$lo" ] && mid=$((lo + 4))
          if mem_try "$cfg" "$rt" $mid; then hi=$mid; else lo=$mid; fi
          printf '.' >&2
        done
      fi
      # The edge is fuzzy (page cache, kernel objects): raise the limit by ~6% until it
      # passes 3 runs out of 3 (at most 8 steps).
      MEM_BISECT[$k]=$hi
      for step in 1 2 3 4 5 6 7 8 9; do
        ok=0
        for v in 1 2 3; do mem_try "$cfg" "$rt" $hi && ok=$((ok + 1)); done
        [ $ok = 3 ] || [ $step = 9 ] && break
        hi=$(((hi + hi / 16 + 3) / 4 * 4))
      done
      MEM_MIN[$k]=$hi MEM_VERIFY[$k]=$ok
      printf ' bisection %s KiB, %s KiB passes %d/3\n' "${MEM_BISECT[$k]}" "$hi" "$ok" >&2
    done
  done
}
