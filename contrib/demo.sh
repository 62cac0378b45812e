#!/bin/sh
# Build a busybox bundle and run a container that prints a greeting.
#   contrib/demo.sh [PATH/TO/ocisbx]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
runtime=${1:-$here/../ocisbx}
demo=$(mktemp -d /tmp/ocisbx-demo.XXXXXX)
trap 'rm -rf "$demo"' EXIT
OCI_RUNTIME=$runtime "$here/mkbundle.sh" "$demo/bundle" --busybox -- \
  sh -c 'echo "Hello from a busybox container run by ocisbx! (hostname $(hostname), pid $$)"' </dev/null >/dev/null
"$runtime" --root "$demo/state" run -b "$demo/bundle" "demo-$$"
