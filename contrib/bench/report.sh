# The report of contrib/bench/startup.sh (sourced, bash): a table on stdout, a TSV file.

METRICS="run cpu create start delete exec rss"
declare -A LABEL=([run]="run /bin/true" [cpu]="CPU of run" [create]="create" [start]="start" [delete]="delete"
                  [exec]="exec /bin/true" [rss]="peak RSS of run")

# median_of KEY: the median alone ("" when there is no sample).
median_of ()
{
  [ -n "${OK[$1]+x}" ] && [ "${OK[$1]}" -gt 0 ] || return 0
  stats "$1" | cut -d' ' -f1
}

# ratio A B: A/B with two decimals ("-" when either is missing).
ratio ()
{
  [ -n "$1" ] && [ -n "$2" ] || { echo -; return; }
  awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f\n", a / b; else print "-" }'
}

# cell KEY: "median (x ratio to crun) [fails]" for the table.
cell ()
{
  local key=$1 m r base f
  [ -n "${OK[$key]+x}" ] || { echo "n/a"; return; }
  m=$(median_of "$key")
  f=${FAIL[$key]}
  if [ -z "$m" ]; then
    echo "FAIL ${f}/${f}"
    return
  fi
  base=$(median_of "${key%|*}|crun")
  r=""
  [ -n "$base" ] && [ "${key##*|}" != crun ] && r=" x$(ratio "$m" "$base")"
  [ "$f" -gt 0 ] && r+=" ${f}fail"
  echo "$m$r"
}

report ()
{
  local metric cfg rt cols=(floor "${RTS[@]}") line unit key
  echo
  echo "== ocisbx start-up benchmark: $ROUNDS rounds, runtimes alternating: ${RTS[*]}"
  echo "   $(date -u '+%F %T UTC'), kernel $(uname -r), $(nproc) CPUs, cgroups $CGROUP_NOTE"
  echo "   load average at start / end: $META_LOAD_START / $META_LOAD_END"
  if awk -v l="${META_LOAD_START%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
    echo "   WARNING: the machine was busy (load > CPUs/2): expect noisy numbers"
  fi
  for rt in "${RTS[@]}"; do echo "   ${VERSION[$rt]}"; done
  [ ${#MISSING[@]} -gt 0 ] && echo "   not found, skipped: ${MISSING[*]}"
  echo "   base config from \`$BASE_SPEC_FROM spec\`; podman seccomp: ${SECCOMP:-none}"
  echo "   medians (CPU: 10 %-trimmed means); xN = ratio to crun's; Nfail = failed attempts (left out)"
  echo
  line=$(printf '%-17s %-8s %-4s' metric config unit)
  for rt in "${cols[@]}"; do line+=$(printf ' %-19s' "$rt"); done
  echo "$line"
  for metric in $METRICS; do
    for cfg in $CONFIGS; do
      unit=""
      for rt in "${cols[@]}"; do
        key="$metric|$cfg|$rt"
        [ -n "${OK[$key]+x}" ] && unit=${UNIT[$key]}
      done
      [ -n "$unit" ] || continue
      line=$(printf '%-17s %-8s %-4s' "${LABEL[$metric]}" "$cfg" "$unit")
      for rt in "${cols[@]}"; do
        if [ "$rt" = floor ] && [ -z "${OK[$metric|$cfg|floor]+x}" ]; then
          line+=$(printf ' %-19s' "")
        else
          line+=$(printf ' %-19s' "$(cell "$metric|$cfg|$rt")")
        fi
      done
      echo "$line"
    done
  done
  if [ ${#MEM_MIN[@]} -gt 0 ]; then
    line=$(printf '%-17s %-8s %-4s %-19s' "min memory.limit" minimal KiB "")
    for rt in "${RTS[@]}"; do
      key=${MEM_MIN[$rt]:-n/a}
      [ -n "${MEM_VERIFY[$rt]:-}" ] && key+=" ${MEM_VERIFY[$rt]}/3ok"
      [ -n "${MEM_BISECT[$rt]:-}" ] && [ "${MEM_BISECT[$rt]}" != "${MEM_MIN[$rt]}" ] &&
        key+=" (${MEM_BISECT[$rt]})"
      line+=$(printf ' %-19s' "$key")
    done
    echo "$line"
  fi
  report_errors
}

report_errors ()
{
  local key rt any=0
  for key in "${KEYS[@]}"; do
    [ -n "${FIRSTERR[$key]:-}" ] || continue
    [ $any = 1 ] || { echo; echo "first error of each failing measurement:"; any=1; }
    echo "  $key (${FAIL[$key]} failed): ${FIRSTERR[$key]}"
  done
  for rt in "${!MEM_LASTERR[@]}"; do
    [ $any = 1 ] || { echo; echo "first error of each failing measurement:"; any=1; }
    echo "  mem|minimal|$rt (last failure, expected below the limit): ${MEM_LASTERR[$rt]}"
  done
}

# write_tsv FILE: one line per measurement; '#' lines carry the context.
write_tsv ()
{
  local file=$1 key s rt base m metric cfg
  {
    echo "# ocisbx start-up benchmark $(date -u +%FT%TZ) kernel=$(uname -r) cpus=$(nproc) rounds=$ROUNDS"
    echo "# load_start=$META_LOAD_START load_end=$META_LOAD_END cgroups=$CGROUP_NOTE"
    for rt in "${RTS[@]}"; do echo "# runtime $rt ${VERSION[$rt]}"; done
    printf 'metric\tconfig\truntime\tunit\tmedian\tmin\tmax\tok\tfail\tratio_crun\n'
    for key in "${KEYS[@]}"; do
      IFS='|' read -r metric cfg rt <<<"$key"
      s=$(stats "$key")
      m=${s%% *}
      [ "$m" = - ] && m=""
      base=$(median_of "$metric|$cfg|crun")
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$metric" "$cfg" "$rt" "${UNIT[$key]}" \
        "$(tr ' ' '\t' <<<"$s")" "${OK[$key]}" "${FAIL[$key]}" "$(ratio "$m" "$base")"
    done
    for rt in "${!MEM_MIN[@]}"; do
      # median = smallest limit passing 3/3; min = where the bisection ended.
      printf 'min_memory_limit\tminimal\t%s\tKiB\t%s\t%s\t-\t%s\t%s\t%s\n' "$rt" "${MEM_MIN[$rt]}" \
        "${MEM_BISECT[$rt]:--}" \
        "${MEM_VERIFY[$rt]:-0}" "$((3 - ${MEM_VERIFY[$rt]:-3}))" \
        "$(ratio "${MEM_MIN[$rt]/>/}" "${MEM_MIN[crun]:-}")"
    done
  } >"$file"
}
