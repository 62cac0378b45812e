#!/bin/sh
# Install what ocisbx needs to build and to run its tests, on Debian 12 (as root).
#   contrib/deps.sh          build + demo dependencies
#   contrib/deps.sh --tests  also the test suite's (bats, runc/crun as references, podman, conmon, catatonit)
set -eu
BUILD="build-essential autoconf automake libtool pkg-config libyajl-dev libseccomp-dev libcap-dev
       busybox-static python3 ca-certificates"
TESTS="bats python3-jsonschema runc crun podman conmon uidmap iproute2 procps util-linux psmisc
       btrfs-progs time acl catatonit slirp4netns"
pkgs=$BUILD
[ "${1:-}" = "--tests" ] && pkgs="$BUILD $TESTS"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "deps.sh: missing packages:$missing (run as root to install them)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
