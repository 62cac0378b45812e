#!/bin/bash
# contrib/fresh-check.sh: the README's commands on a fresh Debian 12, as a new user runs
# them.  Debootstraps a minimal bookworm root (once; the base is cached as a tarball),
# copies a clean `git clone` of this tree's HEAD into it (no ../shared beside it), and
# runs `contrib/quickstart.sh` then `contrib/quickstart.sh check` inside: the root (an
# ext4 filesystem of its own, in a sparse image file on a loop device) is /
# (pivot_root) in private mount and pid namespaces, with /proc, /sys (the host's cgroup
# layout), a /dev of its own (copies of the host's nodes) and a tmpfs /run.  Prints the
# test summaries; exits non-zero when a command fails.  Run it as root
# after changing dependencies (contrib/deps.sh, tests that need a new tool).
#
#   contrib/fresh-check.sh [OPTIONS]
#     --rebuild      debootstrap the base again (else the cached one is used)
#     --cache DIR    where the base tarball is kept (default /var/cache/ocisbx-fresh-check)
#     --mirror URL   the Debian mirror (default: the one this machine's apt uses)
#     --rev REV      the commit to check (default HEAD)
#     --deb FILE     instead: install the .deb FILE (with busybox-static, python3) and run the demo
#                    with /usr/bin/ocisbx
#     --keep         keep the root (its path is printed)
#
# Nothing is left behind: the mounts and processes live in namespaces that end with the
# run, and the root is unmounted and deleted (unless --keep; the logs stay).  Takes a while: apt downloads the build and test dependencies
# (about 300 MB), then the build and the whole suite run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
cache=/var/cache/ocisbx-fresh-check
mirror="" rev=HEAD deb="" keep=no rebuild=no
while [ $# -gt 0 ]; do
	case "$1" in
	--rebuild) rebuild=yes ;;
	--cache) cache=$2; shift ;;
	--mirror) mirror=$2; shift ;;
	--rev) rev=$2; shift ;;
	--deb) deb=$(realpath "$2"); shift ;;
	--keep) keep=yes ;;
	*) sed -n '/^#   contrib.fresh-check.sh .OPTIONS/,/^#     --keep/s/^#//p' "$0" >&2; exit 2 ;;
	esac
	shift
done

say() { printf '== %s\n' "$*" >&2; }
die() { printf 'fresh-check: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot and mounts need it)"
for t in debootstrap:debootstrap git:git unshare:util-linux mkfs.ext4:e2fsprogs; do
	command -v "${t%%:*}" >/dev/null || die "${t%%:*} is missing: apt-get install ${t#*:}"
done
[ -z "$deb" ] || [ -f "$deb" ] || die "no such .deb: $deb"

# The URIs this machine's apt uses for Debian (.list and deb822 .sources files):
# "URI SUITE" lines.
apt_uris() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && awk '$1 == "deb" { sub(/\[[^]]*\] */, ""); print $2, $3 }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && awk '
			function flush() { if (types ~ /(^| )deb( |$)/) { n = split(uris, u, " "); m = split(suites, s, " ")
				for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print u[i], s[j] }
				types = uris = suites = "" }
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
			/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
			/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
			END { flush() }' "$f"
	done
	return 0
}
uris=$(apt_uris)
[ -n "$mirror" ] || mirror=$(awk '$2 == "bookworm" { print $1; exit }' <<<"$uris")
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
security=$(awk '$2 == "bookworm-security" { print $1; exit }' <<<"$uris")

arch=$(dpkg --print-architecture)
base="$cache/bookworm-minbase-$arch.tar.gz"
if [ "$rebuild" = yes ] || [ ! -f "$base" ]; then
	say "debootstrap bookworm (minbase) from $mirror into $base"
	mkdir -p "$cache"
	tmp=$(mktemp -d /var/tmp/ocisbx-debootstrap.XXXXXX)
	trap 'rm -rf --one-file-system "$tmp"' EXIT
	debootstrap --variant=minbase bookworm "$tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		die "debootstrap failed: see $cache/debootstrap.log"
	{
		echo "deb $mirror bookworm main"
		echo "deb $mirror bookworm-updates main"
		[ -z "$security" ] || echo "deb $security bookworm-security main"
	} >"$tmp/etc/apt/sources.list"
	rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*
	chmod 755 "$tmp" # mktemp made it 0700: it becomes /
	tar -C "$tmp" --numeric-owner -czf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf --one-file-system "$tmp"
	trap - EXIT
fi

