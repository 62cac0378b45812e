#!/bin/bash
# Build and run the libFuzzer targets of the OCI document parsers (fuzz_ocispec.c) under
# AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   tests/fuzz/run.sh [-t SECONDS] [--tap] [TARGET...]     TARGETs: config process state resources
#
# SECONDS per target (default $FUZZ_SECONDS, else 60).  Needs clang with libFuzzer (Debian:
# clang, libclang-rt-dev); without it says why and exits 77 (with --tap: a TAP skip).  Everything goes to
# $FUZZ_DIR (default BUILDDIR/tests/fuzz/work): the binaries, the corpus each run adds
# to (kept between runs), the seeds (made anew each run from the test documents: ours in
# tests/unit/ocispec_cases, ../shared/oci-schema/test when present, Debian's runtime-spec
# schema dir when installed, `ocisbx spec`), a dictionary of their keys, and a
# reproducer for any crash (crash-TARGET-*: run `BINARY FILE` to replay it).
# The last line is the figure: "fuzz: 4 targets x 60 s: 5712334 runs, 0 crashes".
# --tap prints TAP (for `make check`).
set -u
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${OCISBX_BUILDDIR:-$(dirname "${OCISBX_BIN:-$src/ocisbx}")}" && pwd)
work=${FUZZ_DIR:-$build/tests/fuzz/work}
secs=${FUZZ_SECONDS:-60}
tap=0
targets=()
while [ $# -gt 0 ]; do
	case "$1" in
	-t) secs=$2; shift 2 ;;
	--tap) tap=1; shift ;;
	-h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) targets+=("$1"); shift ;;
	esac
