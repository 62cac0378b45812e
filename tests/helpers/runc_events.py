#!/usr/bin/env python3
"""Checks `events` JSON lines against the shape runc prints (runc's types/events.go,
1.1/1.2): every key runc can print, with its type, and the keys Go's encoder always
prints (no omitempty) present.  Unknown keys are errors: a tool written for runc's
events must find nothing it does not know.

  runc_events.py check FILE                 each line is a valid stats or oom event
  runc_events.py compare OURS RUNCS         the first stats line of each: same keys
                                            wherever both have a value, same config-
                                            derived values (limits, cpus, mems)
"""
import json
import sys

U64, I64, STR = "u64", "i64", "str"

# key -> (type, always printed); a type is U64/I64/STR, [TYPE] (a list), a dict (a
# struct), ("map", TYPE) (a map with string keys), or None (always null here)
ENTRY = {"limit": (U64, True), "usage": (U64, False), "max": (U64, False), "failcnt": (U64, True)}
BLKIO = [{"major": (U64, False), "minor": (U64, False), "op": (STR, False), "value": (U64, False)}]
STATS = {
    "cpu": ({
        "usage": ({"total": (U64, False), "percpu": ([U64], False), "percpu_kernel": ([U64], False),
                   "percpu_user": ([U64], False), "kernel": (U64, True), "user": (U64, True)}, True),
        "throttling": ({"periods": (U64, False), "throttledPeriods": (U64, False),
                        "throttledTime": (U64, False)}, True),
    }, True),
    "cpuset": ({
        "cpus": ([U64], False), "cpu_exclusive": (U64, True), "mems": ([U64], False),
        "mem_hardwall": (U64, True), "mem_exclusive": (U64, True), "memory_migrate": (U64, True),
        "memory_spread_page": (U64, True), "memory_spread_slab": (U64, True),
        "memory_pressure": (U64, True), "sched_load_balance": (U64, True),
        "sched_relax_domain_level": (I64, True),
    }, True),
    "memory": ({"cache": (U64, False), "usage": (ENTRY, True), "swap": (ENTRY, True),
                "kernel": (ENTRY, True), "kernelTCP": (ENTRY, True), "raw": (("map", U64), False)}, True),
    "pids": ({"current": (U64, False), "limit": (U64, False)}, True),
    "blkio": ({k: (BLKIO, False) for k in (
        "ioServiceBytesRecursive", "ioServicedRecursive", "ioQueueRecursive", "ioServiceTimeRecursive",
        "ioWaitTimeRecursive", "ioMergedRecursive", "ioTimeRecursive", "sectorsRecursive")}, True),
    "hugetlb": (("map", {"usage": (U64, False), "max": (U64, False), "failcnt": (U64, True)}), True),
    "intel_rdt": ({}, True),
    "network_interfaces": (None, True),
}


def check(v, spec, path, errs):
    if spec is None:
        if v is not None:
            errs.append("%s: %r, runc prints null" % (path, v))
    elif spec in (U64, I64):
        if not isinstance(v, int) or isinstance(v, bool) or (spec == U64 and v < 0):
            errs.append("%s: %r is not a%s integer" % (path, v, "n unsigned" if spec == U64 else "n"))
    elif spec == STR:
        if not isinstance(v, str):
            errs.append("%s: %r is not a string" % (path, v))
    elif isinstance(spec, list):
        if not isinstance(v, list):
            errs.append("%s: %r is not a list" % (path, v))
        else:
            if not v:
                errs.append("%s: an empty list (runc leaves it out)" % path)
            for i, x in enumerate(v):
                check(x, spec[0], "%s[%d]" % (path, i), errs)
    elif isinstance(spec, tuple):  # ("map", TYPE)
        if not isinstance(v, dict):
            errs.append("%s: %r is not an object" % (path, v))
        else:
            for k, x in v.items():
                check(x, spec[1], "%s.%s" % (path, k), errs)
    else:
        if not isinstance(v, dict):
            errs.append("%s: %r is not an object" % (path, v))
            return
        for k in v:
            if k not in spec:
                errs.append("%s.%s: not a key of runc's events" % (path, k))
        for k, (sub, always) in spec.items():
            if k in v:
                check(v[k], sub, "%s.%s" % (path, k), errs)
            elif always:
                errs.append("%s.%s: missing (runc always prints it)" % (path, k))


def check_event(line):
    errs = []
    ev = json.loads(line)
    if ev.get("type") == "stats":
        if set(ev) != {"type", "id", "data"}:
            errs.append("stats event keys %s" % sorted(ev))
        check(ev.get("data"), STATS, "data", errs)
    elif ev.get("type") == "oom":
        if set(ev) != {"type", "id"}:
            errs.append("oom event keys %s (runc: type, id)" % sorted(ev))
    else:
        errs.append("unknown event type %r" % ev.get("type"))
    if not isinstance(ev.get("id"), str):
        errs.append("id %r" % ev.get("id"))
    return errs


def first_stats(path):
    for line in open(path):
        if line.strip() and json.loads(line).get("type") == "stats":
            return json.loads(line)["data"]
    raise SystemExit("%s: no stats event" % path)


def compare(a, b, path, errs):
    """Keys present in both must have the same type; config-derived values equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in set(a) & set(b):
            compare(a[k], b[k], path + "." + k, errs)
    elif type(a) != type(b):
        errs.append("%s: %r here, %r from runc" % (path, a, b))


DERIVED = [("memory", "usage", "limit"), ("memory", "swap", "limit"), ("pids", "limit"),
           ("cpuset", "cpus"), ("cpuset", "mems")]


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        errs = []
        n = 0
        for line in open(sys.argv[2]):
            if line.strip():
                n += 1
                errs += check_event(line)
        if n == 0:
            errs.append("no events")
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        ours, runcs = first_stats(sys.argv[2]), first_stats(sys.argv[3])
        errs = []
        compare(ours, runcs, "data", errs)
        for keys in DERIVED:
            a, b = ours, runcs
            for k in keys:
                a, b = a.get(k) if a else None, b.get(k) if b else None
            if a != b:
                errs.append("data.%s: %r here, %r from runc" % (".".join(keys), a, b))
        print("compared with runc: %s" % ", ".join(".".join(k) for k in DERIVED))
    else:
        raise SystemExit(__doc__)
    for e in errs:
        print(e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
