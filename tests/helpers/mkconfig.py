#!/usr/bin/env python3
"""Write or edit an OCI config.json for the bats suite (no jq needed).

  mkconfig.py new  FILE [ARG...]           default config (as `runc spec`, terminal
                                           false), process.args = ARGs (default: sh)
  mkconfig.py edit FILE [OP...]            apply edits in order, rewrite FILE
      --set PATH=JSON    set a value (intermediate objects are created)
      --add PATH=JSON    append JSON to the array at PATH (created if absent)
      --del PATH         remove a key / array element (missing is fine)

PATH is dotted with optional [N] indices or [KEY=VALUE] selectors (first array
element whose KEY equals VALUE): process.args, mounts[-1], linux.namespaces[type=pid].  A JSON value that does not parse is taken as a plain string.
"""
import json
import re
import sys

CAPS = ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]


def default_config(args):
    return {
        "ociVersion": "1.0.2-dev",
        "process": {
            "terminal": False,
            "user": {"uid": 0, "gid": 0},
            "args": args or ["sh"],
            "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                    "TERM=xterm"],
            "cwd": "/",
            "capabilities": {k: list(CAPS) for k in
                             ("bounding", "effective", "permitted", "ambient")},
            "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}],
            "noNewPrivileges": True,
        },
        "root": {"path": "rootfs", "readonly": True},
        "hostname": "runc",
        "mounts": [
            {"destination": "/proc", "type": "proc", "source": "proc"},
            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
             "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
            {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
             "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666",
                         "mode=0620", "gid=5"]},
            {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
             "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
            {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
             "options": ["nosuid", "noexec", "nodev"]},
            {"destination": "/sys", "type": "sysfs", "source": "sysfs",
             "options": ["nosuid", "noexec", "nodev", "ro"]},
            {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
             "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]},
        ],
        "linux": {
            "resources": {"devices": [{"allow": False, "access": "rwm"}]},
            "namespaces": [{"type": t} for t in
                           ("pid", "network", "ipc", "uts", "mount")],
            "maskedPaths": ["/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys",
                            "/proc/latency_stats", "/proc/timer_list",
                            "/proc/timer_stats", "/proc/sched_debug",
                            "/sys/firmware", "/proc/scsi"],
            "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                              "/proc/sysrq-trigger"],
        },
    }


def split_path(path):
    keys = []
    for part in re.findall(r"(?:[^.\[]|\[[^\]]*\])+", path):
        m = re.fullmatch(r"([^\[\]]*)((?:\[[^\[\]]+\])*)", part)
        if not m:
            raise SystemExit("mkconfig: bad path %r" % path)
        if m.group(1):
            keys.append(m.group(1))
        for sub in re.findall(r"\[([^\[\]]+)\]", m.group(2)):
            keys.append(tuple(sub.split("=", 1)) if "=" in sub else int(sub))
    return keys


def resolve(cur, k):
    """Turn a [KEY=VALUE] selector into an index of list cur (or None)."""
    if isinstance(k, tuple):
        for i, item in enumerate(cur if isinstance(cur, list) else []):
            if isinstance(item, dict) and str(item.get(k[0])) == k[1]:
                return i
        return None
    return k


def walk(doc, keys, create):
    """Return the container holding keys[-1]."""
    cur = doc
    for i, key in enumerate(keys[:-1]):
        k = resolve(cur, key)
        if isinstance(k, str) and isinstance(cur, dict) and k not in cur:
            if not create:
                return None
            cur[k] = {} if isinstance(keys[i + 1], str) else []
        try:
            cur = cur[k]
        except (IndexError, KeyError, TypeError):
            if create:
                raise SystemExit("mkconfig: no such path element %r" % (key,))
            return None
    return cur


def parse_value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def main(argv):
    if len(argv) < 3 or argv[1] not in ("new", "edit"):
        raise SystemExit(__doc__)
    mode, path, rest = argv[1], argv[2], argv[3:]
    if mode == "new":
        doc = default_config(rest)
    else:
        with open(path) as f:
            doc = json.load(f)
        while rest:
            op = rest.pop(0)
            if op not in ("--set", "--add", "--del") or not rest:
                raise SystemExit("mkconfig: bad edit %r" % op)
            arg = rest.pop(0)
            if op == "--del":
                keys = split_path(arg)
                parent = walk(doc, keys, create=False)
                try:
                    del parent[resolve(parent, keys[-1])]
                except (IndexError, KeyError, TypeError):
                    pass
                continue
            m = re.fullmatch(r"((?:[^=\[]|\[[^\]]*\])+)=(.*)", arg, re.S)
            if not m:
                raise SystemExit("mkconfig: %s needs PATH=JSON" % op)
            p, value = m.groups()
            keys = split_path(p)
            parent = walk(doc, keys, create=True)
            last = resolve(parent, keys[-1])
            if last is None:
                raise SystemExit("mkconfig: nothing matches %r" % p)
            value = parse_value(value)
            if op == "--set":
                if isinstance(parent, list) and last == len(parent):
                    parent.append(value)
                else:
                    parent[last] = value
            else:
                if isinstance(parent, dict):
                    parent.setdefault(last, [])
                parent[last].append(value)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