done
[ ${#targets[@]} -gt 0 ] || targets=(config process state resources)

skip() {
	if [ $tap = 1 ]; then echo "1..0 # SKIP $*" && exit 0; fi
	echo "fuzz: skipped: $*"
	exit 77
}
# missing WHY: clang or its libFuzzer is missing: a skip naming the packages, a failure once
# contrib/deps.sh --tests installed them (OCISBX_TESTS_ALL_DEPS=1, as tests/helpers/common.bash)
missing() {
	local why="$* (Debian packages clang, libclang-rt-dev; contrib/deps.sh --tests installs them)"
	[ "${OCISBX_TESTS_ALL_DEPS:-}" = 1 ] || skip "$why"
	if [ $tap = 1 ]; then printf '1..1\nnot ok 1 - %s, although contrib/deps.sh --tests ran\n' "$why"; fi
	echo "fuzz: $why, although contrib/deps.sh --tests ran" >&2
	exit 1
}
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || missing "no $CC"
[ -f "$build/config.h" ] || skip "no config.h in $build (configure first)"
mkdir -p "$work/obj" "$work/seeds" "$work/corpus"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){return 0;}\n' >"$work/probe.c"
"$CC" -fsanitize=fuzzer,address,undefined "$work/probe.c" -o "$work/probe" 2>"$work/probe.log" ||
	missing "$CC cannot build a libFuzzer target: $(head -c 200 "$work/probe.log")"

# ---- build: the parsers instrumented, one binary per target ----
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS_F="-g -O1 $SAN -I$build -I$src/libocispec -I$src/src $(pkg-config --cflags yajl 2>/dev/null)"
objs=()
for f in "$src"/libocispec/*.c "$src/src/core/container/state_doc.c" "$src/src/core/cgroups/doc.c"; do
	o="$work/obj/$(basename "$f" .c).o"
	if [ ! -f "$o" ] || [ "$f" -nt "$o" ] || [ "$src/libocispec/ocispec.h" -nt "$o" ]; then
		"$CC" $CFLAGS_F -fsanitize=fuzzer-no-link -c "$f" -o "$o" || { echo "fuzz: cannot build $f" >&2; exit 1; }
	fi
	objs+=("$o")
done
for t in "${targets[@]}"; do
	extra=""
	[ "$t" = state ] && extra=-DFUZZ_STATE_FILE
	"$CC" $CFLAGS_F -fsanitize=fuzzer -DFUZZ_DOC="$t" $extra "$src/tests/fuzz/fuzz_ocispec.c" "${objs[@]}" \
		$(pkg-config --libs yajl 2>/dev/null || echo -lyajl) -o "$work/fuzz_$t" || { echo "fuzz: cannot build $t" >&2; exit 1; }
done

# ---- seeds, made anew each run ----
rm -rf "$work/seeds"
mkdir -p "$work/seeds"/{config,process,state,resources}
cp "$src"/tests/unit/ocispec_cases/full-config.json "$work/seeds/config/"
cp "$src"/tests/unit/ocispec_cases/full-state.json "$work/seeds/state/"
for d in "$src/../shared/oci-schema/test" "${OCI_SCHEMA_DIR:-/nonexistent}/test"; do
	for kind in config state; do
		for f in "$d/$kind"/good/*.json "$d/$kind"/bad/*.json; do
			[ -f "$f" ] && cp "$f" "$work/seeds/$kind/$(basename "$(dirname "$f")")-$(basename "$f")"
		done
	done
done
# Debian's golang-github-opencontainers-specs-dev: the schemas, JSON of every shape
for f in /usr/share/gocode/src/github.com/opencontainers/runtime-spec/schema/*.json; do
	[ -f "$f" ] && cp "$f" "$work/seeds/config/schema-$(basename "$f")"
done
bin=${OCISBX_BIN:-$build/ocisbx}
if [ -x "$bin" ]; then
	(cd "$work/seeds/config" && "$bin" spec && mv config.json spec.json && "$bin" spec --rootless &&
		mv config.json spec-rootless.json) 2>/dev/null
fi
# process and resources documents from the configs; a podman profile; our state.json
python3 - "$work/seeds" "$src/contrib/seccomp/podman-default.json" <<-'EOF'
	import json, os, sys
	seeds, profile = sys.argv[1:]
	configs = []
	for name in sorted(os.listdir(os.path.join(seeds, "config"))):
	    try:
	        configs.append((name, json.load(open(os.path.join(seeds, "config", name)))))
	    except ValueError:
	        pass
	for name, c in configs:
	    if isinstance(c, dict) and isinstance(c.get("process"), dict):
	        json.dump(c["process"], open(os.path.join(seeds, "process", name), "w"))
	    lx = c.get("linux") if isinstance(c, dict) else None
	    if isinstance(lx, dict) and isinstance(lx.get("resources"), dict):
	        json.dump(lx["resources"], open(os.path.join(seeds, "resources", name), "w"))
	        if "seccomp" not in lx and os.path.exists(profile):
	            c = dict(c, linux=dict(lx, seccomp=json.load(open(profile))))
	            json.dump(c, open(os.path.join(seeds, "config", "podman-seccomp-" + name), "w"))
	json.dump({"ociVersion": "1.2.0", "id": "c1", "pid": 4242, "startTime": 123456, "bundle": "/b",
	           "config": "/b/config.json", "rootfs": "/b/rootfs", "created": "2024-01-01T00:00:00.000000000Z",
	           "owner": 0, "cgroup": "ocisbx-cgroups 1\nlayout hybrid\n", "systemdCgroup": False,
	           "rootless": False, "userns": True, "annotations": {"a": "b"},
	           "poststart": [{"path": "/bin/true", "args": ["true"], "env": ["A=1"], "timeout": 5}],
	           "poststop": [{"path": "/bin/true"}]},
	          open(os.path.join(seeds, "state", "ocisbx-state.json"), "w"))
	# a dictionary per target: the keys and string values of its seeds
	def walk(v, out):
	    if isinstance(v, dict):
	        for k, x in v.items():
	            out.add(k)
	            walk(x, out)
	    elif isinstance(v, list):
	        for x in v:
	            walk(x, out)
	    elif isinstance(v, str) and len(v) < 40:
	        out.add(v)
	for kind in ("config", "process", "state", "resources"):
	    words = set()
	    for name in os.listdir(os.path.join(seeds, kind)):
	        try:
	            walk(json.load(open(os.path.join(seeds, kind, name))), words)
	        except ValueError:
	            pass
	    with open(os.path.join(seeds, kind + ".dict"), "w") as d:
	        for w in sorted(words):
	            if w and all(32 <= ord(ch) < 127 and ch not in '"\\' for ch in w):
	                d.write('"\\"%s\\""\n' % w)
EOF

# ---- run ----
total=0 crashes=0 n=0
[ $tap = 1 ] && echo "1..${#targets[@]}"
for t in "${targets[@]}"; do
	n=$((n + 1))
	mkdir -p "$work/corpus/$t"
	log="$work/fuzz_$t.log"
	rc=0
	"$work/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-dict="$work/seeds/$t.dict" -artifact_prefix="$work/crash-$t-" "$work/corpus/$t" "$work/seeds/$t" \
		>"$log" 2>&1 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	total=$((total + ${runs:-0}))
	if [ "$rc" -ne 0 ]; then
		crashes=$((crashes + 1))
		what="$t: CRASH (exit $rc): $(grep -m1 -E 'ERROR|runtime error|abort|: ' "$log" | head -c 300); log $log, reproducer $(ls "$work"/crash-"$t"-* 2>/dev/null | head -n 1)"
		if [ $tap = 1 ]; then echo "not ok $n - $what"; else echo "fuzz: $what" >&2; fi
		[ $tap = 1 ] && sed 's/^/# /' "$log" | tail -n 40
	elif [ $tap = 1 ]; then
		echo "ok $n - $t: ${runs:-0} runs in $secs s, $cov, corpus $(ls "$work/corpus/$t" | wc -l)"
	else
		echo "fuzz: $t: ${runs:-0} runs in $secs s, $cov, corpus $(ls "$work/corpus/$t" | wc -l)"
	fi
done
fig="fuzz: ${#targets[@]} targets x $secs s: $total runs, $crashes crashes"
if [ $tap = 1 ]; then echo "# $fig"; else echo "$fig"; fi
[ "$crashes" -eq 0 ]
