#!/usr/bin/env python3
"""Write the config.json files of the start-up benchmark (contrib/bench/startup.sh).

  mkconfig.py minimal BASE OUT ROOTFS [options] [-- ARGS...]
  mkconfig.py podman  BASE OUT ROOTFS --seccomp FILE --netns PATH --userdata DIR [options] [-- ARGS...]

BASE is a `runc spec` config.json.  "minimal" is BASE with terminal false and ARGS
(default /bin/true).  "podman" is what podman 4.3 (Debian 12) generates for
`podman run IMAGE /bin/true`: its default capabilities, rlimits, mounts, masked and
read-only paths, pids limit 2048, the device deny-all rule, the default seccomp
profile, a joined network namespace, a cgroupsPath, noNewPrivileges unset.

For the growth benchmark (growth.sh): --binds N adds N bind mounts of --bind-source at
/m/0 .. /m/N-1, --masked N masks /m/0 .. /m/N-1 (directories of the rootfs), both with
RLIMIT_NOFILE at --nofile; --no-netns drops the new network namespace.
"""
import argparse
import json
import os
import sys

PODMAN_CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
               "CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP",
               "CAP_SETUID", "CAP_SYS_CHROOT"]
PODMAN_MASKED = ["/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                 "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
                 "/sys/firmware", "/sys/fs/selinux", "/sys/dev/block"]
PODMAN_READONLY = ["/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                   "/proc/sysrq-trigger"]


def load_seccomp(path):
    """Accept a bare OCI linux.seccomp object or a whole config.json holding one."""
    with open(path) as f:
        doc = json.load(f)
    if "linux" in doc:
        doc = doc["linux"].get("seccomp", {})
    if "archMap" in doc or "syscalls" not in doc or "defaultAction" not in doc:
        sys.exit("mkconfig.py: %s is not an OCI linux.seccomp object" % path)
    return doc


def podman_mounts(userdata):
    def bind(dest, src):
        return {"destination": dest, "type": "bind", "source": os.path.join(userdata, src),
                "options": ["bind", "rprivate"]}
    shm = bind("/dev/shm", "shm")
    shm["options"] += ["nosuid", "noexec", "nodev"]
    return [
        {"destination": "/proc", "type": "proc", "source": "proc",
         "options": ["nosuid", "noexec", "nodev"]},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
         "options": ["nosuid", "noexec", "strictatime", "mode=755", "size=65536k"]},
        {"destination": "/sys", "type": "sysfs", "source": "sysfs",
         "options": ["nosuid", "noexec", "nodev", "ro"]},
        {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
         "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
        {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
         "options": ["nosuid", "noexec", "nodev"]},
        shm,
        bind("/run/.containerenv", ".containerenv"),
        bind("/etc/hostname", "hostname"),
        bind("/etc/resolv.conf", "resolv.conf"),
        bind("/etc/hosts", "hosts"),
        {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
         "options": ["rprivate", "nosuid", "noexec", "nodev", "relatime", "ro"]},
    ]


def podman(cfg, opts):
    hostname = "ocisbxbench"
    proc = cfg["process"]
    proc["user"] = {"uid": 0, "gid": 0, "umask": 18}
    proc["env"] = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                   "TERM=xterm", "container=podman", "HOME=/root", "HOSTNAME=" + hostname]
    proc["cwd"] = "/"
    proc["capabilities"] = {k: list(PODMAN_CAPS) for k in ("bounding", "effective", "permitted")}
    # podman asks for 1048576 open files; no runtime can raise past our hard limit.
    proc["rlimits"] = [
        {"type": "RLIMIT_NOFILE", "hard": opts.nofile, "soft": opts.nofile},
        {"type": "RLIMIT_NPROC", "hard": 32768, "soft": 32768},
    ]
    proc.pop("noNewPrivileges", None)
    proc.pop("apparmorProfile", None)
    proc.pop("selinuxLabel", None)
    cfg["root"] = {"path": cfg["root"]["path"]}
    cfg["hostname"] = hostname
    cfg["mounts"] = podman_mounts(opts.userdata)
    cfg["annotations"] = {"io.container.manager": "libpod",
                          "io.kubernetes.cri-o.TTY": "false",
                          "io.podman.annotations.autoremove": "FALSE",
                          "io.podman.annotations.init": "FALSE",
                          "io.podman.annotations.privileged": "FALSE",
                          "io.podman.annotations.publish-all": "FALSE",
                          "org.opencontainers.image.stopSignal": "15"}
    cfg["linux"] = {
        "sysctl": {"net.ipv4.ping_group_range": "0 0"},
        "resources": {"devices": [{"allow": False, "access": "rwm"}],
                      "pids": {"limit": 2048}},
        "namespaces": [{"type": "pid"}, {"type": "network", "path": opts.netns},
                       {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}],
        "seccomp": load_seccomp(opts.seccomp),
        "maskedPaths": list(PODMAN_MASKED),
        "readonlyPaths": list(PODMAN_READONLY),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["minimal", "podman"])
    ap.add_argument("base")
    ap.add_argument("out")
    ap.add_argument("rootfs")
    ap.add_argument("--cgroups-path")
    ap.add_argument("--memory", type=int, help="linux.resources.memory.limit in bytes")
    ap.add_argument("--seccomp")
    ap.add_argument("--netns")
    ap.add_argument("--userdata")
    ap.add_argument("--nofile", type=int, default=1048576)
    ap.add_argument("--binds", type=int, default=0)
    ap.add_argument("--bind-source")
    ap.add_argument("--masked", type=int, default=0)
    ap.add_argument("--no-netns", action="store_true")
    argv = sys.argv[1:]
    args = []
    if "--" in argv:
        args = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    opts = ap.parse_args(argv)
    opts.args = args

    with open(opts.base) as f:
        cfg = json.load(f)
    cfg["root"]["path"] = os.path.abspath(opts.rootfs)
    cfg["process"]["terminal"] = False
    cfg["process"]["args"] = opts.args or ["/bin/true"]
    if opts.kind == "podman":
        if not (opts.seccomp and opts.netns and opts.userdata):
            sys.exit("mkconfig.py: podman needs --seccomp, --netns and --userdata")
        podman(cfg, opts)
    linux = cfg.setdefault("linux", {})
    if opts.cgroups_path:
        linux["cgroupsPath"] = opts.cgroups_path
    if opts.memory:
        linux.setdefault("resources", {})["memory"] = {"limit": opts.memory}
    if opts.binds:
        if not opts.bind_source:
            sys.exit("mkconfig.py: --binds needs --bind-source")
        cfg["mounts"] += [{"destination": "/m/%d" % i, "type": "bind",
                           "source": os.path.abspath(opts.bind_source),
                           "options": ["rbind", "ro"]} for i in range(opts.binds)]
    if (opts.binds or opts.masked) and opts.kind == "minimal":
        cfg["process"]["rlimits"] = [r for r in cfg["process"].get("rlimits", []) if r["type"] != "RLIMIT_NOFILE"] + [
            {"type": "RLIMIT_NOFILE", "hard": opts.nofile, "soft": opts.nofile}]
    if opts.masked:
        linux["maskedPaths"] = linux.get("maskedPaths", []) + ["/m/%d" % i for i in range(opts.masked)]
    if opts.no_netns:
        linux["namespaces"] = [n for n in linux.get("namespaces", []) if n["type"] != "network"]
    os.makedirs(opts.out, exist_ok=True)
    with open(os.path.join(opts.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)


if __name__ == "__main__":
    main()
