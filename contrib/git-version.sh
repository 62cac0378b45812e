#!/bin/sh
# contrib/git-version.sh [SRCDIR]: print the commit the source tree SRCDIR (default: .)
# is, for `ocisbx --version`:
#   - a git checkout (SRCDIR is its top): the abbreviated HEAD
#   - a `make dist` tarball: .tarball-git-version (written by the Makefile's dist-hook)
#   - a `git archive`: .git-archive-version (filled in through export-subst, .gitattributes)
#   - else: unknown
srcdir=${1:-.}
top=$(cd "$srcdir" 2>/dev/null && git rev-parse --show-toplevel 2>/dev/null)
if [ -n "$top" ] && [ "$top" -ef "$srcdir" ] && c=$(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null); then
  echo "$c"
  exit 0
fi
for f in .tarball-git-version .git-archive-version; do
  [ -f "$srcdir/$f" ] || continue
  read -r c <"$srcdir/$f" || continue
  case "$c" in
    *Format:*) ;; # .git-archive-version of a checkout, not of an archive
    [0-9a-f][0-9a-f][0-9a-f][0-9a-f]*) echo "$c"; exit 0 ;;
  esac
done
echo unknown
