#!/usr/bin/env python3
"""The processes of one pid namespace, seen from the host (tests/helpers/tree.bash).

  nsprocs.py count INIT_PID ARG...   live processes whose argv is exactly ARG...
  nsprocs.py zombies INIT_PID        zombies whose parent is in the namespace too
  nsprocs.py find INIT_PID TEXT...   the first live process whose argv (joined by
                                     spaces) contains every TEXT

INIT_PID is any process of the namespace (a container's init).  One pass over /proc.
"""
import os
import sys


def procs(init):
    ns = os.readlink("/proc/%s/ns/pid" % init)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink("/proc/%s/ns/pid" % pid) != ns:
                continue
            stat = open("/proc/%s/stat" % pid, "rb").read().rsplit(b")", 1)[1].split()
            argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")[:-1]
        except OSError:
            continue
        yield pid, stat[0].decode(), stat[1].decode(), [a.decode(errors="replace") for a in argv]


def main(cmd, init, *args):
    ps = list(procs(init))
    if cmd == "count":
        print(sum(1 for _, st, _, argv in ps if st != "Z" and argv == list(args)))
    elif cmd == "zombies":
        pids = {p for p, _, _, _ in ps}
        for pid, st, ppid, _ in ps:
            if st == "Z" and ppid in pids:
                print(pid)
    elif cmd == "find":
        for pid, st, _, argv in ps:
            if st != "Z" and all(t in " ".join(argv) for t in args):
                print(pid)
                return 0
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
