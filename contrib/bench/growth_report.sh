# The report of contrib/bench/growth.sh (sourced, bash, after report.sh): a table per
# series on stdout, one TSV, and per phase a PNG (gnuplot) with its data beside the TSV.

GROUPS_ORDER="tput mounts many exec procs mem"
declare -A GROUP_SERIES=(
  [tput]="tput tput_cpu tputp tputp_cpu" [mounts]="binds masked binds_cpu masked_cpu"
  [many]="create state list delete create_cpu state_cpu list_cpu delete_cpu" [exec]="exec exec_cpu" [procs]="ps events" [mem]="rss")
declare -A GTITLE=(
  [tput]="start throughput: parallel \`run\`s of the minimal bundle, containers/s (higher is better)"
  [tput_cpu]="CPU per container of those runs, ms"
  [tputp]="start throughput of the podman-like bundle (each run its own cgroupsPath), containers/s (higher is better)"
  [tputp_cpu]="CPU per container of those runs, ms"
  [binds]="\`run\` with N bind mounts (rbind, ro), ms"
  [masked]="\`run\` with N masked paths (directories), ms"
  [binds_cpu]="CPU of \`run\` with N bind mounts, ms"
  [masked_cpu]="CPU of \`run\` with N masked paths, ms"
  [create]="\`create\` with N other containers in --root, ms"
  [state]="\`state\` with N other containers in --root, ms"
  [list]="\`list\` of N + 1 containers, ms"
  [delete]="\`delete\` (of a created container) with N other containers in --root, ms"
  [create_cpu]="CPU of \`create\` with N other containers in --root, ms"
  [state_cpu]="CPU of \`state\` with N other containers in --root, ms"
  [list_cpu]="CPU of \`list\` of N + 1 containers, ms"
  [delete_cpu]="CPU of \`delete\` with N other containers in --root, ms"
  [exec]="exec throughput: \`exec ID /bin/true\` into one container, C at a time, execs/s (higher is better)"
  [exec_cpu]="CPU per exec of those runs, ms"
  [ps]="\`ps\` of a container with N processes (and its init), ms"
  [events]="\`events --stats\` of a container with N processes, ms"
  [rss]="peak RSS of each command (minimal bundle; run-podman: the podman-like one), KiB")
declare -A GXLABEL=([tput]=parallel [tput_cpu]=parallel [tputp]=parallel [tputp_cpu]=parallel [binds]=mounts [masked]=paths
  [binds_cpu]=mounts [masked_cpu]=paths [create]=others [state]=others [list]=others
  [delete]=others [create_cpu]=others [state_cpu]=others [list_cpu]=others [delete_cpu]=others [exec]=concurrent [exec_cpu]=concurrent [ps]=processes [events]=processes
  [rss]=command)
# What one step of X adds (the slope lines).
declare -A GXONE=([binds]=mount [masked]=path [binds_cpu]=mount [masked_cpu]=path [create]=container
  [state]=container [list]=container [delete]=container [create_cpu]=container [state_cpu]=container
  [list_cpu]=container [delete_cpu]=container [exec_cpu]="concurrent exec"
  [tput_cpu]="parallel run" [tputp_cpu]="parallel run" [ps]=process [events]=process)

# g_cols SERIES: the columns of a series: floor when measured, then the runtimes.
g_cols ()
{
  local x
  for x in ${SERIES_XS[$1]:-}; do
    [ -n "${OK[$1|$x|floor]+x}" ] && { echo floor "${RTS[@]}"; return; }
  done
  echo "${RTS[@]}"
}

