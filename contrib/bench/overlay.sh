# The overlay phases of contrib/bench/startup.sh (sourced, bash), for a runtime with
# overlay runs (ocisbx: io.github.ocisbx.rootfs.overlay in its features).
#
# ovlsys: what the overlay itself costs, in a way a busy machine hardly blurs: ovlcost.c
# mounts the minimal rootfs onto itself as a plain run does (open_tree + move_mount) and
# as `run --ephemeral` does (tmpfs, upper/ work/, overlay, move_mount), 200 times each,
# min(ROUNDS, 10) times; keys ovlsys|bind|RT, ovlsys|overlay|RT (CPU µs per mount) and
# ovlwall|bind|RT, ovlwall|overlay|RT (wall µs).  The `run --ephemeral` rows of the run
# phase show the same on the whole command, blurred by the machine's load.
#
# btrfs: an ephemeral run on a btrfs subvolume works on a snapshot of it, and a snapshot
# copies no data (O(1)).
#
# A btrfs on a sparse 3 GiB loop file (in $TMP) holds two subvolumes, each a copy of the
# minimal rootfs: "small" (that alone, ~2 MiB) and "big" (plus a 1 GiB file of random
# data).  ROUNDS x `run --ephemeral` of each, alternating (keys btrfs|small|RT and
# btrfs|big|RT: the big one's ratio is to the small one's).  Then the space the file
# system uses (statfs: blocks - free) is read before, and while a `create --ephemeral` of
# "big" exists (its snapshot made: keys btrfs_used|before|RT, btrfs_used|snapshot|RT).
# Only runtimes with overlay runs (ocisbx); skipped, with a reason, without btrfs-progs,
# the kernel's btrfs or a free loop device.

# overlay_rt: the first runtime with overlay runs ("": none).
overlay_rt ()
{
  local r
  for r in "${RTS[@]}"; do
    $(rt_cmd "$r") features 2>/dev/null | grep -q io.github.ocisbx.rootfs.overlay && { echo "$r"; return; }
  done
}

phase_ovlsys ()
{
  local rt i n=$((ROUNDS < 10 ? ROUNDS : 10)) what cpu wall
  rt=$(overlay_rt)
  [ -n "$rt" ] || { echo "bench: ovlsys: no runtime with overlay runs: skipped" >&2; return 0; }
  gcc -O2 -Wall -o "$TMP/ovlcost" "$here/ovlcost.c" || { echo "bench: ovlsys: ovlcost.c: skipped" >&2; return 0; }
  for ((i = 1; i <= n; i++)); do
    progress ovlsys "$i" "$n"
    "$TMP/ovlcost" "$TMP/rootfs-minimal" 200 >"$TMP/ovlcost.out" 2>"$TMP/err"
    RC=$?
    if [ "$RC" -ne 0 ]; then
      record "ovlsys|overlay|$rt" us
      continue
    fi
    while read -r what cpu wall; do
      record_value "ovlsys|$what|$rt" us "$cpu"
      record_value "ovlwall|$what|$rt" us "$wall"
    done <"$TMP/ovlcost.out"
  done
  progress_end
}

# btrfs_used DIR: the KiB the file system of DIR uses.
btrfs_used ()
{
  sync -f "$1"
  stat -f -c '%b %f %S' "$1" | awk '{ printf "%d\n", ($1 - $2) * $3 / 1024 }'
}

phase_btrfs ()
{
  local rt i sv id mnt=$TMP/btrfs
  rt=$(overlay_rt)
  [ -n "$rt" ] || { echo "bench: btrfs: no runtime with overlay runs: skipped" >&2; return 0; }
  command -v mkfs.btrfs >/dev/null && command -v btrfs >/dev/null ||
    { echo "bench: btrfs: no mkfs.btrfs/btrfs (apt-get install btrfs-progs): skipped" >&2; return 0; }
  grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null ||
    { echo "bench: btrfs: the kernel has no btrfs: skipped" >&2; return 0; }
  printf 'bench: btrfs  making a btrfs with a 1 GiB subvolume\n' >&2
  truncate -s 3G "$TMP/btrfs.img" && mkfs.btrfs -q "$TMP/btrfs.img" >/dev/null && mkdir -p "$mnt" &&
    mount -o loop "$TMP/btrfs.img" "$mnt" ||
    { echo "bench: btrfs: cannot make or loop-mount a btrfs in $TMP: skipped" >&2; return 0; }
  for sv in small big; do
    btrfs -q subvolume create "$mnt/$sv" >/dev/null && cp -a "$TMP/rootfs-minimal/." "$mnt/$sv/" &&
      python3 "$here/mkconfig.py" minimal "$TMP/base/config.json" "$TMP/b/btrfs-$sv" "$mnt/$sv" ||
      { echo "bench: btrfs: cannot make the subvolume $sv: skipped" >&2; umount "$mnt"; return 0; }
  done
  head -c 1G /dev/urandom >"$mnt/big/data"
  for ((i = 1; i <= ROUNDS; i++)); do
    progress btrfs "$i" "$ROUNDS"
    for sv in small big; do
      gave_up "btrfs|$sv|$rt" && continue
      id=ocisbxbench-$BENCHID-$rt-btrfs-$sv-$i
      timed $(rt_cmd "$rt") run --ephemeral -b "$TMP/b/btrfs-$sv" "$id"
      record "btrfs|$sv|$rt"
      [ "$RC" -eq 0 ] || kill_ctr "$rt" "$id"
    done
  done
  progress_end
  id=ocisbxbench-$BENCHID-$rt-btrfs-used
  record_value "btrfs_used|before|$rt" KiB "$(btrfs_used "$mnt")"
  timed $(rt_cmd "$rt") create --ephemeral -b "$TMP/b/btrfs-big" "$id"
  if [ "$RC" -eq 0 ] && [ -d "$mnt/.big.ocisbx-$id" ]; then
    record_value "btrfs_used|snapshot|$rt" KiB "$(btrfs_used "$mnt")"
  else
    [ "$RC" -eq 0 ] && { RC=1; echo "no snapshot $mnt/.big.ocisbx-$id" >"$TMP/err"; }
    record "btrfs_used|snapshot|$rt" KiB
  fi
  kill_ctr "$rt" "$id"
  umount "$mnt" || umount -l "$mnt"
  rm -f "$TMP/btrfs.img"
}
