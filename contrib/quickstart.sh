#!/bin/sh
# On a fresh Debian 12 machine (as root): install dependencies, build ocisbx, then
#   contrib/quickstart.sh          run the demo container
#   contrib/quickstart.sh check    run the whole test suite (C unit tests + bats)
set -eu
cd "$(dirname "$0")/.."
what=${1:-demo}
if [ "$what" = check ]; then contrib/deps.sh --tests; else contrib/deps.sh; fi
[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure
make -j"$(nproc)"
case "$what" in
  demo) contrib/demo.sh "$PWD/ocisbx" ;;
  # deps.sh --tests installed every tool a test requires: a missing one is a failure
  check) OCISBX_TESTS_ALL_DEPS=1 make check ;;
  *) echo "usage: $0 [demo|check]" >&2; exit 1 ;;
esac