# g_slopes SERIES: for a lower-is-better series with numeric X, the cost of each added X
# between consecutive points, per runtime (µs, or KiB): flat growth shows as equal steps.
g_slopes ()
{
  local s=$1 rt xs x prev line v pv
  xs=${SERIES_XS[$s]}
  [[ ${xs// /} =~ ^[0-9]+$ ]] && [ "$(wc -w <<<"$xs")" -gt 1 ] || return 0
  case "$s" in tput|tputp|exec|rss) return 0 ;; esac
  line="  per ${GXONE[$s]:-step} added ($(awk '{ for (i = 2; i <= NF; i++) printf "%s%s>%s", (i > 2 ? ", " : ""), $(i-1), $i }' <<<"$xs"), us):"
  for rt in "${RTS[@]}"; do
    line+=" $rt"
    prev="" pv=""
    for x in $xs; do
      v=$(median_of "$s|$x|$rt")
      if [ -n "$prev" ]; then
        if [ -n "$v" ] && [ -n "$pv" ]; then
          line+=$(awk -v a="$pv" -v b="$v" -v xa="$prev" -v xb="$x" 'BEGIN { printf " %.1f", (b - a) * 1000 / (xb - xa) }')
        else
          line+=" -"
        fi
      fi
      prev=$x pv=$v
    done
    line+=" |"
  done
  echo "${line% |}"
}

growth_table ()
{
  local s=$1 x rt line cols
  [ -n "${SERIES_XS[$s]:-}" ] || return 0
  cols=$(g_cols "$s")
  echo
  echo "-- ${GTITLE[$s]}"
  line=$(printf '%-11s' "${GXLABEL[$s]}")
  for rt in $cols; do line+=$(printf ' %-19s' "$rt"); done
  echo "$line"
  for x in ${SERIES_XS[$s]}; do
    line=$(printf '%-11s' "$x")
    for rt in $cols; do line+=$(printf ' %-19s' "$(cell "$s|$x|$rt")"); done
    echo "$line"
  done
  g_slopes "$s"
}

growth_report ()
{
  local g s
  report_header "growth benchmark: $ROUNDS round(s)$([ $QUICK = 1 ] && echo ', QUICK (smoke test sizes)')"
  for g in $GROUPS_ORDER; do
    for s in ${GROUP_SERIES[$g]}; do growth_table "$s"; done
    [ "$g" = mem ] && [ ${#MEM_MIN[@]} -gt 0 ] && { echo; echo "-- smallest memory.limit under which \`run /bin/true\` works"; mem_rows; }
  done
  report_errors
}

# g_has SERIES RT: "y" when RT has a key in SERIES (measured, even if it failed).
g_has ()
{
  local x
  for x in ${SERIES_XS[$1]:-}; do [ -n "${OK[$1|$x|$2]+x}" ] && { echo y; return; }; done
}

# g_plot_data SERIES FILE: "x col..." then one line per X, medians ("NaN" when missing).
g_plot_data ()
{
  local s=$1 x rt line m
  {
    echo "x $(g_cols "$s")"
    for x in ${SERIES_XS[$s]}; do
      line=$x
      for rt in $(g_cols "$s"); do
        m=$(median_of "$s|$x|$rt")
        line+=" ${m:-NaN}"
      done
      echo "$line"
    done
  } >"$2"
}

# g_plot GROUP BASE: BASE-GROUP.png (and its .gp and each series' .dat): per series the
# values (log y) and their ratio to crun.
g_plot ()
{
  local g=$1 base=$2 s n=0 cols ncol crun ref i gp=$2-$1.gp title
  for s in ${GROUP_SERIES[$g]}; do [ -n "${SERIES_XS[$s]:-}" ] && n=$((n + 1)); done
  [ $n -gt 0 ] || return 0
  {
    echo "set terminal pngcairo size 1200,$((n * 330 + 40)) font ',9'"
    echo "set output '$base-$g.png'"
    echo "set multiplot layout $n,2 title 'ocisbx growth benchmark: $g ($(date -u +%F), load ${META_LOAD_START%% *})'"
    echo "set grid; set key top left box opaque; set datafile missing 'NaN'"
    for s in ${GROUP_SERIES[$g]}; do
      [ -n "${SERIES_XS[$s]:-}" ] || continue
      g_plot_data "$s" "$base-$s.dat"
      cols=($(g_cols "$s"))
      ncol=$((${#cols[@]} + 1))
      # the ratio to crun; where crun has no such command (`events`), to runc
      crun="" ref=crun
      for i in "${!cols[@]}"; do
        [ "${cols[$i]}" = crun ] && [ -n "$(g_has "$s" crun)" ] && crun=$((i + 2))
      done
      if [ -z "$crun" ]; then
        ref=runc
        for i in "${!cols[@]}"; do [ "${cols[$i]}" = runc ] && crun=$((i + 2)); done
      fi
      # single quotes: gnuplot runs \`commands\` inside double-quoted strings
      title=${GTITLE[$s]//\`/}
      echo "set title '${title//\'/\'\'}' noenhanced"
      echo "set xlabel '${GXLABEL[$s]}'; set logscale y; set ylabel ''"
      if [ "$s" = rss ]; then
        echo "set style data histograms; set style histogram clustered; set style fill solid 0.7"
        echo "plot for [i=2:$ncol] '$base-$s.dat' using i:xtic(1) title columnhead(i)"
      else
        echo "set style data linespoints"
        echo "plot for [i=2:$ncol] '$base-$s.dat' using 0:i:xtic(1) title columnhead(i)"
      fi
      echo "unset logscale y"
      if [ -n "$crun" ]; then
        echo "set title 'ratio to $ref (1 = as $ref)' noenhanced; set style data linespoints"
        echo "plot for [i=2:$ncol] '$base-$s.dat' using 0:(column(i)/column($crun)):xtic(1) title columnhead(i), 1 notitle dt 2 lc 'black'"
      else
        echo "set multiplot next"
      fi
    done
    echo "unset multiplot"
  } >"$gp"
  if gnuplot "$gp" 2>"$gp.err"; then
    PLOTS+=("$base-$g.png")
  else
    echo "bench: gnuplot failed for $g: $(head -c 300 "$gp.err")" >&2
  fi
  rm -f "$gp.err"
}

# growth_write FILE.tsv: the TSV, then the plots beside it.
growth_write ()
{
  local file=$1 base=${1%.tsv} g
  PLOTS=()
  mkdir -p "$(dirname "$file")"
  write_tsv "$file" "growth benchmark quick=$QUICK" series x
  echo
  echo "summary written to $file"
  if command -v gnuplot >/dev/null; then
    for g in $GROUPS_ORDER; do g_plot "$g" "$base"; done
    for g in "${PLOTS[@]}"; do echo "plot: $g"; done
  else
    echo "gnuplot not found (apt-get install gnuplot-nox): no plots"
  fi
}