# The root is a filesystem of its own (ext4 in a sparse image on a loop device), as a
# machine's / is: a bind below it then names its path from that filesystem's root in
# mountinfo, as on a machine (dockerd, for one, unmounts its data root's self-bind at
# shutdown only when that path ends the data root's own).
work=$(mktemp -d /var/tmp/ocisbx-fresh.XXXXXX)
root="$work/root" image="$work/root.ext4"
cleanup() {
	local rc=$?
	# the namespaces of in_root ended with it: nothing of ours runs or is mounted here
	if grep -q " $root/" /proc/self/mountinfo; then
		echo "fresh-check: mounts left below $root: keeping it" >&2
		return "$rc"
	fi
	if [ "$keep" = yes ]; then
		say "the root is kept: $root, mounted from $image (logs in $work)"
	else
		if mountpoint -q "$root"; then umount "$root"; fi
		rm -rf --one-file-system "$root" "$image"
	fi
	return "$rc"
}
trap cleanup EXIT
say "root: $root (from $base, on $image)"
truncate -s 32G "$image"
mkfs.ext4 -q -F "$image"
mkdir "$root"
mount -o loop "$image" "$root"
tar -C "$root" --numeric-owner -xzf "$base"
chmod 755 "$root" # / (a base cached by an older version of this script has 0700)
cp /etc/resolv.conf "$root/etc/resolv.conf"

commit=$(git -C "$src" rev-parse "$rev")
say "clone of $src at $commit"
git clone -q --no-checkout "$src" "$root/root/ocisbx"
git -C "$root/root/ocisbx" checkout -q -B fresh-check "$commit"

# in_root SCRIPT: SCRIPT (bash) run as on a machine whose / is the root: in new mount
# and pid namespaces, the root (a mount of its own) made / by pivot_root (a chroot
# would not do: the runtime sets the propagation of / and pivot_roots itself), with
# /proc, /sys, a /dev of its own and a tmpfs /run, and a minimal environment.  The namespaces end
# with the script: whatever it left running is killed, whatever it mounted is gone.
in_root() {
	unshare --mount --pid --fork --kill-child --propagation private -- /bin/bash -euc '
		root=$1 script=$2
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		# a /dev of its own, as a machine has: copies of the nodes of the host on a tmpfs, so
		# that a test or a maintainer script changing /dev/null inside and whatever runs on
		# the host meanwhile do not see the changes of the other
		mount -t tmpfs -o mode=755,nosuid tmpfs "$root/dev"
		cp -a --one-file-system /dev/. "$root/dev/"
		mkdir -p "$root/dev/shm" "$root/dev/pts"
		mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
		mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5 devpts "$root/dev/pts"
		mount --bind "$root/dev/pts/ptmx" "$root/dev/ptmx"
		mount -t tmpfs -o mode=755,nosuid,nodev tmpfs "$root/run"
		cd "$root"
		mkdir -p .host
		pivot_root . .host
		# bash stays pid 1 (it reaps orphans) and runs the script as its child, with every
		# signal at its default action as in a login shell (whatever ignored some: nohup,
		# the background job)
		chroot . /usr/bin/env -i --default-signal HOME=/root LANG=C.UTF-8 TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -euc "umount -l /.host && rmdir /.host && cd /root && $script" &
		wait $!
	' fresh-check "$root" "$1"
}

rc=0
if [ -n "$deb" ]; then
	cp "$deb" "$root/root/"
	say "apt-get install ./$(basename "$deb") busybox-static python3 (the demo's), then the demo with /usr/bin/ocisbx"
	in_root "export DEBIAN_FRONTEND=noninteractive && apt-get update -qq &&
		apt-get install -y -qq --no-install-recommends ./$(basename "$deb") busybox-static python3 >/dev/null &&
		ocisbx --version && ls /usr/share/man/man1/ocisbx-run.1.gz /usr/share/bash-completion/completions/ocisbx &&
		ocisbx/contrib/demo.sh /usr/bin/ocisbx" || rc=$?
	exit "$rc"
fi

say "contrib/quickstart.sh (log: $work/demo.log)"
in_root "cd ocisbx && contrib/quickstart.sh" >"$work/demo.log" 2>&1 || rc=$?
tail -n 3 "$work/demo.log"
[ "$rc" = 0 ] || die "contrib/quickstart.sh failed ($rc): see $work/demo.log"

say "contrib/quickstart.sh check (log: $work/check.log)"
in_root "cd ocisbx && contrib/quickstart.sh check" >"$work/check.log" 2>&1 || rc=$?
# the logs of the unit tests (their failures' details) stay with check.log
mkdir -p "$work/tests"
cp "$root"/root/ocisbx/test-suite.log "$root"/root/ocisbx/tests/unit/*.log "$work/tests/" 2>/dev/null || true
say "summary"
grep -E '^(# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):|(SKIP|FAIL|ERROR): )|^not ok |# skip|^bats: ' "$work/check.log" || true
[ "$rc" = 0 ] || die "contrib/quickstart.sh check failed ($rc): see $work/check.log and $work/tests/"
say "passed: $commit on a fresh Debian 12"
