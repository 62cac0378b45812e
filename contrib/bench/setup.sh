# Set-up of contrib/bench/startup.sh (sourced, bash, inside the private mount namespace):
# the runtimes, the cgroup layout, the rootfs and the bundles.

declare -A VERSION=()
RTS=() MISSING=()

setup_runtimes ()
{
  local spec name path
  for spec in $RUNTIMES; do
    name=${spec%%=*} path=""
    case "$spec" in *=*) path=${spec#*=} ;; esac
    if ! [[ $name =~ ^[A-Za-z0-9_]+$ ]] || [ "$name" = floor ]; then
      echo "bench: bad runtime name '$name'" >&2
      return 1
    fi
    if [ -z "$path" ]; then
      if [ "$name" = ocisbx ]; then path=$OCISBX; else path=$(command -v "$name"); fi
    fi
    case "$path" in /*|'') ;; *) path=$(cd "$(dirname "$path")" 2>/dev/null && pwd)/${path##*/} ;; esac
    if [ -z "$path" ] || [ ! -x "$path" ]; then
      echo "bench: $name: '${path:-not in PATH}' is not executable: skipped" >&2
      MISSING+=("$name")
      continue
    fi
    RT_PATH[$name]=$path
    RTS+=("$name")
    VERSION[$name]="$path: $("$path" --version 2>/dev/null | head -1)"
  done
  [ ${#RTS[@]} -gt 0 ] || { echo "bench: no runtime to measure" >&2; return 1; }
}

# crun refuses a hybrid layout; in this private mount namespace every runtime sees v1 only.
setup_cgroups ()
{
  CGROUP_NOTE="as found"
  if mountpoint -q /sys/fs/cgroup/unified 2>/dev/null; then
    if umount /sys/fs/cgroup/unified; then
      CGROUP_NOTE="v1 (hybrid cgroup2 at /sys/fs/cgroup/unified unmounted in a private mount ns)"
    else
      echo "bench: could not unmount /sys/fs/cgroup/unified: crun will fail" >&2
      CGROUP_NOTE="hybrid"
    fi
  elif [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
    CGROUP_NOTE="v2"
  fi
}

build_rootfs ()
{
  local rootfs=$1 bb=/bin/busybox applet
  [ -x $bb ] || { echo "bench: $bb not found: apt-get install busybox-static" >&2; return 1; }
  mkdir -p "$rootfs"/{bin,sbin,proc,sys,dev,tmp,etc,root,run}
  cp $bb "$rootfs/bin/busybox"
  for applet in true sh sleep cat ls; do ln -s busybox "$rootfs/bin/$applet"; done
  printf 'root:x:0:0:root:/root:/bin/sh\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\n' >"$rootfs/etc/group"
  # Mount points of the podman config, so no runtime pays for creating them.
  touch "$rootfs"/etc/{hostname,hosts,resolv.conf} "$rootfs/run/.containerenv"
}

base_spec ()
{
  local r
  mkdir -p "$TMP/base"
  for r in /usr/sbin/runc "$(command -v runc)" "$(command -v crun)" "${RT_PATH[ocisbx]:-}"; do
    [ -n "$r" ] && [ -x "$r" ] || continue
    rm -f "$TMP/base/config.json"
    (cd "$TMP/base" && "$r" spec) >/dev/null 2>&1 && [ -s "$TMP/base/config.json" ] && {
      BASE_SPEC_FROM=$r
      return 0
    }
  done
  echo "bench: no runtime could write a default config (runc spec)" >&2
  return 1
}

pick_seccomp ()
{
  local f
  for f in "$here/../seccomp/podman-default.json"; do
    [ -f "$f" ] || continue
    if python3 "$here/mkconfig.py" podman "$TMP/base/config.json" "$TMP/probe" "$TMP/rootfs-podman" \
         --seccomp "$f" --netns "$TMP/netns" --userdata "$TMP/userdata" 2>/dev/null; then
      SECCOMP=$(cd "$(dirname "$f")" && pwd)/${f##*/}
      return 0
    fi
    echo "bench: $f is not an OCI linux.seccomp object, not using it" >&2
  done
  return 1
}

# cgroup_path CONFIG RT SUFFIX: the cgroupsPath of a podman-like bundle ("" for minimal,
# where the runtimes use their default, /<id>).
cgroup_path ()
{
  [ "$1" = podman ] && echo "/ocisbxbench-$BENCHID/libpod-$2-$3"
}

# mkconf CONFIG RT SUFFIX DIR [--memory BYTES] [-- ARGS...]
mkconf ()
{
  local cfg=$1 rt=$2 suffix=$3 dir=$4
  shift 4
  if [ "$cfg" = podman ]; then
    python3 "$here/mkconfig.py" podman "$TMP/base/config.json" "$dir" "$TMP/rootfs-podman" \
      --seccomp "$SECCOMP" --netns "$TMP/netns" --userdata "$TMP/userdata" \
      --nofile "$NOFILE" --cgroups-path "$(cgroup_path podman "$rt" "$suffix")" "$@"
  else
    python3 "$here/mkconfig.py" minimal "$TMP/base/config.json" "$dir" "$TMP/rootfs-minimal" "$@"
  fi
}

setup_bundles ()
{
  local cfg rt
  mkdir -p "$TMP/state" "$TMP/b" "$TMP/userdata/shm"
  # State roots on tmpfs, like /run/{runc,crun,ocisbx}: on /tmp's disk file system the
  # runtimes would pay for inode allocation (ext4 shows up in crun's profile).
  mount -t tmpfs -o mode=0700,size=512m ocisbxbench "$TMP/state" ||
    echo "bench: could not mount a tmpfs for the state roots" >&2
  build_rootfs "$TMP/rootfs-minimal" || return 1
  cp -a "$TMP/rootfs-minimal" "$TMP/rootfs-podman"
  base_spec || return 1
  # podman joins a network namespace it made beforehand: keep one alive on a file.
  touch "$TMP/netns"
  unshare --net="$TMP/netns" true || { echo "bench: cannot make a network namespace" >&2; return 1; }
  echo ocisbxbench >"$TMP/userdata/hostname"
  printf '127.0.0.1 localhost\n::1 localhost\n127.0.1.1 ocisbxbench\n' >"$TMP/userdata/hosts"
  printf 'nameserver 127.0.0.53\n' >"$TMP/userdata/resolv.conf"
  printf 'engine="podman-4.3.1"\n' >"$TMP/userdata/.containerenv"
  NOFILE=$(ulimit -Hn)
  [ "$NOFILE" = unlimited ] || [ "$NOFILE" -gt 1048576 ] && NOFILE=1048576
  SECCOMP=""
  case " $CONFIGS " in
    *" podman "*)
      if ! pick_seccomp; then
        echo "bench: no contrib/seccomp/podman-default.json: podman config skipped" >&2
        CONFIGS=${CONFIGS//podman/}
      fi ;;
  esac
  for cfg in $CONFIGS; do
    case "$cfg" in minimal|podman) ;; *) echo "bench: unknown config $cfg" >&2; return 1 ;; esac
    for rt in "${RTS[@]}"; do
      mkconf "$cfg" "$rt" run "$TMP/b/$cfg-$rt" || return 1
      mkconf "$cfg" "$rt" sleep "$TMP/b/$cfg-$rt-sleep" -- /bin/sleep 3600 || return 1
    done
  done
}
