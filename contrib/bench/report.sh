# The report of contrib/bench/startup.sh (sourced, bash): a table on stdout, a TSV file.

METRICS="run runeph runovl cpu cpueph cpuovl create start delete exec exectree execcg rss"
declare -A LABEL=([run]="run /bin/true" [cpu]="CPU of run" [create]="create" [start]="start" [delete]="delete"
                  [exec]="exec /bin/true" [exectree]="exec --kill-tree" [execcg]="exec own cgroup" [rss]="peak RSS of run"
                  [runeph]="run --ephemeral" [runovl]="run --ovl-upper" [cpueph]="CPU --ephemeral"
                  [cpuovl]="CPU --ovl-upper")

# crun_key KEY: the crun measurement KEY ("metric|config|runtime") is compared with: the
# same metric's, but plain `exec` for `exec --kill-tree` and the per-exec cgroup (which
# crun has not).  The overlay runs (runeph, runovl, cpueph, cpuovl: neither runc nor crun
# has them) are compared with the same runtime's plain `run` instead (own_key).
crun_key ()
{
  local metric=${1%%|*} rest=${1#*|}
  [ "$metric" = exectree ] || [ "$metric" = execcg ] && metric=exec
  echo "$metric|${rest%|*}|crun"
}

# own_key KEY: for an overlay run's KEY, the same runtime's plain run ("" otherwise).
own_key ()
{
  case "${1%%|*}" in
    runeph|runovl) echo "run|${1#*|}" ;;
    cpueph|cpuovl) echo "cpu|${1#*|}" ;;
    btrfs) [ "${1#btrfs|big|}" != "$1" ] && echo "btrfs|small|${1##*|}" ;;
    ovlsys|ovlwall) [ "${1#*|overlay|}" != "$1" ] && echo "${1%%|*}|bind|${1##*|}" ;;
    btrfs_used) [ "${1#btrfs_used|snapshot|}" != "$1" ] && echo "btrfs_used|before|${1##*|}" ;;
  esac
}

# base_key KEY: what KEY's ratio is to.
base_key ()
{
  local own
  own=$(own_key "$1")
  if [ -n "$own" ]; then echo "$own"; else crun_key "$1"; fi
}

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

# cell KEY: "median (x ratio to crun) [fails]" for the table; where crun has no such
# command (`events`), the ratio to runc, marked "(runc)".
cell ()
{
  local key=$1 m r base f ref="" ck
  [ -n "${OK[$key]+x}" ] || { echo "n/a"; return; }
  m=$(median_of "$key")
  f=${FAIL[$key]}
  if [ -z "$m" ]; then
    echo "FAIL ${f}/${f}"
    return
  fi
  r=""
  ck=$(own_key "$key")
  if [ -n "$ck" ]; then
    # an overlay run: its ratio to the same runtime's plain run, and the difference
    base=$(median_of "$ck")
    [ -n "$base" ] && r=" x$(ratio "$m" "$base") $(awk -v a="$m" -v b="$base" 'BEGIN { printf "%+.2f", a - b }')"
  else
    ck=$(crun_key "$key")
    base=$(median_of "$ck")
    if [ -z "${OK[$ck]+x}" ] && [ "${key##*|}" != runc ]; then
      base=$(median_of "${ck%|*}|runc") ref=" (runc)"
    fi
    [ -n "$base" ] && [ "${key##*|}" != crun ] && r=" x$(ratio "$m" "$base")$ref"
  fi
  [ "$f" -gt 0 ] && r+=" ${f}fail"
  echo "$m$r"
}

