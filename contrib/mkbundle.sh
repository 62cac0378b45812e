#!/bin/sh
# Turn a root filesystem into an OCI bundle that `ocisbx run` can start.
#
#   contrib/mkbundle.sh [-r RUNTIME] BUNDLE --busybox        [-- CMD ARGS...]
#   contrib/mkbundle.sh [-r RUNTIME] BUNDLE --rootfs DIR     [-- CMD ARGS...]
#   contrib/mkbundle.sh [-r RUNTIME] BUNDLE --tar FILE.tar[.gz|.xz]  [-- CMD ARGS...]
#
# --busybox builds a tiny rootfs from Debian's busybox-static; --rootfs uses DIR in place
# (a plain directory or a btrfs subvolume: nothing is copied); --tar extracts FILE into
# BUNDLE/rootfs.  config.json comes from `RUNTIME spec`; the process is CMD (default: sh),
# with a terminal when standard input is one.
set -eu
runtime=${OCI_RUNTIME:-$(dirname "$0")/../ocisbx}
if [ "${1:-}" = "-r" ]; then runtime=$2; shift 2; fi
[ $# -ge 2 ] || { sed -n '2,12p' "$0" >&2; exit 1; }
bundle=$1; shift
mode=$1; shift
src=""
case "$mode" in
  --busybox) ;;
  --rootfs|--tar) src=$1; shift ;;
  *) echo "mkbundle.sh: unknown source $mode" >&2; exit 1 ;;
esac
[ "${1:-}" = "--" ] && shift

mkdir -p "$bundle"
bundle=$(cd "$bundle" && pwd)
rootfs="$bundle/rootfs"
case "$mode" in
  --busybox)
    bb=/bin/busybox
    [ -x "$bb" ] || { echo "mkbundle.sh: $bb not found: apt-get install busybox-static" >&2; exit 1; }
    mkdir -p "$rootfs/bin" "$rootfs/sbin" "$rootfs/usr/bin" "$rootfs/usr/sbin" "$rootfs/proc" \
             "$rootfs/sys" "$rootfs/dev" "$rootfs/tmp" "$rootfs/etc" "$rootfs/root"
    cp "$bb" "$rootfs/bin/busybox"
    # Relative applet links, so they resolve inside the container.
    "$bb" --list-full | while read -r applet; do
      case "$applet" in
        bin/*) target=busybox ;;
        sbin/*) target=../bin/busybox ;;
        usr/bin/*|usr/sbin/*) target=../../bin/busybox ;;
        *) continue ;;
      esac
      [ -e "$rootfs/$applet" ] || ln -s "$target" "$rootfs/$applet"
    done
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$rootfs/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' > "$rootfs/etc/group"
    ;;
  --rootfs)
    rootfs=$(cd "$src" && pwd) ;;
  --tar)
    mkdir -p "$rootfs"
    tar -xf "$src" -C "$rootfs" ;;
esac

rm -f "$bundle/config.json"
"$runtime" spec --bundle "$bundle"
terminal=false
[ -t 0 ] && terminal=true
python3 - "$bundle/config.json" "$rootfs" "$terminal" "$@" <<'PY'
import json, os, sys
path, rootfs, terminal, args = sys.argv[1], sys.argv[2], sys.argv[3] == "true", sys.argv[4:]
cfg = json.load(open(path))
bundle = os.path.dirname(os.path.abspath(path))
cfg["root"]["path"] = "rootfs" if rootfs == os.path.join(bundle, "rootfs") else rootfs
cfg["process"]["terminal"] = terminal
if args:
    cfg["process"]["args"] = args
json.dump(cfg, open(path, "w"), indent=2)
PY
echo "bundle ready: $bundle (run it with: $runtime run -b $bundle NAME)"
