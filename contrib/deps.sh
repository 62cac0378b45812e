#!/bin/sh
# Install what ocisbx needs to build and to run its tests, on Debian 12 (as root).
#   contrib/deps.sh                 build + demo dependencies
#   contrib/deps.sh --tests         also every package a test uses (bats, runc/crun as
#                                   references, podman, conmon, catatonit, ...) and
#                                   stress-ng (the load of `make check-stress`)
#   contrib/deps.sh --bench         also what contrib/bench/ uses (runc and crun to compare
#                                   with, GNU time, gnuplot for the plots, perf and strace)
#   contrib/deps.sh --list [--tests] [--bench]  print the package names, install nothing
# A test that needs a tool says so with requires_tool CMD PACKAGE (tests/helpers/common.bash);
# tests/packaging.bats checks that every PACKAGE named there is in TESTS below.
set -eu
BUILD="build-essential autoconf automake libtool pkg-config libyajl-dev libseccomp-dev libcap-dev
       libsystemd-dev busybox-static python3 ca-certificates"
TESTS="bats python3-jsonschema golang-github-opencontainers-specs-dev runc crun podman conmon
       catatonit slirp4netns uidmap iproute2 procps util-linux psmisc strace btrfs-progs time acl bsdutils
       groff-base git systemd dbus docker.io containerd tini python3-grpcio tmux
       clang libclang-rt-dev stress-ng"
BENCH="runc crun time gnuplot-nox linux-perf strace"
tests=no bench=no list=no
for a in "$@"; do
  case "$a" in
    --tests) tests=yes ;;
    --bench) bench=yes ;;
    --list) list=yes ;;
    *) echo "usage: $0 [--tests] [--bench] [--list]" >&2; exit 2 ;;
  esac
done
pkgs=$BUILD
[ "$tests" = yes ] && pkgs="$pkgs $TESTS"
[ "$bench" = yes ] && pkgs="$pkgs $BENCH"
pkgs=$(printf '%s\n' $pkgs | awk '!seen[$0]++')
if [ "$list" = yes ]; then
  printf '%s\n' $pkgs
  exit 0
fi
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
# The engine tests start dockerd and containerd themselves, each with its own dirs: the
# packages must not start them as system services (a policy-rc.d for the install only).
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
  policy=/usr/sbin/policy-rc.d
  printf '#!/bin/sh\n# contrib/deps.sh: no service starts while it installs\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