# report_header WHAT: the lines above a report: when, where, the load, the runtimes.
report_header ()
{
  local rt
  echo
  echo "== ocisbx $1, runtimes alternating: ${RTS[*]}"
  echo "   $(date -u '+%F %T UTC'), kernel $(uname -r), $(nproc) CPUs, cgroups $CGROUP_NOTE"
  echo "   load average at start / end: $META_LOAD_START / $META_LOAD_END"
  if awk -v l="${META_LOAD_START%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
    echo "   WARNING: the machine was busy (load > CPUs/2): expect noisy numbers"
  fi
  for rt in "${RTS[@]}"; do echo "   ${VERSION[$rt]}"; done
  [ ${#MISSING[@]} -gt 0 ] && echo "   not found, skipped: ${MISSING[*]}"
  echo "   base config from \`$BASE_SPEC_FROM spec\`; podman seccomp: ${SECCOMP:-none}"
  echo "   medians (CPU: 10 %-trimmed means); xN = ratio to crun's; Nfail = failed attempts (left out)"
}

report ()
{
  local metric cfg rt cols=(floor "${RTS[@]}") line unit key
  report_header "start-up benchmark: $ROUNDS rounds"
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
  mem_rows
  overlay_rows
  report_errors
}

# overlay_rows: the lines of overlay.sh's phases, for the runtime they measured.
overlay_rows ()
{
  local rt key row
  for rt in "${RTS[@]}"; do
    [ -n "${OK[ovlsys|bind|$rt]+x}" ] || continue
    echo
    echo "ovlsys: the rootfs mounted as a plain run does and as an ephemeral one does (ovlcost.c, per mount)"
    for row in "ovlsys|bind|CPU, bind onto itself (plain run)" "ovlsys|overlay|CPU, tmpfs + overlay (--ephemeral)" \
      "ovlwall|bind|wall, bind onto itself (plain run)" "ovlwall|overlay|wall, tmpfs + overlay (--ephemeral)"; do
      key="${row%|*}|$rt"
      [ -n "${OK[$key]+x}" ] || continue
      printf '  %-44s %-4s %s\n' "${row##*|}" "${UNIT[$key]}" "$(cell "$key")"
    done
  done
  for rt in "${RTS[@]}"; do
    [ -n "${OK[btrfs|small|$rt]+x}" ] || continue
    echo
    echo "btrfs ($rt): run --ephemeral on a subvolume (a snapshot of it), used space (statfs)"
    for row in "btrfs|small|run --ephemeral, subvolume of ~2 MiB" "btrfs|big|run --ephemeral, subvolume of 1 GiB" \
      "btrfs_used|before|space used, no snapshot" "btrfs_used|snapshot|space used, a snapshot of the 1 GiB one"; do
      key="${row%|*}|$rt"
      [ -n "${OK[$key]+x}" ] || continue
      printf '  %-44s %-4s %s\n' "${row##*|}" "${UNIT[$key]}" "$(cell "$key")"
    done
  done
}

# mem_rows: the "min memory.limit" line of each config (phase_mem), as in the table.
mem_rows ()
{
  local cfg rt line key k
  [ ${#MEM_MIN[@]} -gt 0 ] || return 0
  for cfg in ${MEM_CONFIGS:-$CONFIGS}; do
    line=$(printf '%-17s %-8s %-4s %-19s' "min memory.limit" "$cfg" KiB "")
    for rt in "${RTS[@]}"; do
      k="$cfg|$rt"
      key=${MEM_MIN[$k]:-n/a}
      [ -n "${MEM_VERIFY[$k]:-}" ] && key+=" ${MEM_VERIFY[$k]}/3ok"
      [ -n "${MEM_BISECT[$k]:-}" ] && [ "${MEM_BISECT[$k]}" != "${MEM_MIN[$k]}" ] &&
        key+=" (${MEM_BISECT[$k]})"
      line+=$(printf ' %-19s' "$key")
    done
    echo "$line"
  done
}

# mem_tsv_rows: the TSV lines of phase_mem: median = the smallest limit passing 3/3,
# min = where the bisection ended.
mem_tsv_rows ()
{
  local key
  for key in "${!MEM_MIN[@]}"; do
    printf 'min_memory_limit\t%s\t%s\tKiB\t%s\t%s\t-\t%s\t%s\t%s\n' "${key%|*}" "${key#*|}" "${MEM_MIN[$key]}" \
      "${MEM_BISECT[$key]:--}" "${MEM_VERIFY[$key]:-0}" "$((3 - ${MEM_VERIFY[$key]:-3}))" \
      "$(ratio "${MEM_MIN[$key]/>/}" "${MEM_MIN[${key%|*}|crun]:-}")"
  done
}

report_errors ()
{
  local key rt any=0
  for key in "${KEYS[@]}"; do
    [ -n "${FIRSTERR[$key]:-}" ] || continue
    [ $any = 1 ] || { echo; echo "first error of each failing measurement:"; any=1; }
    echo "  $key (${FAIL[$key]} failed): ${FIRSTERR[$key]}"
  done
  for key in "${!MEM_LASTERR[@]}"; do
    [ $any = 1 ] || { echo; echo "first error of each failing measurement:"; any=1; }
    echo "  mem|$key (last failure, expected below the limit): ${MEM_LASTERR[$key]}"
  done
}

# write_tsv FILE WHAT COL1 COL2: one line per measurement of key "COL1|COL2|RUNTIME";
# '#' lines carry the context.
write_tsv ()
{
  local file=$1 key s rt m a b
  {
    echo "# ocisbx $2 $(date -u +%FT%TZ) kernel=$(uname -r) cpus=$(nproc) rounds=$ROUNDS"
    echo "# load_start=$META_LOAD_START load_end=$META_LOAD_END cgroups=$CGROUP_NOTE"
    for rt in "${RTS[@]}"; do echo "# runtime $rt ${VERSION[$rt]}"; done
    printf '%s\t%s\truntime\tunit\tmedian\tmin\tmax\tok\tfail\tratio_crun\n' "$3" "$4"
    for key in "${KEYS[@]}"; do
      IFS='|' read -r a b rt <<<"$key"
      s=$(stats "$key")
      m=${s%% *}
      [ "$m" = - ] && m=""
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$a" "$b" "$rt" "${UNIT[$key]}" \
        "$(tr ' ' '\t' <<<"$s")" "${OK[$key]}" "${FAIL[$key]}" "$(ratio "$m" "$(median_of "$(base_key "$key")")")"
    done
    mem_tsv_rows
  } >"$file"
}
