#!/usr/bin/env python3
"""Turn podman's default seccomp profile (containers/common's seccomp.json, the
moby-style format with archMap/includes/excludes) into the bare OCI linux.seccomp
object podman puts into config.json for one architecture and capability set.

  gen-podman-default.py [PROFILE] [--arch amd64] [--caps CAP_X,CAP_Y] > podman-default.json

PROFILE defaults to /usr/share/containers/seccomp.json (Debian package
golang-github-containers-common); the default caps are podman's default set.
Rules follow containers/common's setupSeccomp: an entry is kept when its
includes.arches has the arch, includes.caps are all held, excludes.arches does not
have the arch and none of excludes.caps is held.
"""
import argparse
import json
import sys

PODMAN_CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
               "CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP",
               "CAP_SETUID", "CAP_SYS_CHROOT"]
GO_TO_SCMP = {"amd64": "SCMP_ARCH_X86_64", "386": "SCMP_ARCH_X86", "arm64": "SCMP_ARCH_AARCH64",
              "arm": "SCMP_ARCH_ARM", "ppc64le": "SCMP_ARCH_PPC64LE", "s390x": "SCMP_ARCH_S390X",
              "riscv64": "SCMP_ARCH_RISCV64", "mips64": "SCMP_ARCH_MIPS64"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile", nargs="?", default="/usr/share/containers/seccomp.json")
    ap.add_argument("--arch", default="amd64")
    ap.add_argument("--caps", default=",".join(PODMAN_CAPS))
    opts = ap.parse_args()
    caps = set(c for c in opts.caps.split(",") if c)
    with open(opts.profile) as f:
        src = json.load(f)

    native = GO_TO_SCMP[opts.arch]
    arches = [native]
    for m in src.get("archMap", []):
        if m["architecture"] == native:
            arches += m.get("subArchitectures", [])

    # the includes.arches names of containers/common (Go names, plus x86/x32)
    arch_names = {opts.arch, {"amd64": "x86_64"}.get(opts.arch, opts.arch)}
    out = {"defaultAction": src["defaultAction"]}
    if "defaultErrnoRet" in src:
        out["defaultErrnoRet"] = src["defaultErrnoRet"]
    out["architectures"] = arches
    out["syscalls"] = []
    for s in src["syscalls"]:
        inc, exc = s.get("includes", {}), s.get("excludes", {})
        if inc.get("arches") and not arch_names & set(inc["arches"]):
            continue
        if inc.get("caps") and not set(inc["caps"]) <= caps:
            continue
        if exc.get("arches") and arch_names & set(exc["arches"]):
            continue
        if exc.get("caps") and set(exc["caps"]) & caps:
            continue
        if inc.get("minKernel") or exc.get("minKernel"):
            sys.exit("gen-podman-default.py: minKernel rules are not handled")
        rule = {"names": s["names"], "action": s["action"]}
        if s.get("args"):
            rule["args"] = [{k: a[k] for k in ("index", "value", "valueTwo", "op")} for a in s["args"]]
        if "errnoRet" in s:
            rule["errnoRet"] = s["errnoRet"]
        out["syscalls"].append(rule)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


main()
